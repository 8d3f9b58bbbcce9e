import type { ModelClient } from "../models/client.js";
import { errorResult, type ToolResult } from "../tools/contract.js";
import type { ToolPipeline } from "../tools/pipeline.js";
import { forMainAgent, type ToolDeclaration } from "../tools/registry.js";
import { MAX_TOOL_ARGUMENT_BYTES, oversizedArgumentsMessage } from "../tools/validation.js";
import { compactAfterOverflow, compactIfNeeded } from "./compaction-step.js";
import { applyCompaction, type CompactionOptions } from "./context.js";
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
import { type LoopHooks, MAX_STOP_BLOCKS, stopRequestedBy } from "./loop-hooks.js";
import { append, type LoopRun } from "./loop-state.js";
import { modelTurn } from "./model-turn.js";
import { DEFAULT_RETRY, type RetryPolicy } from "./retry.js";

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
  /** The lifecycle hooks of this agent (Stop, compaction, the model call), if any. */
  hooks?: LoopHooks;
  onEvent?: (event: AgentEvent) => void;
  /** Awaited after a call's `tool_start`, before it runs (an editor adapter reads the file an edit will change). */
  beforeToolRuns?: (call: ToolCallRecord) => Promise<void>;
}

export interface AgentRunResult {
  reason: DoneReason;
  turns: number;
  /** The last assistant text: a headless run's answer. */
  text: string;
  usage: TurnUsage;
  error?: ModelErrorInfo;
  /** Why a hook ended the run ("stopped"), for the user. */
  stopReason?: string;
}

const HELD_WORK_POLL_MS = 250;

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
      if (run.signal.aborted) return finish(run, "aborted");
      const ended = await stopOrGoOn(run);
      if (ended) return ended;
      continue;
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
    tools:
      options.tools ??
      pipeline.registry.declarations((tool) => (allowTool ? allowTool(tool.spec.name) : forMainAgent(tool))),
    emit: (event) => options.onEvent?.({ ...event, agentId } as AgentEvent),
    turns: 0,
    usage: ZERO_USAGE,
    measured: { tokens: 0, messageCount: 0 },
    compactedForOverflow: false,
    stopBlocks: 0,
    stopHookActive: false,
    refusedCalls: new Map(),
    stopRequested: undefined,
  };
}

function finish(
  run: LoopRun,
  reason: DoneReason,
  error?: ModelErrorInfo,
  stopReason?: string,
): AgentRunResult {
  const result: AgentRunResult = {
    reason,
    turns: run.turns,
    text: lastAssistantText(run.conversation),
    usage: run.usage,
    ...(error ? { error } : {}),
    ...(stopReason !== undefined ? { stopReason } : {}),
  };
  run.emit({ type: "done", ...result });
  return result;
}

/** One model turn and its tool calls; returns the run's result when the turn ends the run. */
async function takeTurn(run: LoopRun): Promise<AgentRunResult | undefined> {
  const turn = ++run.turns;
  run.emit({ type: "turn_start", turn });
  const outcome = await modelTurn(run, turn);
  if (outcome.text !== "" || outcome.calls.length > 0)
    append(run, {
      role: "assistant",
      text: outcome.text,
      toolCalls: outcome.calls,
      ...(outcome.thinking ? { thinking: outcome.thinking } : {}),
    });
  if (outcome.stop !== undefined && outcome.calls.length === 0) {
    run.emit({ type: "turn_end", turn, toolCalls: 0 });
    return finish(run, "stopped", undefined, outcome.stop);
  }
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
  if (outcome.error) {
    run.emit({ type: "turn_end", turn, toolCalls: 0 });
    return finish(run, "error", outcome.error);
  }
  if (outcome.text === "" && outcome.calls.length === 0) {
    run.emit({ type: "turn_end", turn, toolCalls: 0 });
    // an empty answer ends the run (asking again would only repeat it), unless a stop hook sends it on
    return stopOrGoOn(run);
  }
  run.usage = addUsage(run.usage, outcome.usage);
  run.measured = {
    tokens: outcome.usage.inputTokens + outcome.usage.outputTokens,
    messageCount: run.conversation.messages.length,
  };
  run.emit({ type: "usage", turn, usage: outcome.usage, total: run.usage });
  // a call the output limit cut off may carry half its arguments (servers that heal partial JSON make
  // them valid): it must not run. The calls before it were complete, since the model went on past them.
  const cutOff = outcome.finishReason === "length" ? outcome.calls.at(-1) : undefined;
  const stopped = outcome.calls.length > 0 ? await answerCalls(run, outcome.calls, turn, cutOff) : undefined;
  run.emit({ type: "turn_end", turn, toolCalls: outcome.calls.length });
  // a hook's continue: false ends the run once the turn's calls are answered
  const stop = outcome.stop ?? stopped;
  if (stop !== undefined) return finish(run, "stopped", undefined, stop);
  return outcome.finishReason === "length" && outcome.calls.length === 0
    ? finish(run, "max_tokens")
    : undefined;
}

