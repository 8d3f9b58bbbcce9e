import type { ModelClient } from "../models/client.js";
import { errorResult, type ToolResult } from "../tools/contract.js";
import type { ToolPipeline } from "../tools/pipeline.js";
import type { ToolDeclaration } from "../tools/registry.js";
import { MAX_TOOL_ARGUMENT_BYTES, oversizedArgumentsMessage } from "../tools/validation.js";
import { applyCompaction, type CompactionOptions, estimateTokens, summariseOlderTurns } from "./context.js";
import {
  answerUnansweredCalls,
  type Conversation,
  type ConversationMessage,
  lastAssistantText,
  type ToolCallRecord,
  toResultRecord,
} from "./conversation.js";
import {
  type AgentEvent,
  addUsage,
  type DoneReason,
  type ModelErrorInfo,
  type TurnUsage,
  ZERO_USAGE,
} from "./events.js";
import type { AgentInbox } from "./inbox.js";
import { DEFAULT_RETRY, type RetryPolicy, retryDelay, sleep } from "./retry.js";

/** Distributes Omit over the event union, so callers emit events without their agentId. */
type EventBody = AgentEvent extends infer E ? (E extends AgentEvent ? Omit<E, "agentId"> : never) : never;

export interface AgentLoopOptions {
  system: string;
  /** Declarations sent to the model; default: the registry's enabled tools that `allowTool` lets through. */
  tools?: readonly ToolDeclaration[];
  /** Messages appended (and emitted, so sessions record them) before the first turn: the user's prompt. */
  input?: ConversationMessage[];
  signal?: AbortSignal;
  /** "main" for the top-level agent, else the subagent's id; tagged on every event and tool call. */
  agentId?: string;
  /** Model turns this run may take. */
  maxTurns?: number;
  /** Narrows the tools the agent may use (a subagent's tool list). */
  allowTool?: (canonicalName: string) => boolean;
  /** Drained between turns: schedules and background agents post here. */
  inbox?: AgentInbox;
  /** Headless runs: while work holds the inbox open, wait for its messages instead of ending. */
  waitForHeldWork?: boolean;
  retry?: Partial<RetryPolicy>;
  compaction?: CompactionOptions;
  onEvent?: (event: AgentEvent) => void;
}

export interface AgentRunResult {
  reason: DoneReason;
  turns: number;
  /** The last assistant text: a headless run's answer. */
  text: string;
  usage: TurnUsage;
  error?: ModelErrorInfo;
}

interface TurnOutcome {
  text: string;
  calls: ToolCallRecord[];
  usage: TurnUsage;
  error?: ModelErrorInfo;
}

const HELD_WORK_POLL_MS = 250;

/** One run's state, shared by the steps below. */
interface LoopRun {
  conversation: Conversation;
  model: ModelClient;
  pipeline: ToolPipeline;
  options: AgentLoopOptions;
  agentId: string;
  signal: AbortSignal;
  retry: RetryPolicy;
  tools: readonly ToolDeclaration[];
  emit(event: EventBody): void;
  turns: number;
  usage: TurnUsage;
  /** The provider's token count after the last turn, and how many messages it covered. */
  measured: { tokens: number; messageCount: number };
  /** Set once the run compacted because the provider said the context was too long. */
  compactedForOverflow: boolean;
  /** Calls the model client cut off (arguments past the limit), by call id: answered with this error, never run. */
  refusedCalls: Map<string, string>;
}

/**
 * The agent loop (STYLE rule 7): no I/O of its own. Streams a model turn, runs its tool calls through
 * the pipeline (read-only ones in parallel, the others in order, results in the model's order), feeds
 * the results back, and repeats until the model stops, the turn budget ends, or the signal aborts.
 */
export async function runAgentLoop(
  conversation: Conversation,
  model: ModelClient,
  pipeline: ToolPipeline,
  options: AgentLoopOptions,
): Promise<AgentRunResult> {
  const run = startRun(conversation, model, pipeline, options);
  answerUnansweredCalls(conversation);
  for (const message of options.input ?? []) append(run, message);
  while (true) {
    for (const message of options.inbox?.drain(run.agentId) ?? [])
      append(run, { role: "user", text: message.text, source: message.source });
    if (run.signal.aborted) return finish(run, "aborted");
    const last = conversation.messages.at(-1);
    if (last === undefined || last.role === "assistant") {
      if (await waitForHeldWork(run)) continue;
      return finish(run, run.signal.aborted ? "aborted" : "completed");
    }
    if (options.maxTurns !== undefined && run.turns >= options.maxTurns) return finish(run, "max_turns");
    if (options.compaction) await compactIfNeeded(run, options.compaction);
    const ended = await takeTurn(run);
    if (ended) return ended;
  }
}

