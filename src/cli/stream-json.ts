import type { ConversationMessage } from "../agent/conversation.js";
import type { AgentEvent } from "../agent/events.js";
import type { AgentRunResult } from "../agent/loop.js";

/** What a run cut by the output limit says (stderr in text mode, the result line's `error`). */
export const CUT_ANSWER =
  "the answer was cut off by the model's output limit (finish_reason length); it is incomplete. Ask for less at once, or raise the server's output limit (llama.cpp: -n / n_predict)";

/**
 * The lines of `--output-format stream-json` (Claude Code's shapes), as values: `gantry -p` prints them
 * and a durable session's event log stores them, so `gantry sessions --follow` prints the same lines.
 */
export interface InitFacts {
  sessionId: string;
  model: string;
  cwd: string;
  tools: string[];
  approvalMode: string;
}

export function initLine(facts: InitFacts): Record<string, unknown> {
  return {
    type: "system",
    subtype: "init",
    session_id: facts.sessionId,
    model: facts.model,
    cwd: facts.cwd,
    tools: facts.tools,
    approval_mode: facts.approvalMode,
  };
}

/** One loop event as its stream-json line; undefined for events the format leaves out (summaries). */
export function eventLine(event: AgentEvent, sessionId: string): unknown {
  if (event.type !== "message") return event;
  return claudeMessageLine(event.message, event.agentId, sessionId);
}

/** The closing `result` line (also `--output-format json`'s only line). */
export function resultLine(result: AgentRunResult, sessionId: string, durationMs: number) {
  return {
    type: "result",
    subtype:
      result.reason === "completed" || result.reason === "stopped"
        ? "success"
        : result.reason === "max_turns"
          ? "error_max_turns"
          : result.reason === "max_tokens"
            ? "error_max_tokens"
            : "error_during_execution",
    is_error: result.reason !== "completed" && result.reason !== "stopped",
    result: result.text,
    session_id: sessionId,
    num_turns: result.turns,
    duration_ms: durationMs,
    usage: { input_tokens: result.usage.inputTokens, output_tokens: result.usage.outputTokens },
    ...(result.error ? { error: result.error.message } : {}),
    ...(result.reason === "aborted" ? { error: "interrupted" } : {}),
    ...(result.stopReason !== undefined ? { stop_reason: result.stopReason } : {}),
    ...(result.reason === "max_tokens" ? { error: CUT_ANSWER } : {}),
  };
}

/**
 * A conversation message as Claude Code's stream-json prints it (`assistant` with text and `tool_use`
 * blocks, `user` with `tool_result` blocks), so scripts written for it read Gantry's too; `agentId` says
 * which agent spoke. Summaries are left out (the `compaction` event carries them).
 */
function claudeMessageLine(message: ConversationMessage, agentId: string, sessionId: string) {
  const envelope = { parent_tool_use_id: null, session_id: sessionId, agentId };
  switch (message.role) {
    case "assistant":
      return {
        type: "assistant",
        message: {
          role: "assistant",
          content: [
            ...(message.thinking ? [{ type: "thinking", thinking: message.thinking }] : []),
            ...(message.text ? [{ type: "text", text: message.text }] : []),
            ...message.toolCalls.map((call) => ({
              type: "tool_use",
              id: call.callId,
              name: call.name,
              input: call.args,
            })),
          ],
        },
        ...envelope,
      };
    case "tool":
      return {
        type: "user",
        message: {
          role: "user",
          content: message.results.map((result) => ({
            type: "tool_result",
            tool_use_id: result.callId,
            content: result.text,
            is_error: result.error,
          })),
        },
        ...envelope,
      };
    case "user":
      return {
        type: "user",
        message: { role: "user", content: [{ type: "text", text: message.text }] },
        ...envelope,
      };
    case "summary":
      return undefined;
  }
}
