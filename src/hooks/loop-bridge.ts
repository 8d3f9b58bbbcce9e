import type { ConversationMessage } from "../agent/conversation.js";
import type { LoopHooks, ModelRequestOverride, ModelRequestView } from "../agent/loop-hooks.js";
import type { ToolSpec } from "../tools/contract.js";
import type { ToolDeclaration } from "../tools/registry.js";
import type { ModelRequestFacts } from "./events.js";
import type { SessionHooks } from "./lifecycle.js";
import { applyLlmRequestEdit } from "./llm-request.js";

/** The agent whose loop the hooks watch: "main" (Stop) or a subagent (SubagentStop, with its type). */
export interface LoopAgent {
  agentId: string;
  /** A subagent's type; undefined for the main agent. */
  agentType?: string;
  /** A subagent's transcript (SubagentStop's agent_transcript_path). */
  transcriptPath?: string;
  model: string;
  /** The request that started this run (Gemini's AfterAgent `prompt`). */
  prompt(): string;
  /** A declared tool's aliases and MCP origin, so each dialect can name it its way (and read the names back). */
  toolSpec?(name: string): Pick<ToolSpec, "aliases" | "mcp"> | undefined;
}

/**
 * The agent loop's hooks, backed by the session's lifecycle hooks: only the moments some hook watches are
 * filled in, so a session without such hooks runs its loop exactly as before.
 */
export function loopHooksFor(hooks: SessionHooks, agent: LoopAgent): LoopHooks | undefined {
  const loop: { -readonly [K in keyof LoopHooks]: LoopHooks[K] } = {};
  const stopEvent = agent.agentType === undefined ? "stop" : "subagent_stop";
  if (hooks.has(stopEvent)) loop.beforeStop = (facts, signal) => beforeStop(hooks, agent, facts, signal);
  if (hooks.has("before_model") || hooks.has("before_tool_selection") || hooks.hasBackground())
    loop.beforeModel = (request, signal) => beforeModel(hooks, agent, request, signal);
  if (hooks.has("after_model")) {
    loop.holdsText = true;
    loop.afterModel = async (request, text, signal) => {
      const event = {
        kind: "after_model" as const,
        agentId: agent.agentId,
        request: facts(agent, request),
        responseText: text,
      };
      const outcome = await hooks.fire(event, signal);
      if (outcome.block) return { discard: true, ...stopOf(hooks, outcome.block, "discarded the reply") };
      return {
        ...(outcome.response !== undefined ? { text: outcome.response } : {}),
        ...stopOf(hooks, outcome.stop),
      };
    };
  }
  Object.assign(loop, compactionHooks(hooks, agent, "auto"));
  return Object.keys(loop).length > 0 ? loop : undefined;
}

/**
 * A compaction's hooks: PreCompact (its context becomes instructions for the summary; a block keeps the
 * conversation), then PostCompact and SessionStart with source "compact" (whose context joins it).
 */
export function compactionHooks(
  hooks: SessionHooks,
  agent: Pick<LoopAgent, "agentId" | "model">,
  trigger: "auto" | "manual",
): Pick<LoopHooks, "beforeCompact" | "afterCompact"> {
  const found: { -readonly [K in "beforeCompact" | "afterCompact"]?: LoopHooks[K] } = {};
  if (hooks.has("pre_compact"))
    found.beforeCompact = async (signal) => {
      const outcome = await hooks.fire({ kind: "pre_compact", agentId: agent.agentId, trigger }, signal);
      if (outcome.block)
        hooks.log(`${outcome.block.source} kept the conversation uncompacted: ${outcome.block.reason}`);
      return { skip: outcome.block !== undefined, instructions: outcome.context };
    };
  if (hooks.has("post_compact") || hooks.has("session_start"))
    found.afterCompact = async (summary, signal) => {
      await hooks.fire({ kind: "post_compact", agentId: agent.agentId, trigger, summary }, signal);
      const started = await hooks.fire(
        { kind: "session_start", agentId: agent.agentId, source: "compact", model: agent.model },
        signal,
      );
      return { context: started.context };
    };
  return found;
}

