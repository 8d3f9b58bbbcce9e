import { buildSystemPrompt } from "../agent/context.js";
import { type Conversation, type ConversationMessage, createConversation } from "../agent/conversation.js";
import { loadProjectInstructions } from "../agent/instructions.js";
import type { AgentRunResult } from "../agent/loop.js";
import { runAgentLoop } from "../agent/loop.js";
import { hookContextMessage } from "../agent/loop-hooks.js";
import { loopHooksFor } from "../hooks/loop-bridge.js";
import type { ModelClient } from "../models/client.js";
import type { ToolErrorCode } from "../tools/contract.js";
import type { ToolPipeline } from "../tools/pipeline.js";
import type { ToolDeclaration } from "../tools/registry.js";
import { resolveToolAccess, SUBAGENT_TOOL_NAMES } from "./access.js";
import { startAgentHooks } from "./agent-hooks.js";
import { type ForkTurns, forkDirective, forkHistory, forkToolGate } from "./fork.js";
import type { ChildSession, SubagentHost } from "./host.js";
import type { AgentRecord, AgentState } from "./registry.js";
import { startRemoteAgent } from "./remote.js";
import { subagentSection } from "./role-section.js";
import { formatMinutes, timeLimit, withModelSettings } from "./run-limits.js";
import { openTranscript, type TranscriptMeta } from "./transcript.js";
import { FORK_TYPE, type SubagentDefinition } from "./types.js";
import { finishWorkspace, openAgentWorkspace, type WorktreeReport } from "./workspace.js";

export interface SpawnRequest {
  /** The agent making the call ("main" or a subagent id). */
  callerId: string;
  description: string;
  prompt: string;
  /** A subagent type, or `fork`. */
  type: string;
  background: boolean;
  forkTurns?: ForkTurns;
  /** Validated fork_tools / fork profile patterns. */
  forkTools?: string[];
  promptHint?: string;
  isolation?: "worktree";
  /** A validated, registered worktree (real path). */
  workingDir?: string;
  /** `provider:model-id` instead of the type's or the parent's model. */
  model?: string;
  /** invoke_subagent's Role: added to the subagent's system prompt. */
  role?: string;
}

export interface RunOutcome {
  id: string;
  state: AgentState;
  text: string;
  turns: number;
  error?: string;
  worktree?: WorktreeReport;
}

export type SpawnResult =
  | { ok: true; record: AgentRecord; finished: Promise<RunOutcome> }
  | { ok: false; code: ToolErrorCode; message: string };

interface AgentPlan {
  record: AgentRecord;
  meta: TranscriptMeta;
  conversation: Conversation;
  input: ConversationMessage[];
  system: string;
  tools?: ToolDeclaration[];
  allowTool: (name: string) => boolean;
  pipeline: ToolPipeline;
  model: ModelClient;
  workspaceRoot: string;
  child?: ChildSession;
  maxTurns: number;
  /** The definition's own time limit for one run (Gemini CLI's `timeout_mins`). */
  timeoutMs?: number;
}

const fail = (code: ToolErrorCode, message: string): SpawnResult => ({ ok: false, code, message });

/**
 * Starts an agent (or revives one, given its saved conversation): plans its workspace, tools, prompt
 * and history, registers it, and runs it. Foreground callers await `finished`; background callers get
 * a notification in the parent's inbox (background.ts).
 */