function startRun(
  conversation: Conversation,
  model: ModelClient,
  pipeline: ToolPipeline,
  options: AgentLoopOptions,
): LoopRun {
  const agentId = options.agentId ?? "main";
  const allowTool = options.allowTool;
  return {
    conversation,
    model,
    pipeline,
    options,
    agentId,
    signal: options.signal ?? new AbortController().signal,
    retry: { ...DEFAULT_RETRY, ...options.retry },
    tools: options.tools ?? pipeline.registry.declarations((tool) => !allowTool || allowTool(tool.spec.name)),
    emit: (event) => options.onEvent?.({ ...event, agentId } as AgentEvent),
    turns: 0,
    usage: ZERO_USAGE,
    measured: { tokens: 0, messageCount: 0 },
    compactedForOverflow: false,
    refusedCalls: new Map(),
  };
}

function append(run: LoopRun, message: ConversationMessage): void {
  run.conversation.messages.push(message);
  run.emit({ type: "message", message });
}

function finish(run: LoopRun, reason: DoneReason, error?: ModelErrorInfo): AgentRunResult {
  const result: AgentRunResult = {
    reason,
    turns: run.turns,
    text: lastAssistantText(run.conversation),
    usage: run.usage,
    ...(error ? { error } : {}),
  };
  run.emit({ type: "done", ...result });
  return result;
}

/** One model turn and its tool calls; returns the run's result when the turn ends the run. */
async function takeTurn(run: LoopRun): Promise<AgentRunResult | undefined> {
  const turn = ++run.turns;
  run.emit({ type: "turn_start", turn });
  const outcome = await streamTurnWithRetry(run, turn);
  if (outcome.text !== "" || outcome.calls.length > 0)
    append(run, { role: "assistant", text: outcome.text, toolCalls: outcome.calls });
  if (outcome.error?.kind === "aborted") {
    if (outcome.calls.length > 0) await answerCalls(run, outcome.calls, turn);
    run.emit({ type: "turn_end", turn, toolCalls: outcome.calls.length });
    return finish(run, "aborted");
  }
  if (outcome.error?.kind === "too_large") {
    // the model sees why its answer vanished and can answer again, in smaller calls
    append(run, { role: "user", source: "gantry", text: cutResponseNote(outcome.error) });
    run.emit({ type: "turn_end", turn, toolCalls: 0 });
    return undefined;
  }
  if (outcome.error && (await compactAfterOverflow(run, outcome.error))) {
    run.emit({ type: "turn_end", turn, toolCalls: 0 });
    return undefined; // the loop asks again with the compacted conversation
  }
  if (outcome.error || (outcome.text === "" && outcome.calls.length === 0)) {
    run.emit({ type: "turn_end", turn, toolCalls: 0 });
    // an empty answer ends the run: asking again would only repeat it
    return outcome.error ? finish(run, "error", outcome.error) : finish(run, "completed");
  }
  run.usage = addUsage(run.usage, outcome.usage);
  run.measured = {
    tokens: outcome.usage.inputTokens + outcome.usage.outputTokens,
    messageCount: run.conversation.messages.length,
  };
  run.emit({ type: "usage", turn, usage: outcome.usage, total: run.usage });
  if (outcome.calls.length > 0) await answerCalls(run, outcome.calls, turn);
  run.emit({ type: "turn_end", turn, toolCalls: outcome.calls.length });
  return undefined;
}

/** Runs the calls (after an abort each one is answered "aborted" without running) and appends the results. */
async function answerCalls(run: LoopRun, calls: ToolCallRecord[], turn: number): Promise<void> {
  const results = await runToolCalls(run, calls, turn);
  append(run, {
    role: "tool",
    results: calls.map((call, i) => toResultRecord(call, results[i] as ToolResult)),
  });
}

/**
 * A turn's tool calls are announced (`tool_call` events) once its stream has ended for good, so every
 * announced call gets its `tool_result`: the calls of an attempt that failed and is retried are never
 * announced. (Text deltas stream live; an `error` event with `retryInMs` says that attempt's text is dropped.)
 */