async function beforeStop(
  hooks: SessionHooks,
  agent: LoopAgent,
  stop: { lastAssistantMessage: string; stopHookActive: boolean },
  signal: AbortSignal,
) {
  const event =
    agent.agentType === undefined
      ? { kind: "stop" as const, agentId: agent.agentId, prompt: agent.prompt(), ...stop }
      : {
          kind: "subagent_stop" as const,
          agentId: agent.agentId,
          agentType: agent.agentType,
          transcriptPath: agent.transcriptPath ?? "",
          ...stop,
        };
  const outcome = await hooks.fire(event, signal);
  const cleared = outcome.clearContext ? { clearContext: true } : {};
  if (outcome.stop) return { ...stopOf(hooks, outcome.stop), ...cleared };
  return outcome.block ? { continueWith: outcome.block.reason, ...cleared } : {};
}

/**
 * Gemini CLI's order (geminiChat.ts): BeforeModel first, then BeforeToolSelection, which sees the request as
 * BeforeModel left it and does not fire when BeforeModel ended the turn or replied in the model's place.
 * As there, `continue: false` ends the run first; a deny ends it too unless it comes with an `llm_response`,
 * which is then the reply (the deny's reason a warning).
 */
async function beforeModel(
  hooks: SessionHooks,
  agent: LoopAgent,
  request: ModelRequestView,
  signal: AbortSignal,
) {
  const context = hooks.hasBackground() ? await hooks.takeContext(agent.agentId) : [];
  const added = context.length > 0 ? { context } : {};
  let override: ModelRequestOverride | undefined;
  if (hooks.has("before_model")) {
    const event = { kind: "before_model" as const, agentId: agent.agentId, request: facts(agent, request) };
    const outcome = await hooks.fire(event, signal);
    if (outcome.stop) return stopOf(hooks, outcome.stop);
    if (outcome.block && outcome.response !== undefined) {
      // Gemini CLI shows a deny's reason as a warning and takes its llm_response as the model's reply
      hooks.log(
        `${outcome.block.source} blocked the model call: ${outcome.block.reason} (its llm_response is the reply)`,
      );
      return { ...added, response: outcome.response };
    }
    if (outcome.block) return stopOf(hooks, outcome.block, "blocked the model call");
    if (outcome.request?.model && outcome.request.model !== agent.model)
      hooks.log(
        `a BeforeModel hook asked for model ${outcome.request.model}: not applied (the session keeps ${agent.model})`,
      );
    if (outcome.response !== undefined) return { ...added, response: outcome.response };
    if (outcome.request) override = applyLlmRequestEdit(request, outcome.request);
  }
  let tools = request.tools;
  if (hooks.has("before_tool_selection")) {
    const seen = {
      ...request,
      ...(override?.messages ? { messages: override.messages } : {}),
    };
    const event = {
      kind: "before_tool_selection" as const,
      agentId: agent.agentId,
      request: facts(agent, seen),
    };
    tools = selectTools(tools, (await hooks.fire(event, signal)).toolConfig);
  }
  return {
    ...added,
    ...(tools !== request.tools ? { tools } : {}),
    ...(override ? { request: override } : {}),
  };
}

/** BeforeToolSelection: NONE declares no tools; allowed names (Gantry's: each dialect reads its own) narrow them. */
function selectTools(
  tools: readonly ToolDeclaration[],
  config: { none: boolean; allowed?: string[] } | undefined,
): readonly ToolDeclaration[] {
  if (!config) return tools;
  if (config.none) return [];
  if (!config.allowed) return tools;
  const allowed = new Set(config.allowed);
  return tools.filter((tool) => allowed.has(tool.name));
}

/** A hook's `continue: false` (or a block that ends the turn): said to the user, handed to the loop. */
function stopOf(
  hooks: SessionHooks,
  stop: { source: string; reason: string } | undefined,
  what = "stopped the agent",
) {
  if (!stop) return {};
  const text = `${stop.source} ${what}: ${stop.reason}`;
  hooks.log(text);
  return { stop: text };
}

function facts(agent: LoopAgent, request: ModelRequestView): ModelRequestFacts {
  return {
    model: agent.model,
    system: request.system,
    messages: request.messages.flatMap(textOf),
    tools: request.tools.map((tool) => {
      const spec = agent.toolSpec?.(tool.name);
      return { name: tool.name, aliases: spec?.aliases ?? [], ...(spec?.mcp ? { mcp: spec.mcp } : {}) };
    }),
  };
}

function textOf(message: ConversationMessage): ModelRequestFacts["messages"] {
  switch (message.role) {
    case "user":
    case "summary":
      return [{ role: "user", content: message.text }];
    case "assistant":
      return message.text ? [{ role: "model", content: message.text }] : [];
    case "tool":
      return [];
  }
}
