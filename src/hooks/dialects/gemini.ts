import type { Verdict } from "../../tools/gates.js";
import type { HookEvent, HookSessionFacts, ModelToolFacts, ToolCallFacts } from "../events.js";
import { llmRequestEdit } from "../llm-request.js";
import {
  commonFields,
  type HandlerVerdict,
  type HookDialect,
  isObject,
  llmRequest,
  llmResponse,
  matchNamesIn,
  rewriteFrom,
  stringOrUndefined,
  textOfLlmResponse,
  toolFields,
  unrecognisedOutput,
  withContext,
} from "./dialect.js";
import { geminiFailedExit } from "./gemini-exit.js";
import { argsFromDialect } from "./tool-map.js";
import { toolSelectionOf } from "./tool-selection.js";
import { GEMINI_TOOLS } from "./tool-tables.js";

/**
 * BeforeTool's `decision` in Gantry's terms. Gemini CLI's scheduler runs its policy check after the hook
 * whatever it said, so `allow`/`approve` are no objection (no verdict: the approval mode still judges),
 * and `ask` forces the confirmation in every approval mode, as force_ask does.
 */
const DECISIONS: Record<string, Verdict | undefined> = {
  allow: undefined,
  approve: undefined,
  deny: "deny",
  block: "deny",
  ask: "force_ask",
};
/** Events whose hooks Gemini CLI only lets advise: `decision` and `continue` are ignored there. */
const ADVISORY = new Set<HookEvent["kind"]>([
  "session_start",
  "session_end",
  "notification",
  "pre_compact",
  "post_compact",
  "before_tool_selection",
]);

/** Gemini CLI's hook contract, so a script written for Gemini CLI runs unchanged. */
export const geminiDialect: HookDialect = {
  id: "gemini",
  exitTwoBlocks: true,
  matchNames: (call) =>
    call.mcp
      ? { gantryNames: [call.name, ...call.aliases], dialectName: geminiMcpName(call.mcp) }
      : matchNamesIn(GEMINI_TOOLS, call),
  // Gemini CLI starts sessions on startup, resume and /clear, never after a compression, and notifies
  // of permission questions only
  accepts: (_rule, event) =>
    !(event.kind === "session_start" && event.source === "compact") &&
    !(event.kind === "notification" && event.notificationType !== "permission_prompt"),
  encode(event, session, rule) {
    const payload: Record<string, unknown> = {
      session_id: session.sessionId,
      transcript_path: session.transcriptFor("gemini", session.transcriptPath),
      cwd: session.workspaceRoot,
      hook_event_name: rule.key,
      timestamp: new Date().toISOString(),
      ...eventFields(event, session),
    };
    const agentId = "call" in event ? event.call.agentId : event.agentId;
    if (agentId !== "main") payload.agent_id = agentId;
    return payload;
  },
  decode(output, event) {
    const specific = isObject(output.hookSpecificOutput) ? output.hookSpecificOutput : {};
    const key = String(output.decision);
    const decision = Object.hasOwn(DECISIONS, key) ? DECISIONS[key] : undefined;
    const reason = stringOrUndefined(output.reason);
    const common = commonFields(output, reason);
    if (ADVISORY.has(event.kind)) {
      const advice: HandlerVerdict = {
        ...(common.systemMessage ? { systemMessage: common.systemMessage } : {}),
      };
      if (event.kind === "before_tool_selection")
        return {
          ...advice,
          ...toolSelectionOf(specific.toolConfig, event.request.tools, (tool) => [geminiToolName(tool)]),
        };
      return withContext(
        advice,
        event.kind === "session_start" ? [stringOrUndefined(specific.additionalContext)] : [],
      );
    }
    return decodeFlow(event, common, specific, decision, reason);
  },
  blockedBy(stderr, event) {
    const reason = stderr.trim() || "blocked by a hook (exit code 2)";
    if (event.kind === "pre_tool_execution") return { verdict: "deny", reason };
    if (ADVISORY.has(event.kind) || event.kind === "permission_request") return {};
    // AfterTool: the result is hidden; BeforeAgent, AfterAgent (a retry), Before/AfterModel: the turn
    return { block: reason };
  },
  failedExit: (exit, event, session) => geminiFailedExit(geminiDialect, exit, event, session),
  plainText: unrecognisedOutput,
};