async function streamTurnWithRetry(run: LoopRun, turn: number): Promise<TurnOutcome> {
  const announced = (outcome: TurnOutcome): TurnOutcome => {
    for (const call of outcome.calls) run.emit({ type: "tool_call", turn, call });
    return outcome;
  };
  for (let attempt = 1; ; attempt++) {
    const outcome = await streamTurn(run, turn);
    if (!outcome.error) return announced(outcome);
    if (outcome.error.kind === "aborted" || run.signal.aborted) {
      // keep what the model already said; its calls are kept too and answered "aborted"
      return announced({ ...outcome, error: { kind: "aborted", message: "aborted" } });
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

async function streamTurn(run: LoopRun, turn: number): Promise<TurnOutcome> {
  const outcome: TurnOutcome = { text: "", calls: [], usage: ZERO_USAGE };
  const stream = run.model.streamTurn({
    system: run.options.system,
    messages: run.conversation.messages,
    tools: run.tools,
    signal: run.signal,
  });
  for await (const part of stream) {
    if (part.type === "text_delta") {
      outcome.text += part.text;
      run.emit({ type: "text_delta", turn, text: part.text });
    } else if (part.type === "tool_call") {
      outcome.calls.push(part.call);
      if (part.refused !== undefined) run.refusedCalls.set(part.call.callId, part.refused);
    } else if (part.type === "finish") {
      outcome.usage = part.usage;
    } else {
      outcome.error = part.error;
    }
  }
  return outcome;
}

/**
 * Calls start in the model's order, so gates and hooks run in that order. Read-only calls run
 * together; any other call waits for everything before it and runs alone. Results are emitted in
 * the model's order.
 */
async function runToolCalls(run: LoopRun, calls: ToolCallRecord[], turn: number): Promise<ToolResult[]> {
  let barrier: Promise<unknown> = Promise.resolve();
  let group: Promise<unknown>[] = [];
  const pending = calls.map((call) => {
    if (run.pipeline.registry.lookup(call.name)?.spec.safety === "read_only") {
      const running = barrier.then(() => runOneCall(run, call, turn));
      group.push(running);
      return running;
    }
    const before = Promise.all([barrier, ...group]);
    group = [];
    const running = before.then(() => runOneCall(run, call, turn));
    barrier = running;
    return running;
  });
  const results: ToolResult[] = [];
  for (const [i, running] of pending.entries()) {
    const result = await running;
    results.push(result);
    run.emit({ type: "tool_result", turn, call: calls[i] as ToolCallRecord, result });
  }
  return results;
}

async function runOneCall(run: LoopRun, call: ToolCallRecord, turn: number): Promise<ToolResult> {
  if (run.signal.aborted) return errorResult("aborted", `${call.name} was not started: the run was aborted.`);
  const refused = run.refusedCalls.get(call.callId);
  if (refused !== undefined) {
    run.refusedCalls.delete(call.callId);
    return errorResult("too_large", refused);
  }
  const allowTool = run.options.allowTool;
  try {
    return await run.pipeline.run(
      { name: call.name, args: call.args, callId: call.callId },
      {
        signal: run.signal,
        agentId: run.agentId,
        ...(allowTool ? { allowTool } : {}),
        onUpdate: (partial) => run.emit({ type: "tool_update", turn, callId: call.callId, partial }),
      },
    );
  } catch (cause) {
    return errorResult("execution_failed", `${call.name} failed: ${(cause as Error).message}`);
  }
}

function cutResponseNote(error: ModelErrorInfo): string {
  return oversizedArgumentsMessage(
    `Your last answer was lost: ${error.message}. A tool call's arguments sent whole in one part may take at most ${MAX_TOOL_ARGUMENT_BYTES} bytes`,
  );
}

/** Compacts when the conversation (as last measured, plus an estimate of what came since) nears the window. */
async function compactIfNeeded(run: LoopRun, compaction: CompactionOptions): Promise<void> {
  const { conversation, measured } = run;
  const tokens =
    measured.tokens > 0
      ? measured.tokens + estimateTokens(conversation.messages.slice(measured.messageCount))
      : estimateTokens(conversation.messages, run.options.system);
  if (tokens < compaction.contextWindow * (compaction.threshold ?? 0.8)) return;
  const outcome = await summariseOlderTurns(conversation, run.model, {
    keepRecentTurns: compaction.keepRecentTurns ?? 2,
    signal: run.signal,
  });
  if (outcome === undefined) return;
  if (!outcome.ok) {
    const message = `compaction failed: ${outcome.error.message}`;
    run.emit({ type: "error", turn: run.turns, error: { ...outcome.error, message } });
    return;
  }
  applyCompaction(conversation, outcome.summary, outcome.replacedCount);
  run.measured = { tokens: 0, messageCount: 0 };
  run.emit({
    type: "compaction",
    summary: outcome.summary,
    replacedCount: outcome.replacedCount,
    tokensBefore: tokens,
  });
}

/** Providers' words for a request over the context window. */
const CONTEXT_OVERFLOW =
  /context (length|window)|too long|too many tokens|maximum context|exceeds the (maximum|limit)/i;

/**
 * The window table can be wrong for a model: when the provider refuses the request as too long,
 * compact once whatever the estimate said. True when the conversation shrank and the turn can be retried.
 */
async function compactAfterOverflow(run: LoopRun, error: ModelErrorInfo): Promise<boolean> {
  const compaction = run.options.compaction;
  if (!compaction || run.compactedForOverflow || error.kind !== "bad_request") return false;
  if (!CONTEXT_OVERFLOW.test(error.message)) return false;
  run.compactedForOverflow = true;
  const before = run.conversation.messages.length;
  await compactIfNeeded(run, { ...compaction, threshold: 0 });
  return run.conversation.messages.length < before;
}

/**
 * Headless runs stay open while background work holds the inbox. True when there may be more to do
 * (a message arrived, or the last hold was released); false when not waiting or aborted.
 */
async function waitForHeldWork(run: LoopRun): Promise<boolean> {
  const { inbox, waitForHeldWork: wanted } = run.options;
  if (!wanted || !inbox || inbox.pendingHolds === 0) return false;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  run.signal.addEventListener("abort", onAbort, { once: true });
  const poll = setInterval(() => {
    if (inbox.pendingHolds === 0) stop.abort();
  }, HELD_WORK_POLL_MS);
  try {
    await inbox.wait(run.agentId, stop.signal);
  } catch {
    // woken by abort or by the last hold's release
  } finally {
    clearInterval(poll);
    run.signal.removeEventListener("abort", onAbort);
  }
  return !run.signal.aborted;
}
