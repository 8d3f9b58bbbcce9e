import type { Verdict } from "../../tools/gates.js";
import type { HookEvent, HookSessionFacts, ModelToolFacts, ToolCallFacts } from "../events.js";
import type { LlmRequestEdit } from "../llm-request.js";
import type { MatchNames } from "../matcher.js";
import type { DialectId, HookRule } from "../rules.js";
import type { CommandHookExit } from "../run-command.js";
import { dialectToolFor } from "./shell-views.js";
import { argsFromDialect, argsToDialect, type DialectTool } from "./tool-map.js";

/** What one handler said, in Gantry's terms; failures (timeouts, crashes, odd output) carry `failure`. */
export interface HandlerVerdict {
  /** A tool call's decision (pre_tool_execution). */
  verdict?: Verdict;
  reason?: string;
  /** The complete new arguments, in Gantry's names (a rewrite merged over the call's). */
  args?: Record<string, unknown>;
  additionalContext?: string[];
  /**
   * The hook blocks what the event is about: the prompt (user_prompt_submit), the stop (stop: the agent
   * goes on with this reason), the compaction, the model turn, or, after a call, the result the model sees.
   */
  block?: string;
  /** `continue: false`: the agent's run ends after this (its `stopReason`, for the user). */
  stop?: string;
  /** Gemini's AfterAgent `clearContext`: with a block or a stop, the conversation so far is dropped. */
  clearContext?: boolean;
  /** Shown to the user, never to the model. */
  systemMessage?: string;
  /** permission_request: the hook answers the question for the user. */
  permission?: PermissionVerdict;
  /** before_model: Gemini's `llm_request`, what the call sends instead. */
  request?: LlmRequestEdit;
  /** before_model: a reply that replaces the model call; after_model: the reply's new text. */
  response?: string;
  /** after a call: Claude's `updatedToolOutput` / `updatedMCPToolOutput`, the text the model reads instead of the result. */
  output?: string;
  /** Gemini's AfterTool `tailToolCallRequest`: this call runs next, through the pipeline, and its result replaces the first's. */
  tail?: { name: string; args: Record<string, unknown> };
  /** before_tool_selection: which tools the model may call this turn (`allowed`: Gantry's names). */
  toolConfig?: { mode?: string; allowed?: string[] };
  /** What of the answer names nothing or is not applied, and why (logged, naming the hook). */
  notices?: string[];
  failure?: string;
  /** A failure that silently disables a guard (exit 127): reported every time, loudly. */
  loud?: boolean;
}

/** A hook's answer to a permission question. */
export interface PermissionVerdict {
  behavior: "allow" | "deny";
  message?: string;
  interrupt?: boolean;
  /** Allow with changed input (Claude's `updatedInput`, merged, Gantry's names): judged by the rules again. */
  args?: Record<string, unknown>;
  /** Allow rules added for the session (Claude's `updatedPermissions`), in Gantry's rule syntax. */
  sessionRules?: string[];
  /** What of the answer is not applied, and why (logged). */
  ignored?: string[];
}

/**
 * One harness's hook contract (STYLE rule 9: dialects only translate). Each turns Gantry's event into
 * the JSON its scripts expect, and the JSON (or exit code) they give back into a verdict.
 */
export interface HookDialect {
  id: DialectId;
  /** Exit code 2 means "blocked", with stderr as the reason (Claude Code, Qwen Code, Gemini CLI). */
  exitTwoBlocks: boolean;
  matchNames(call: ToolCallFacts): MatchNames;
  /** Whether a rule of this dialect runs for the event at all (default: yes). */
  accepts?(rule: HookRule, event: HookEvent): boolean;
  /** The JSON written to a command's stdin or POSTed to a URL; `rule.key` is the event's name in the file. */
  encode(event: HookEvent, session: HookSessionFacts, rule: HookRule): Record<string, unknown>;
  /** Reads the JSON a handler printed; `event`'s tool arguments are the arguments as rewritten so far. */
  decode(output: Record<string, unknown>, event: HookEvent, session: HookSessionFacts): HandlerVerdict;
  /** What exit code 2's stderr means for this event. */
  blockedBy(stderr: string, event: HookEvent): HandlerVerdict;
  /**
   * A command's non-zero exit read by the harness's own rule (Gemini CLI reads the output whatever the
   * code); undefined: the shared reading (exit 2 blocks where `exitTwoBlocks`, other codes are failures).
   */
  failedExit?(exit: CommandHookExit, event: HookEvent, session: HookSessionFacts): HandlerVerdict | undefined;
  /** Stdout that is not JSON, from a hook that exited 0. */
  plainText(text: string, event: HookEvent): HandlerVerdict;
}

export function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function withContext(verdict: HandlerVerdict, context: (string | undefined)[]): HandlerVerdict {
  const texts = context.filter((text): text is string => Boolean(text));
  return texts.length > 0 ? { ...verdict, additionalContext: texts } : verdict;
}

/**
 * `continue`/`stopReason` and `systemMessage`: the fields every harness shares. (`suppressOutput` keeps a
 * hook's stdout out of a transcript view; Gantry shows none of it, so there is nothing to hide.)
 */