export async function startAgent(
  host: SubagentHost,
  request: SpawnRequest,
  revive?: { id: string; conversation: Conversation; message: string },
): Promise<SpawnResult> {
  const pipeline = host.pipeline;
  if (!pipeline) return fail("unavailable", "subagents are not attached to a tool pipeline in this session");
  const parentDepth = request.callerId === "main" ? 0 : (host.agents.get(request.callerId)?.depth ?? 0);
  const depth = parentDepth + 1;
  if (depth > host.limits.maxDepth) {
    return fail(
      "denied",
      `subagents may nest ${host.limits.maxDepth} deep; ${request.callerId} is at the limit`,
    );
  }
  const definition = request.type === FORK_TYPE ? undefined : host.catalog.get(request.type);
  if (request.type !== FORK_TYPE && !definition) {
    const known = host.catalog.list().map((d) => d.name);
    return fail(
      "not_found",
      `unknown subagent_type "${request.type}"; known types: ${[FORK_TYPE, ...known].join(", ")}`,
    );
  }
  // the model and the plan are made where the agent runs; still before any await, so the agents of one
  // call reach the remote runner in the order they were asked for
  if (host.deps.remote && !revive) return startRemoteAgent(host, host.deps.remote, request);
  const model = host.modelFor(request.model ?? host.definitionModel(definition));
  if (typeof model === "string") return fail("unavailable", model);

  const id = revive?.id ?? host.agents.nextId();
  const opened = await openAgentWorkspace(host, id, request).catch((cause: Error) => cause);
  if (opened instanceof Error) return fail("execution_failed", opened.message);

  const record = registerRecord(host, id, request, depth, opened);
  // before its first call: the agent file's permissionMode, under whatever narrows its parent
  host.deps.permissions?.narrowAgent(id, request.callerId, definition?.approvalMode);

  // the MCP servers its tool list names start now, so their tools are in the registry it is planned from
  await (opened.child?.mcp ?? host.mcp)?.prepare(mcpPatternsOf(definition, request));
  const planned = planAgent(host, record, request, definition, model, opened, revive);
  // its own hooks (its agent file's), from here to its end
  const hooks = typeof planned === "string" ? { error: planned } : startAgentHooks(host, definition, id);
  if (typeof planned === "string" || "error" in hooks) {
    const why = "error" in hooks ? hooks.error : "the agent could not be planned";
    record.state = "failed";
    record.error = why;
    await finishWorkspace(host, record, opened);
    return fail("invalid_arguments", why);
  }
  const plan = withinCallersTools(planned, host.agents.get(request.callerId)?.allowTool, !!definition);
  record.allowTool = plan.allowTool;
  host.conversations.set(id, { conversation: plan.conversation, system: plan.system });
  const finished = runPlannedAgent(host, plan, opened).finally(hooks.end);
  record.settled = finished.then(() => undefined);
  return { ok: true, record, finished };
}

/**
 * A subagent never gets a tool its caller lacks: a read-only reviewer that starts a general-purpose
 * agent (or a fork) gives it the reviewer's tools at most. A fork keeps the parent's declarations (the
 * shared prompt cache); a typed agent is shown only what it may call.
 */
function withinCallersTools(
  plan: AgentPlan,
  callerAllows: ((name: string) => boolean) | undefined,
  typed: boolean,
): AgentPlan {
  if (!callerAllows) return plan;
  const own = plan.allowTool;
  const allowTool = (name: string) => own(name) && callerAllows(name);
  const tools = typed && plan.tools ? plan.tools.filter((tool) => allowTool(tool.name)) : plan.tools;
  return { ...plan, allowTool, ...(tools ? { tools } : {}) };
}

function registerRecord(
  host: SubagentHost,
  id: string,
  request: SpawnRequest,
  depth: number,
  opened: Awaited<ReturnType<typeof openAgentWorkspace>>,
): AgentRecord {
  const previous = host.agents.get(id);
  const record: AgentRecord = {
    id,
    type: request.type,
    description: request.description,
    parentId: request.callerId,
    depth,
    background: request.background,
    state: "running",
    startedAt: previous?.startedAt ?? Date.now(),
    controller: new AbortController(),
    settled: Promise.resolve(),
    ...(opened.worktree ? { worktree: opened.worktree } : {}),
    ...(request.workingDir ? { workingDir: request.workingDir } : {}),
    ...(previous?.transcriptFile ? { transcriptFile: previous.transcriptFile } : {}),
  };
  host.agents.add(record);
  return record;
}

