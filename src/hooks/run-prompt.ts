import type { ModelClient } from "../models/client.js";
import type { HookEvent } from "./events.js";

export interface PromptHookRequest {
  /** The session's model client (or the one the handler's `model` names), or why there is none. */
  client: ModelClient | string;
  prompt: string;
  /** The event JSON, as a command hook would read it on stdin. */
  input: string;
  event: HookEvent;
  /** Whose contract the answer follows: Qwen Code's `ok: false` also stops the agent, and carries context. */
  dialect: "claude" | "qwen";
  timeoutMs: number;
  signal: AbortSignal;
}

/** The hook's answer as a Claude Code hook would have printed it (the dialect reads it), or why there is none. */
export type PromptHookOutcome = { ok: true; output: string } | { ok: false; failure: string };

const JUDGE_SYSTEM = [
  "You check one step of a coding agent's work for its user, as a hook: the user's condition is given with",
  "the event's JSON. Reply with a single JSON object and nothing else:",
  '{"ok": true} when the condition holds and the step may go on, or {"ok": false, "reason": "<why, for the agent>"}.',
].join(" ");

/**
 * Claude Code's `type: "prompt"` hook: the model judges the event with the hook's prompt (`$ARGUMENTS`
 * stands for the event JSON; without it the JSON follows the prompt) and answers `{ok, reason}`. `ok:
 * false` blocks as the event allows (a call denied, a stop sent on with the reason, a prompt refused).
 */
export async function runPromptHook(request: PromptHookRequest): Promise<PromptHookOutcome> {
  if (typeof request.client === "string") return { ok: false, failure: `no model to ask: ${request.client}` };
  const text = request.prompt.includes("$ARGUMENTS")
    ? request.prompt.replaceAll("$ARGUMENTS", () => request.input)
    : `${request.prompt}\n\n${request.input}`;
  const timeout = AbortSignal.timeout(request.timeoutMs);
  let answer = "";
  try {
    const stream = request.client.streamTurn({
      system: JUDGE_SYSTEM,
      messages: [{ role: "user", text }],
      tools: [],
      signal: AbortSignal.any([request.signal, timeout]),
    });
    for await (const part of stream) {
      if (part.type === "text_delta") answer += part.text;
      if (part.type === "error")
        return { ok: false, failure: failureOf(part.error.message, request, timeout) };
    }
  } catch (cause) {
    return { ok: false, failure: failureOf((cause as Error).message, request, timeout) };
  }
  const verdict = readVerdict(answer);
  if (!verdict)
    return { ok: false, failure: `the model's answer is not {"ok", "reason"}: ${preview(answer)}` };
  return { ok: true, output: JSON.stringify(outputFor(request, verdict)) };
}

function failureOf(message: string, request: PromptHookRequest, timeout: AbortSignal): string {
  if (timeout.aborted) return `timed out after ${request.timeoutMs / 1000} s`;
  return request.signal.aborted ? "aborted" : `the model call failed: ${message}`;
}

interface JudgeVerdict {
  ok: boolean;
  reason: string;
  additionalContext?: string;
}

/** The judge's answer as the harness's own prompt hooks turn it into hook output. */
function outputFor(request: PromptHookRequest, verdict: JudgeVerdict): Record<string, unknown> {
  if (request.dialect === "claude") return verdict.ok ? {} : blockFor(request.event, verdict.reason);
  const context = verdict.additionalContext
    ? { hookSpecificOutput: { additionalContext: verdict.additionalContext } }
    : {};
  if (verdict.ok) return context;
  return {
    continue: false,
    stopReason: verdict.reason,
    decision: "block",
    reason: verdict.reason,
    ...context,
  };
}

/** The JSON object in the model's reply (a fenced block or surrounding words are tolerated). */
function readVerdict(answer: string): JudgeVerdict | undefined {
  const start = answer.indexOf("{");
  const end = answer.lastIndexOf("}");
  if (start < 0 || end < start) return undefined;
  try {
    const parsed = JSON.parse(answer.slice(start, end + 1)) as Record<string, unknown>;
    if (typeof parsed.ok !== "boolean") return undefined;
    const reason =
      typeof parsed.reason === "string" && parsed.reason ? parsed.reason : "the prompt hook said no";
    const context =
      typeof parsed.additionalContext === "string" ? { additionalContext: parsed.additionalContext } : {};
    return { ok: parsed.ok, reason, ...context };
  } catch {
    return undefined;
  }
}

/** `ok: false` in the words of Claude Code's hook output for the event. */
function blockFor(event: HookEvent, reason: string): Record<string, unknown> {
  switch (event.kind) {
    case "pre_tool_execution":
      return {
        hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: reason },
      };
    case "permission_request":
      return { hookSpecificOutput: { decision: { behavior: "deny", message: reason } } };
    default:
      return { decision: "block", reason };
  }
}

function preview(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