export function commonFields(output: Record<string, unknown>, fallbackReason?: string): HandlerVerdict {
  const verdict: HandlerVerdict = {};
  if (output.continue === false)
    verdict.stop = stringOrUndefined(output.stopReason) ?? fallbackReason ?? "a hook asked to stop";
  const message = stringOrUndefined(output.systemMessage);
  if (message) verdict.systemMessage = message;
  return verdict;
}

/** The dialect's name for a tool first, then the other names that harness gives it. */
export function matchNamesIn(tools: Record<string, DialectTool>, call: ToolCallFacts): MatchNames {
  const tool = dialectToolFor(tools, call);
  return {
    gantryNames: [call.name, ...call.aliases],
    ...(tool ? { dialectName: tool.name, dialectAliases: tool.aliases ?? [] } : {}),
  };
}

/** `tool_name`, `tool_input` (the dialect's shape, paths absolute) and `tool_use_id` of a call. */
export function toolFields(
  tools: Record<string, DialectTool>,
  call: ToolCallFacts,
  session: HookSessionFacts,
): Record<string, unknown> {
  const tool = dialectToolFor(tools, call);
  return {
    tool_name: tool?.name ?? call.name,
    tool_input: argsToDialect(tool, call.args, session.workspaceRoot),
    tool_use_id: call.callId,
  };
}

/** A hook's `updatedInput` / `tool_input` merged over the call's arguments, or why it cannot be. */
export function rewriteFrom(
  tools: Record<string, DialectTool>,
  call: ToolCallFacts,
  input: Record<string, unknown>,
): Pick<HandlerVerdict, "args" | "verdict" | "reason"> {
  const merged = argsFromDialect(dialectToolFor(tools, call), input, call.args);
  if (merged.ok) return { args: merged.args };
  return { verdict: "deny", reason: `the hook's rewrite cannot be applied: ${merged.message}` };
}

/**
 * Gemini CLI's stable `llm_request`; `toolConfig.allowedFunctionNames` lists the tools offered this turn
 * by the dialect's names (`nameOf`; Gantry's by default). Gemini CLI itself sends no toolConfig there, and
 * only the conversation's texts as `messages` (`system: false`); native hooks also see the system prompt
 * as a leading `system` message.
 */
export function llmRequest(
  event: Extract<HookEvent, { request: unknown }>,
  {
    nameOf = (tool) => tool.name,
    system = true,
  }: { nameOf?: (tool: ModelToolFacts) => string; system?: boolean } = {},
): Record<string, unknown> {
  const { request } = event;
  return {
    model: request.model,
    messages: system ? [{ role: "system", content: request.system }, ...request.messages] : request.messages,
    config: {},
    toolConfig: { mode: "AUTO", allowedFunctionNames: request.tools.map(nameOf) },
  };
}

/**
 * A stable `llm_response` of one text reply, with its `text` beside the candidates as Gemini CLI's
 * hookTranslator gives it; `textOfLlmResponse` reads one back (from the candidates, as Gemini does).
 */
export function llmResponse(text: string): Record<string, unknown> {
  return {
    text,
    candidates: [{ content: { role: "model", parts: [text] }, finishReason: "STOP" }],
    usageMetadata: {},
  };
}

export function textOfLlmResponse(value: unknown): string | undefined {
  if (!isObject(value) || !Array.isArray(value.candidates)) return undefined;
  const [first] = value.candidates;
  const parts = isObject(first) && isObject(first.content) ? first.content.parts : undefined;
  if (!Array.isArray(parts)) return undefined;
  return parts
    .map((part) => (typeof part === "string" ? part : isObject(part) ? String(part.text ?? "") : ""))
    .join("");
}

/**
 * The fields of a lifecycle event as Claude Code names them (native events use the same names): one
 * shape for every harness that follows Claude Code's contract.
 */
export function lifecycleFields(event: Exclude<HookEvent, { call: unknown }>): Record<string, unknown> {
  switch (event.kind) {
    case "session_start":
      return { source: event.source, model: event.model };
    case "session_end":
      return { reason: event.reason };
    case "user_prompt_submit":
      return { prompt: event.prompt };
    case "stop":
      return { stop_hook_active: event.stopHookActive, last_assistant_message: event.lastAssistantMessage };
    case "subagent_start":
      return { agent_id: event.agentId, agent_type: event.agentType };
    case "subagent_stop":
      return {
        stop_hook_active: event.stopHookActive,
        agent_id: event.agentId,
        agent_type: event.agentType,
        agent_transcript_path: event.transcriptPath,
        last_assistant_message: event.lastAssistantMessage,
      };
    case "pre_compact":
      return { trigger: event.trigger, custom_instructions: "" };
    case "post_compact":
      return { trigger: event.trigger, compact_summary: event.summary };
    case "notification":
      return { message: event.message, notification_type: event.notificationType, title: "Gantry" };
    case "before_model":
    case "before_tool_selection":
      return { llm_request: llmRequest(event) };
    case "after_model":
      return {
        llm_request: llmRequest(event),
        llm_response: llmResponse(event.responseText),
        prompt_response: event.responseText,
      };
  }
}

/** Stdout that is not a decision, where the harness wants JSON only (Gemini CLI, seed 002): a failure. */
export function unrecognisedOutput(text: string): HandlerVerdict {
  return {
    failure: `unrecognised output: ${JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)}`,
  };
}