function planAgent(
  host: SubagentHost,
  record: AgentRecord,
  request: SpawnRequest,
  definition: SubagentDefinition | undefined,
  model: ModelClient,
  opened: Awaited<ReturnType<typeof openAgentWorkspace>>,
  revive: { conversation: Conversation; message: string } | undefined,
): AgentPlan | string {
  const pipeline = opened.child?.pipeline ?? (host.pipeline as ToolPipeline);
  const registry = pipeline.registry;
  // agents in another folder get no agent tools: their nested agents would escape this host's limits
  const mayNest = record.depth < host.limits.maxDepth && opened.child === undefined;
  const meta: TranscriptMeta = {
    id: record.id,
    type: request.type,
    description: request.description,
    parentId: request.callerId,
    depth: record.depth,
    background: request.background,
    ...(request.forkTools ? { forkTools: request.forkTools } : {}),
    ...(request.model ? { model: request.model } : {}),
    ...(request.role ? { role: request.role } : {}),
    ...(request.workingDir ? { workingDir: request.workingDir } : {}),
    ...(request.isolation ? { isolation: request.isolation } : {}),
  };
  const base = {
    record,
    meta,
    pipeline,
    model: withDefinitionSettings(model, definition),
    workspaceRoot: opened.root,
    child: opened.child,
    maxTurns: host.definitionMaxTurns(definition),
    ...(definition?.timeoutMs ? { timeoutMs: definition.timeoutMs } : {}),
  };
  const notInteractive = (name: string) => registry.lookup(name)?.spec.safety !== "interactive";
  const nestingAllowed = (name: string) => mayNest || !SUBAGENT_TOOL_NAMES.has(name);

  if (definition === undefined) {
    const parent = host.conversations.get(request.callerId) ?? mainConversation(host);
    if (!parent) return "fork: the parent's conversation is not available to fork";
    const gate = request.forkTools ? forkToolGate(request.forkTools) : () => true;
    const conversation =
      revive?.conversation ??
      createConversation(forkHistory(parent.conversation.messages, request.forkTurns ?? "all"));
    return {
      ...base,
      conversation,
      input: [{ role: "user", text: revive?.message ?? forkDirective(request.prompt, request.promptHint) }],
      // the parent's declarations, unchanged, so the provider's prompt cache is shared (seed 003);
      // tools kept for subagents that fork_tools names come after them
      system: parent.system,
      tools: [
        ...registry.declarations(),
        ...(request.forkTools
          ? registry.declarations((tool) => tool.spec.audience === "subagents" && gate(tool.spec.name))
          : []),
      ],
      allowTool: (name) => notInteractive(name) && nestingAllowed(name) && gate(name),
    };
  }
  const access = resolveToolAccess(definition.tools, registry, {
    allowSubagentTools: mayNest,
    ...(definition.disallowedTools ? { disallowed: definition.disallowedTools } : {}),
  });
  if (access.unknown.length > 0) return unknownToolsMessage(definition, access.unknown);
  const tools = registry.declarations((tool) => access.allows(tool.spec.name));
  // the skills list, where the agent can read a skill (view_file): in another folder, that folder's own
  const readsSkills = tools.some((tool) => tool.name === "view_file");
  const skills = (opened.child ? opened.child.skills : host.deps.skills)?.skills;
  const system = buildSystemPrompt({
    workspaceRoot: opened.root,
    declarations: tools,
    instructions: loadProjectInstructions(opened.root, {
      ...(host.deps.home ? { home: host.deps.home } : {}),
      isSecret: (rel) => host.deps.workspace.secrets.isSecret(rel),
    }),
    ...(readsSkills && skills ? { skills } : {}),
    extra: subagentSection(definition, request.role, access.unavailable, skills ?? []),
  });
  return {
    ...base,
    conversation: revive?.conversation ?? createConversation(),
    input: [{ role: "user", text: revive?.message ?? request.prompt }],
    system,
    tools,
    allowTool: access.allows,
  };
}

/** The MCP tool names and patterns an agent asks for: fork_tools, a type's `tools:`, or enable_mcp_tools. */
function mcpPatternsOf(definition: SubagentDefinition | undefined, request: SpawnRequest): string[] {
  const isMcp = (name: string) => name.startsWith("mcp__");
  if (!definition) return (request.forkTools ?? []).filter(isMcp);
  const tools = definition.tools;
  if (tools.kind === "list") return tools.names.filter(isMcp);
  return tools.kind === "capabilities" && tools.mcp ? ["mcp__*"] : [];
}

function mainConversation(host: SubagentHost): { conversation: Conversation; system: string } | undefined {
  const binding = host.binding;
  if (!binding?.mainConversation) return undefined;
  return { conversation: binding.mainConversation, system: binding.mainSystem ?? "" };
}

/** An agent file naming a tool no harness has: the subagent would silently lack it, so it does not start. */
export function unknownToolsMessage(definition: SubagentDefinition, unknown: readonly string[]): string {
  const names = unknown.map((name) => `"${name}"`).join(", ");
  return `agent type "${definition.name}" (${definition.source}) names unknown tool${unknown.length > 1 ? "s" : ""} ${names} in tools or disallowedTools; use Gantry's tool names (gantry tools) or Claude Code's, Gemini CLI's or Qwen Code's`;
}

