import type { ToolResult } from "../../tools/contract.js";
import { commandOutput } from "../../tools/exec/command-output.js";
import type { Verdict } from "../../tools/gates.js";
import type { HookEvent, HookSessionFacts, ToolCallFacts } from "../events.js";
import type { HookRule } from "../rules.js";
import {
  commonFields,
  type HandlerVerdict,
  type HookDialect,
  isObject,
  lifecycleFields,
  matchNamesIn,
  rewriteFrom,
  stringOrUndefined,
  toolFields,
  withContext,
} from "./dialect.js";
import { permissionAnswer } from "./permission-answer.js";
import type { DialectTool } from "./tool-map.js";
import { CLAUDE_TOOLS, QWEN_TOOLS } from "./tool-tables.js";

/**
 * PreToolUse's `permissionDecision` in Gantry's terms. Claude Code's allow skips its permission prompt;
 * Qwen Code fires PreToolUse after its approval step, so there an allow is no objection (no verdict: the
 * approval mode still judges), and its ask bounces the call back to a confirmation in every approval mode
 * (denied where nobody can answer), as force_ask does.
 */
const PERMISSION: Record<"claude" | "qwen", Record<string, Verdict | undefined>> = {
  claude: { allow: "allow", deny: "deny", ask: "ask" },
  qwen: { allow: undefined, deny: "deny", ask: "force_ask" },
};
// the legacy top-level decision; Qwen Code also reads allow, deny and ask there
const LEGACY_DECISION: Record<"claude" | "qwen", Record<string, Verdict | undefined>> = {
  claude: { approve: "allow", block: "deny" },
  qwen: { approve: undefined, block: "deny", ...PERMISSION.qwen },
};
/** Gantry's approval modes in each harness's `permission_mode` words. */
const PERMISSION_MODES: Record<"claude" | "qwen", Record<string, string>> = {
  claude: { default: "default", "auto-edit": "acceptEdits", yolo: "bypassPermissions", plan: "plan" },
  qwen: { default: "default", "auto-edit": "auto_edit", yolo: "yolo", plan: "plan" },
};
/** Events whose plain stdout (exit 0) is added to the model's context, as Claude Code does. */
const STDOUT_IS_CONTEXT = new Set<HookEvent["kind"]>(["user_prompt_submit", "session_start"]);

/**
 * Claude Code's hook contract (and Qwen Code's, which follows it with its own tool names), so a script
 * written for either runs unchanged: stdin with session_id, transcript_path, cwd, permission_mode,
 * hook_event_name and the event's fields; stdout's hookSpecificOutput, decision/reason, continue/stopReason,
 * systemMessage and suppressOutput; exit 2 blocks with stderr.
 */
function claudeFamily(id: "claude" | "qwen", tools: Record<string, DialectTool>): HookDialect {
  return {
    id,
    exitTwoBlocks: true,
    matchNames: (call) => matchNamesIn(tools, call),
    accepts: (rule, event) => ruleAccepts(rule, event),
    encode(event, session, rule) {
      const payload: Record<string, unknown> = {
        session_id: session.sessionId,
        transcript_path: session.transcriptFor(id, session.transcriptPath),
        cwd: session.workspaceRoot,
        permission_mode: PERMISSION_MODES[id][session.approvalMode] ?? "default",
        hook_event_name: rule.key,
        ...(id === "qwen" ? { timestamp: new Date().toISOString() } : {}),
        ...eventFields(id, tools, event, session, rule),
      };
      const agentId = "call" in event ? event.call.agentId : event.agentId;
      if (agentId !== "main" && payload.agent_id === undefined) payload.agent_id = agentId;
      if (typeof payload.agent_transcript_path === "string")
        payload.agent_transcript_path = session.transcriptFor(id, payload.agent_transcript_path);
      return payload;
    },
    decode: (output, event) => decodeClaude(id, tools, output, event),
    blockedBy: (stderr, event) => exitTwo(stderr.trim(), event),
    plainText: (text, event) => (STDOUT_IS_CONTEXT.has(event.kind) ? { additionalContext: [text] } : {}),
  };
}

export const claudeDialect = claudeFamily("claude", CLAUDE_TOOLS);
export const qwenDialect = claudeFamily("qwen", QWEN_TOOLS);

/** PostToolUse runs after a success, PostToolUseFailure after a failure. */
function ruleAccepts(rule: HookRule, event: HookEvent): boolean {
  if (rule.only === undefined || event.kind !== "post_tool_execution") return true;
  return rule.only === (event.result.error ? "failure" : "success");
}

function eventFields(
  id: "claude" | "qwen",
  tools: Record<string, DialectTool>,
  event: HookEvent,
  session: HookSessionFacts,
  rule: HookRule,
): Record<string, unknown> {
  switch (event.kind) {
    case "pre_tool_execution":
    case "permission_request":
      return toolFields(tools, event.call, session);
    case "post_tool_execution": {
      const base = toolFields(tools, event.call, session);
      const { result } = event;
      if (id === "qwen") return { ...base, ...qwenResponse(result, rule) };
      const response: Record<string, unknown> = {
        success: !result.error,
        output: result.text,
        ...(result.error ? { error: result.text } : {}),
        metadata: result.metadata,
      };
      // Claude Code's Bash result carries stdout and stderr, its Write and Edit results the file's path
      if (event.call.name === "run_command") Object.assign(response, commandResponse(result));
      const written = (base.tool_input as Record<string, unknown>).file_path;
      if (typeof written === "string" && event.call.name !== "view_file") response.filePath = written;
      // PostToolUseFailure reads `error` and `is_interrupt`
      const failure =
        rule.only === "failure" ? { error: result.text, is_interrupt: result.errorCode === "aborted" } : {};
      return { ...base, tool_response: response, ...failure };
    }
    default:
      return lifecycleFields(event);
  }
}

