import type { ToolDeclaration } from "../tools/registry.js";
import type { ToolCallRecord } from "./conversation.js";
import { type ModelErrorInfo, type TurnUsage, ZERO_USAGE } from "./events.js";
import { hookContextMessage, type ModelRequestOverride, type ModelRequestView } from "./loop-hooks.js";
import { append, type LoopRun } from "./loop-state.js";
import { retryDelay, sleep } from "./retry.js";

export interface TurnOutcome {
  text: string;
  /** The reasoning the model streamed (where the provider sends it). */
  thinking?: string;
  calls: ToolCallRecord[];
  usage: TurnUsage;
  error?: ModelErrorInfo;
  /** A hook ended the run at this turn (the reason, for the user). */
  stop?: string;
  /** The provider's reason for ending the turn (`stop`, `tool-calls`, `length`, ...). */
  finishReason?: string;
}

/**
 * One model turn with the hooks around it: before the call (a hook may narrow the tools, answer in the
 * model's place, or end the run) and after it (a hook may rewrite or discard the reply; until it has
 * answered, streamed text is held back). The turn's tool calls are announced (`tool_call` events) once
 * its stream has ended for good and the hooks kept them, so every announced call gets its `tool_result`.
 */
export async function modelTurn(run: LoopRun, turn: number): Promise<TurnOutcome> {
  const hooks = run.options.hooks;
  const request: ModelRequestView = {
    system: run.options.system,
    messages: run.conversation.messages,
    tools: run.tools,
  };
  const before = (await hooks?.beforeModel?.(request, run.signal)) ?? {};
  if (before.context && before.context.length > 0) append(run, hookContextMessage(before.context));
  if (before.stop !== undefined) return { text: "", calls: [], usage: ZERO_USAGE, stop: before.stop };
  if (before.response !== undefined) {
    if (before.response) run.emit({ type: "text_delta", turn, text: before.response });
    return { text: before.response, calls: [], usage: ZERO_USAGE };
  }
  const hold = hooks?.holdsText === true && hooks.afterModel !== undefined;
  let outcome = await streamTurnWithRetry(run, turn, before.tools ?? run.tools, hold, before.request);
  if (hooks?.afterModel && !outcome.error) {
    const after = await hooks.afterModel(
      { ...request, tools: before.tools ?? run.tools },
      outcome.text,
      run.signal,
    );
    if (after.discard)
      return { text: "", calls: [], usage: outcome.usage, stop: after.stop ?? "a hook discarded the reply" };
    outcome = {
      ...outcome,
      text: after.text ?? outcome.text,
      ...(after.stop !== undefined ? { stop: after.stop } : {}),
    };
  }
  if (hold && outcome.text) run.emit({ type: "text_delta", turn, text: outcome.text });
  for (const call of outcome.calls) run.emit({ type: "tool_call", turn, call });
  return outcome;
}

/**
 * The calls of an attempt that failed and is retried are never kept. (Text deltas stream live unless
 * held; an `error` event with `retryInMs` says that attempt's text is dropped.)
 */
async function streamTurnWithRetry(
  run: LoopRun,
  turn: number,
  tools: readonly ToolDeclaration[],
  hold: boolean,
  override: ModelRequestOverride = {},
): Promise<TurnOutcome> {
  for (let attempt = 1; ; attempt++) {
    const outcome = await streamTurn(run, turn, tools, hold, override);
    if (!outcome.error) return outcome;
    if (outcome.error.kind === "aborted" || run.signal.aborted) {
      // keep what the model already said; its calls are kept too and answered "aborted"
      return { ...outcome, error: { kind: "aborted", message: "aborted" } };
    }
    const delay = retryDelay(outcome.error, attempt, run.retry);
    run.emit({
      type: "error",
      turn,
      error: outcome.error,
      attempt,
      ...(delay !== undefined ? { retryInMs: delay } : {}),
    });
    if (delay === undefined) return { ...outcome, text: "", calls: [] };
    try {
      await sleep(delay, run.signal);
    } catch {
      return { text: "", calls: [], usage: ZERO_USAGE, error: { kind: "aborted", message: "aborted" } };
    }
  }
}

async function streamTurn(
  run: LoopRun,
  turn: number,
  tools: readonly ToolDeclaration[],
  hold: boolean,
  override: ModelRequestOverride,
): Promise<TurnOutcome> {
  const outcome: TurnOutcome = { text: "", calls: [], usage: ZERO_USAGE };
  const stream = run.model.streamTurn({
    system: override.system ?? run.options.system,
    messages: override.messages ?? run.conversation.messages,
    tools,
    signal: run.signal,
    ...(override.settings ? { settings: override.settings } : {}),
  });
  for await (const part of stream) {
    if (part.type === "text_delta") {
      outcome.text += part.text;
      if (!hold) run.emit({ type: "text_delta", turn, text: part.text });
    } else if (part.type === "reasoning_delta") {
      outcome.thinking = (outcome.thinking ?? "") + part.text;
      run.emit({ type: "thinking", turn, text: part.text });
    } else if (part.type === "tool_call") {
      outcome.calls.push(part.call);
      if (part.refused !== undefined) run.refusedCalls.set(part.call.callId, part.refused);
    } else if (part.type === "finish") {
      outcome.usage = part.usage;
      outcome.finishReason = part.finishReason;
    } else {
      outcome.error = part.error;
    }
  }
  return outcome;
}