/** Runs the loop until it stops; a message that raced the end of the run starts one more round. */
async function runPlannedAgent(
  host: SubagentHost,
  plan: AgentPlan,
  opened: Awaited<ReturnType<typeof openAgentWorkspace>>,
): Promise<RunOutcome> {
  const { record } = plan;
  const transcript = openTranscript(host.transcriptDir(), plan.meta, plan.workspaceRoot);
  record.transcriptFile = transcript.file;
  let input = await withSubagentStartContext(host, plan);
  let result: AgentRunResult;
  const timeout = plan.timeoutMs ? timeLimit(record, plan.timeoutMs) : undefined;
  const hooks = host.deps.hooks
    ? loopHooksFor(host.deps.hooks, {
        agentId: record.id,
        agentType: record.type,
        transcriptPath: transcript.file,
        model: plan.model.id,
        prompt: () => plan.input.find((message) => message.role === "user")?.text ?? "",
        toolSpec: (name) => plan.pipeline.registry.lookup(name)?.spec,
      })
    : undefined;
  try {
    for (;;) {
      result = await runAgentLoop(plan.conversation, plan.model, plan.pipeline, {
        ...(hooks ? { hooks } : {}),
        system: plan.system,
        ...(plan.tools ? { tools: plan.tools } : {}),
        input,
        signal: record.controller.signal,
        agentId: record.id,
        maxTurns: plan.maxTurns,
        allowTool: plan.allowTool,
        inbox: host.deps.inbox,
        onEvent: (event) => {
          transcript.record(event);
          host.binding?.onEvent?.(event);
        },
      });
      const late = host.deps.inbox.drain(record.id);
      if (late.length === 0 || result.reason !== "completed" || record.controller.signal.aborted) break;
      input = late.map((m) => ({ role: "user" as const, text: m.text, source: m.source }));
    }
  } catch (cause) {
    result = {
      reason: "error",
      turns: 0,
      text: "",
      usage: { inputTokens: 0, outputTokens: 0 },
      error: { kind: "unknown", message: (cause as Error).message },
    };
  } finally {
    if (timeout) clearTimeout(timeout.timer);
    transcript.close();
  }
  if (record.state !== "killed") record.state = STATE_FOR_REASON[result.reason];
  record.result = result.text;
  if (result.error) record.error = result.error.message;
  if (timeout?.expired) {
    record.state = "failed";
    record.error = `it ran out of its ${formatMinutes(timeout.ms)} (timeout_mins in its definition)`;
  }
  if (result.reason === "max_tokens")
    record.error = "its answer was cut by the model's output limit (finish_reason length)";
  record.endedAt = Date.now();
  const worktree = await finishWorkspace(host, record, opened);
  return {
    id: record.id,
    state: record.state,
    text: result.text,
    turns: result.turns,
    ...(record.error ? { error: record.error } : {}),
    ...(worktree ? { worktree } : {}),
  };
}

/** SubagentStart hooks hear of the agent (with its id and type); their context joins its first message. */
async function withSubagentStartContext(host: SubagentHost, plan: AgentPlan): Promise<ConversationMessage[]> {
  const hooks = host.deps.hooks;
  if (!hooks?.has("subagent_start")) return plan.input;
  const event = { kind: "subagent_start" as const, agentId: plan.record.id, agentType: plan.record.type };
  const outcome = await hooks.fire(event, plan.record.controller.signal);
  return outcome.context.length > 0 ? [...plan.input, hookContextMessage(outcome.context)] : plan.input;
}

const STATE_FOR_REASON: Record<AgentRunResult["reason"], AgentState> = {
  completed: "completed",
  stopped: "completed",
  blocked: "failed",
  max_turns: "paused",
  // a cut answer can be continued: send_message resumes the agent
  max_tokens: "paused",
  aborted: "paused",
  error: "failed",
};

/** An agent file's temperature and top-p on the agent's model calls. */
function withDefinitionSettings(model: ModelClient, definition: SubagentDefinition | undefined): ModelClient {
  const settings = {
    ...(definition?.temperature !== undefined ? { temperature: definition.temperature } : {}),
    ...(definition?.topP !== undefined ? { topP: definition.topP } : {}),
  };
  return Object.keys(settings).length > 0 ? withModelSettings(model, settings) : model;
}