/**
 * The agent would stop: its Stop hooks may send it on with a reason (a user message of the hook's), at
 * most MAX_STOP_BLOCKS times in a run, or end the run. Undefined when the agent goes on.
 */
async function stopOrGoOn(run: LoopRun): Promise<AgentRunResult | undefined> {
  const beforeStop = run.options.hooks?.beforeStop;
  if (!beforeStop || run.stopBlocks >= MAX_STOP_BLOCKS) return finish(run, "completed");
  const facts = {
    lastAssistantMessage: lastAssistantText(run.conversation),
    stopHookActive: run.stopHookActive,
  };
  const outcome = await beforeStop(facts, run.signal);
  if (run.signal.aborted) return finish(run, "aborted");
  if (outcome.clearContext) clearConversation(run);
  if (outcome.stop !== undefined) return finish(run, "stopped", undefined, outcome.stop);
  if (outcome.continueWith === undefined) return finish(run, "completed");
  run.stopBlocks++;
  run.stopHookActive = true;
  append(run, { role: "user", text: outcome.continueWith, source: "stop hook" });
  return undefined;
}

/**
 * A hook dropped the conversation (Gemini's AfterAgent `clearContext`): recorded as a compaction whose
 * summary says so, so a resumed session reads the same conversation.
 */
function clearConversation(run: LoopRun): void {
  const replacedCount = run.conversation.messages.length;
  const summary = "(The conversation before this point was cleared by a hook.)";
  applyCompaction(run.conversation, summary, replacedCount);
  run.measured = { tokens: 0, messageCount: 0 };
  run.emit({ type: "compaction", summary, replacedCount, tokensBefore: 0 });
}

/**
 * Runs the calls (after an abort each one is answered "aborted" without running) and appends the results;
 * returns a hook's `continue: false` among them.
 */
async function answerCalls(
  run: LoopRun,
  calls: ToolCallRecord[],
  turn: number,
  cutOff?: ToolCallRecord,
): Promise<string | undefined> {
  const results = await runToolCalls(run, calls, turn, cutOff);
  append(run, {
    role: "tool",
    results: calls.map((call, i) => toResultRecord(call, results[i] as ToolResult)),
  });
  return stopRequestedBy(results);
}

/**
 * Calls start in the model's order, so gates and hooks run in that order. Read-only calls run
 * together; any other call waits for everything before it and runs alone. Results are emitted in
 * the model's order.
 */
async function runToolCalls(
  run: LoopRun,
  calls: ToolCallRecord[],
  turn: number,
  cutOff?: ToolCallRecord,
): Promise<ToolResult[]> {
  let barrier: Promise<unknown> = Promise.resolve();
  let group: Promise<unknown>[] = [];
  const pending = calls.map((call) => {
    // a call Gantry itself cut (arguments over the size limit) is answered with that reason instead
    if (call === cutOff && !run.refusedCalls.has(call.callId)) return Promise.resolve(cutOffResult(call));
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
  // a hook ended the run (continue: false) at an earlier call of this turn: the ones after it do not start
  const stopped = run.stopRequested;
  if (stopped !== undefined) return errorResult("aborted", `${call.name} was not started: ${stopped}.`);
  const allowTool = run.options.allowTool;
  try {
    const result = await run.pipeline.run(
      { name: call.name, args: call.args, callId: call.callId },
      {
        signal: run.signal,
        agentId: run.agentId,
        ...(allowTool ? { allowTool } : {}),
        onUpdate: (partial) => run.emit({ type: "tool_update", turn, callId: call.callId, partial }),
        onStart: async () => {
          run.emit({ type: "tool_start", turn, callId: call.callId });
          await run.options.beforeToolRuns?.(call);
        },
      },
    );
    run.stopRequested ??= stopRequestedBy([result]);
    return result;
  } catch (cause) {
    return errorResult("execution_failed", `${call.name} failed: ${(cause as Error).message}`);
  }
}

function cutOffResult(call: ToolCallRecord): ToolResult {
  return errorResult(
    "cut_off",
    `${call.name} was not run: your answer reached the model's output limit (finish_reason "length") while this call's arguments were being written, so they may be incomplete. Send the call again with less in it (for a long file, write it in parts).`,
  );
}

function cutResponseNote(error: ModelErrorInfo): string {
  return oversizedArgumentsMessage(
    `Your last answer was lost: ${error.message}. A tool call's arguments sent whole in one part may take at most ${MAX_TOOL_ARGUMENT_BYTES} bytes`,
  );
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
