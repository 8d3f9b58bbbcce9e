import type { ModelClient } from "../models/client.js";
import type { HookEvent } from "./events.js";

/**
 * Runs a judge that may read the workspace before it answers (Claude Code's `type: "agent"`): its own
 * turns, with the session's read-only tools through the session's pipeline. Resolves to its last text.
 */
export type AgentJudge = (request: {
  client: ModelClient;
  system: string;
  text: string;
  signal: AbortSignal;
}) => Promise<JudgeAnswer>;

type JudgeAnswer = { ok: true; text: string } | { ok: false; failure: string };

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
  /** An agent hook: how its judge runs with tools, or why it cannot here. */
  agent?: AgentJudge | string;
}

/** The hook's answer as a Claude Code hook would have printed it (the dialect reads it), or why there is none. */
export type PromptHookOutcome = { ok: true; output: string } | { ok: false; failure: string };

const ANSWER = [
  "Reply with a single JSON object and nothing else:",
  '{"ok": true} when the condition holds and the step may go on, or {"ok": false, "reason": "<why, for the agent>"}.',
].join(" ");
const JUDGE_SYSTEM = [
  "You check one step of a coding agent's work for its user, as a hook: the user's condition is given with",
  `the event's JSON. ${ANSWER}`,
].join(" ");
const AGENT_JUDGE_SYSTEM = [
  "You check one step of a coding agent's work for its user, as a hook: the user's condition is given with",
  "the event's JSON. Read what you need in the workspace with your tools (they only read) to decide.",
  `When you know, ${ANSWER.charAt(0).toLowerCase()}${ANSWER.slice(1)}`,
].join(" ");

/**
 * Claude Code's `type: "prompt"` hook: the model judges the event with the hook's prompt (`$ARGUMENTS`
 * stands for the event JSON; without it the JSON follows the prompt) and answers `{ok, reason}`. `ok:
 * false` blocks as the event allows (a call denied, a stop sent on with the reason, a prompt refused).
 * Its `type: "agent"` is the same judge, which may first read the workspace (`AgentJudge`).
 */
export async function runPromptHook(request: PromptHookRequest): Promise<PromptHookOutcome> {
  const { client, agent } = request;
  if (typeof client === "string") return { ok: false, failure: `no model to ask: ${client}` };
  if (typeof agent === "string") return { ok: false, failure: agent };
  const text = request.prompt.includes("$ARGUMENTS")
    ? request.prompt.replaceAll("$ARGUMENTS", () => request.input)
    : `${request.prompt}\n\n${request.input}`;
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = AbortSignal.any([request.signal, timeout]);
  let answer: JudgeAnswer;
  try {
    answer = agent
      ? await agent({ client, system: AGENT_JUDGE_SYSTEM, text, signal })
      : await judgeOnce(client, text, signal);
  } catch (cause) {
    answer = { ok: false, failure: `the model call failed: ${(cause as Error).message}` };
  }
  if (!answer.ok) return { ok: false, failure: failureOf(answer.failure, request, timeout) };
  const verdict = readVerdict(answer.text);
  if (!verdict)
    return { ok: false, failure: `the model's answer is not {"ok", "reason"}: ${preview(answer.text)}` };
  return { ok: true, output: JSON.stringify(outputFor(request, verdict)) };
}

/** One model turn without tools. */
async function judgeOnce(client: ModelClient, text: string, signal: AbortSignal): Promise<JudgeAnswer> {
  let answer = "";
  const stream = client.streamTurn({
    system: JUDGE_SYSTEM,
    messages: [{ role: "user", text }],
    tools: [],
    signal,
  });
  for await (const part of stream) {
    if (part.type === "text_delta") answer += part.text;
    if (part.type === "error") return { ok: false, failure: `the model call failed: ${part.error.message}` };
  }
  return { ok: true, text: answer };
}

function failureOf(message: string, request: PromptHookRequest, timeout: AbortSignal): string {
  if (timeout.aborted) return `timed out after ${request.timeoutMs / 1000} s`;
  return request.signal.aborted ? "aborted" : message;
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
