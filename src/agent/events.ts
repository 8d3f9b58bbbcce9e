import type { ToolResult } from "../tools/contract.js";
import type { ConversationMessage, ToolCallRecord } from "./conversation.js";

/** Tokens of one model turn, as the provider reported them. */
export interface TurnUsage {
  /** Every input token, the cached ones included. */
  inputTokens: number;
  outputTokens: number;
  /** Of the input, tokens read from the provider's prompt cache (billed at a discount); only when any. */
  cacheReadTokens?: number;
  /** Of the input, tokens written to the prompt cache (Anthropic bills them above the input price). */
  cacheWriteTokens?: number;
}

export type ModelErrorKind =
  | "auth"
  | "bad_request"
  | "rate_limit"
  | "server"
  | "network"
  | "aborted"
  /** The response was cut: a line of it went past the limit (an endless tool call). */
  | "too_large"
  | "unknown";

export interface ModelErrorInfo {
  kind: ModelErrorKind;
  message: string;
  status?: number;
  /** What the provider asked for (Retry-After), in milliseconds. */
  retryAfterMs?: number;
}

/**
 * `stopped`: a hook ended the run (`continue: false`); `blocked`: a hook refused the user's prompt;
 * `max_tokens`: the model's answer was cut by its output limit (finish_reason `length`), not finished.
 */
export type DoneReason =
  | "completed"
  | "max_turns"
  | "max_tokens"
  | "aborted"
  | "error"
  | "stopped"
  | "blocked";

/**
 * The one event stream every front end consumes (terminal UI, headless output, session file,
 * a parent agent). `agentId` is "main" for the top-level agent, else the subagent's id.
 */
export type AgentEvent = { agentId: string } & (
  | { type: "turn_start"; turn: number }
  | { type: "text_delta"; turn: number; text: string }
  /** The model's reasoning as it streams (`reasoning_content`, thinking), where the provider sends it. */
  | { type: "thinking"; turn: number; text: string }
  | { type: "tool_call"; turn: number; call: ToolCallRecord }
  /** The call passed the policy, hooks and consent and starts running now. */
  | { type: "tool_start"; turn: number; callId: string }
  | { type: "tool_update"; turn: number; callId: string; partial: string }
  | { type: "tool_result"; turn: number; call: ToolCallRecord; result: ToolResult }
  /** A message appended to the conversation: sessions persist these and replay them on resume. */
  | { type: "message"; message: ConversationMessage }
  | { type: "usage"; turn: number; usage: TurnUsage; total: TurnUsage }
  /** `retryInMs` is set when the loop will try the turn again after that delay. */
  | { type: "error"; turn: number; error: ModelErrorInfo; retryInMs?: number; attempt?: number }
  /** The first `replacedCount` messages were replaced by `summary`. */
  | { type: "compaction"; summary: string; replacedCount: number; tokensBefore: number }
  | { type: "turn_end"; turn: number; toolCalls: number }
  | {
      type: "done";
      reason: DoneReason;
      turns: number;
      text: string;
      usage: TurnUsage;
      error?: ModelErrorInfo;
      /** Why a hook stopped the run or refused the prompt, for the user. */
      stopReason?: string;
    }
);

export type AgentEventType = AgentEvent["type"];

export function addUsage(a: TurnUsage, b: TurnUsage): TurnUsage {
  const cacheRead = (a.cacheReadTokens ?? 0) + (b.cacheReadTokens ?? 0);
  const cacheWrite = (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0);
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    ...(cacheRead > 0 ? { cacheReadTokens: cacheRead } : {}),
    ...(cacheWrite > 0 ? { cacheWriteTokens: cacheWrite } : {}),
  };
}

export const ZERO_USAGE: TurnUsage = { inputTokens: 0, outputTokens: 0 };