function decodeFlow(
  event: HookEvent,
  common: HandlerVerdict,
  specific: Record<string, unknown>,
  decision: Verdict | undefined,
  reason: string | undefined,
): HandlerVerdict {
  const context = [stringOrUndefined(specific.additionalContext)];
  const blocked = decision === "deny" ? { block: reason ?? "blocked by a hook" } : {};
  switch (event.kind) {
    case "pre_tool_execution": {
      const verdict: HandlerVerdict = { ...common, ...(decision ? { verdict: decision, reason } : {}) };
      if (common.stop) Object.assign(verdict, { verdict: "deny", reason: common.stop });
      if (isObject(specific.tool_input) && verdict.verdict !== "deny")
        Object.assign(verdict, rewriteFrom(GEMINI_TOOLS, event.call, specific.tool_input));
      return withContext(verdict, context);
    }
    case "stop": {
      const verdict = withContext({ ...common, ...blocked }, context);
      return specific.clearContext === true ? { ...verdict, clearContext: true } : verdict;
    }
    case "post_tool_execution": {
      const verdict = withContext({ ...common, ...blocked }, context);
      const tail =
        blocked.block === undefined && !common.stop ? tailCallOf(specific.tailToolCallRequest) : undefined;
      return tail ? { ...verdict, tail } : verdict;
    }
    case "user_prompt_submit":
    case "subagent_stop":
      return withContext({ ...common, ...blocked }, context);
    case "before_model": {
      const response = textOfLlmResponse(specific.llm_response);
      const request = llmRequestEdit(specific.llm_request);
      return {
        ...common,
        ...blocked,
        ...(response !== undefined ? { response } : {}),
        ...(request ? { request } : {}),
      };
    }
    case "after_model": {
      const response = textOfLlmResponse(specific.llm_response);
      return { ...common, ...blocked, ...(response !== undefined ? { response } : {}) };
    }
    default:
      return common;
  }
}

/**
 * AfterTool's `tailToolCallRequest: { name, args }` in Gantry's terms: Gemini's tool name and argument
 * shape become Gantry's (a name Gemini does not have is taken as Gantry's own).
 */
function tailCallOf(value: unknown): HandlerVerdict["tail"] {
  if (!isObject(value) || typeof value.name !== "string" || value.name === "") return undefined;
  const input = isObject(value.args) ? value.args : {};
  const match = Object.entries(GEMINI_TOOLS).find(
    ([, tool]) => tool.name === value.name || tool.aliases?.includes(value.name as string),
  );
  if (!match) return { name: value.name, args: input };
  const [gantryName, tool] = match;
  const args = argsFromDialect(tool, input, {});
  // a shape that does not translate goes on as given: the pipeline's validation names what is wrong
  return { name: gantryName, args: args.ok ? args.args : input };
}

/** `tool_name` and `tool_input` as Gemini CLI sends them; an MCP tool's also carry `mcp_context`. */
function geminiToolFields(call: ToolCallFacts, session: HookSessionFacts): Record<string, unknown> {
  const { tool_use_id: _id, ...fields } = toolFields(GEMINI_TOOLS, call, session);
  if (!call.mcp) return fields;
  const { server, tool, connection } = call.mcp;
  // Gemini CLI's extractMcpContext: non-secret connection details only (no env, no headers)
  const context = { server_name: server, tool_name: tool, ...connection };
  return { ...fields, tool_name: geminiMcpName(call.mcp), mcp_context: context };
}

/**
 * An MCP tool's name in Gemini CLI: `mcp_<server>_<tool>`, characters its API refuses as `_`, and a name
 * past 63 characters cut to its first and last 30 around `...` (its mcp-tool.ts generateValidName).
 */
export function geminiMcpName(origin: { server: string; tool: string }): string {
  const joined = `${origin.server}_${origin.tool}`;
  let name = (joined.startsWith("mcp_") ? joined : `mcp_${joined}`).replace(/[^a-zA-Z0-9_\-.:]/g, "_");
  if (name.length > 63) name = `${name.slice(0, 30)}...${name.slice(-30)}`;
  return name;
}

/** A declared tool's name in Gemini CLI: its own built-in's, `mcp_<server>_<tool>`, or else Gantry's. */
function geminiToolName(tool: ModelToolFacts): string {
  if (tool.mcp) return geminiMcpName(tool.mcp);
  return GEMINI_TOOLS[tool.name]?.name ?? tool.name;
}

function eventFields(event: HookEvent, session: HookSessionFacts): Record<string, unknown> {
  switch (event.kind) {
    case "pre_tool_execution":
    case "permission_request":
      return geminiToolFields(event.call, session);
    case "post_tool_execution": {
      const fields = geminiToolFields(event.call, session);
      const { result } = event;
      const response = {
        llmContent: result.text,
        returnDisplay: result.text,
        ...(result.error ? { error: { message: result.text, type: result.errorCode } } : {}),
      };
      return { ...fields, tool_response: response };
    }
    case "user_prompt_submit":
      return { prompt: event.prompt };
    case "stop":
      return {
        prompt: event.prompt,
        prompt_response: event.lastAssistantMessage,
        stop_hook_active: event.stopHookActive,
      };
    case "subagent_stop":
      return { prompt_response: event.lastAssistantMessage, stop_hook_active: event.stopHookActive };
    case "subagent_start":
      return { agent_type: event.agentType };
    case "session_start":
      return { source: event.source };
    case "session_end":
      return { reason: event.reason };
    case "pre_compact":
    case "post_compact":
      return { trigger: event.trigger };
    case "notification":
      return {
        notification_type:
          event.notificationType === "permission_prompt" ? "ToolPermission" : event.notificationType,
        message: event.message,
        details: event.toolName ? { tool_name: event.toolName } : {},
      };
    case "before_model":
    case "before_tool_selection":
      return { llm_request: llmRequest(event, { nameOf: geminiToolName, system: false }) };
    case "after_model":
      return {
        llm_request: llmRequest(event, { nameOf: geminiToolName, system: false }),
        llm_response: llmResponse(event.responseText),
      };
  }
}