function decodeClaude(
  id: "claude" | "qwen",
  tools: Record<string, DialectTool>,
  output: Record<string, unknown>,
  event: HookEvent,
): HandlerVerdict {
  const specific = isObject(output.hookSpecificOutput) ? output.hookSpecificOutput : {};
  const reason = stringOrUndefined(output.reason);
  const common = commonFields(output, reason);
  const context = [stringOrUndefined(specific.additionalContext)];
  switch (event.kind) {
    case "pre_tool_execution": {
      const verdict: HandlerVerdict = { ...common, ...preToolDecision(id, output, specific) };
      // continue: false stops the run; the call itself does not run either
      if (common.stop) Object.assign(verdict, { verdict: "deny", reason: common.stop });
      if (isObject(specific.updatedInput) && verdict.verdict !== "deny")
        Object.assign(verdict, rewriteFrom(tools, event.call, specific.updatedInput));
      return withContext(verdict, context);
    }
    case "post_tool_execution":
      // decision "block" feeds its reason to the model; nothing can be undone, but the output can be replaced
      return withContext({ ...common, ...(id === "claude" ? updatedOutput(specific, event.call) : {}) }, [
        ...context,
        output.decision === "block" ? reason : undefined,
      ]);
    case "permission_request":
      return { ...common, ...permissionAnswer(specific.decision, tools, event.call) };
    case "user_prompt_submit":
    case "stop":
    case "subagent_stop":
    case "pre_compact":
      return withContext(
        output.decision === "block" ? { ...common, block: reason ?? "blocked by a hook" } : common,
        context,
      );
    case "session_start":
    case "subagent_start":
      return withContext(common, context);
    default:
      return common;
  }
}

function preToolDecision(
  id: "claude" | "qwen",
  output: Record<string, unknown>,
  specific: Record<string, unknown>,
): Pick<HandlerVerdict, "verdict" | "reason"> {
  const permission = String(specific.permissionDecision);
  if (Object.hasOwn(PERMISSION[id], permission)) {
    const verdict = PERMISSION[id][permission];
    return verdict ? { verdict, reason: stringOrUndefined(specific.permissionDecisionReason) } : {};
  }
  const legacy = String(output.decision);
  const verdict = Object.hasOwn(LEGACY_DECISION[id], legacy) ? LEGACY_DECISION[id][legacy] : undefined;
  return verdict ? { verdict, reason: stringOrUndefined(output.reason) } : {};
}

/**
 * Claude Code's PostToolUse `updatedToolOutput` (any tool) and `updatedMCPToolOutput` (MCP tools only):
 * what the model reads instead of the tool's output. A text is taken as it is; MCP content blocks by their
 * text; anything else as its JSON.
 */
function updatedOutput(
  specific: Record<string, unknown>,
  call: ToolCallFacts,
): Pick<HandlerVerdict, "output" | "notices"> {
  if (specific.updatedToolOutput !== undefined && specific.updatedToolOutput !== null)
    return { output: outputText(specific.updatedToolOutput) };
  const mcpOutput = specific.updatedMCPToolOutput;
  if (mcpOutput === undefined || mcpOutput === null) return {};
  if (call.mcp) return { output: outputText(mcpOutput) };
  return {
    notices: [
      `updatedMCPToolOutput replaces only an MCP tool's output (as in Claude Code); ${call.name} is not one, so its output reached the model unchanged: use updatedToolOutput`,
    ],
  };
}

function outputText(value: unknown): string {
  if (typeof value === "string") return value;
  const blocks = Array.isArray(value)
    ? value
    : isObject(value) && Array.isArray(value.content)
      ? value.content
      : undefined;
  if (blocks?.every((block) => isObject(block) && typeof block.text === "string"))
    return blocks.map((block) => (block as { text: string }).text).join("\n");
  return JSON.stringify(value);
}

/** Exit code 2, by event: Claude Code's table of what its stderr does. */
function exitTwo(stderr: string, event: HookEvent): HandlerVerdict {
  switch (event.kind) {
    case "pre_tool_execution":
      return { verdict: "deny", reason: stderr || "blocked by a hook (exit code 2)" };
    case "post_tool_execution":
      return withContext({}, [stderr]);
    case "permission_request":
      return { permission: { behavior: "deny", message: stderr || "denied by a hook (exit code 2)" } };
    case "user_prompt_submit":
    case "stop":
    case "subagent_stop":
    case "pre_compact":
      return { block: stderr || "blocked by a hook (exit code 2)" };
    default:
      // the rest show stderr to the user only
      return stderr ? { systemMessage: stderr } : {};
  }
}

/**
 * Qwen Code's PostToolUse `tool_response` is its tool result, `{ llmContent, returnDisplay }` (the text the
 * model reads, the text the user sees: one text in Gantry); PostToolUseFailure carries `error` and
 * `is_interrupt` instead.
 */
function qwenResponse(result: ToolResult, rule: HookRule): Record<string, unknown> {
  if (rule.only === "failure") return { error: result.text, is_interrupt: result.errorCode === "aborted" };
  return { tool_response: { llmContent: result.text, returnDisplay: result.text } };
}

/** Claude Code's Bash `tool_response` fields: the command's own output as `stdout`, and whether it was cut short. */
function commandResponse(result: ToolResult): Record<string, unknown> {
  const interrupted = result.errorCode === "aborted" || result.errorCode === "timeout";
  return { stdout: commandOutput(result), stderr: "", interrupted, isImage: false };
}
