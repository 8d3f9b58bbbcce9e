import {
  applyCompaction,
  type CompactionOptions,
  compactionSplit,
  estimateTokens,
  summariseOlderTurns,
  worthCompacting,
} from "./context.js";
import type { ModelErrorInfo } from "./events.js";
import { hookContextMessage } from "./loop-hooks.js";
import { append, type LoopRun } from "./loop-state.js";

/**
 * Compacts when the conversation (as last measured, plus an estimate of what came since) nears the
 * window. Hooks see it before (they may add instructions for the summary, or keep the conversation as it
 * is) and after (their context joins the compacted conversation).
 */
export async function compactIfNeeded(run: LoopRun, compaction: CompactionOptions): Promise<void> {
  const { conversation, measured } = run;
  const tokens =
    measured.tokens > 0
      ? measured.tokens + estimateTokens(conversation.messages.slice(measured.messageCount))
      : estimateTokens(conversation.messages, run.options.system);
  if (tokens < compaction.contextWindow * (compaction.threshold ?? 0.8)) return;
  const keepRecentTurns = compaction.keepRecentTurns ?? 2;
  // hooks hear of a compaction only when there is something to compact
  if (!worthCompacting(conversation.messages, compactionSplit(conversation.messages, keepRecentTurns)))
    return;
  const hooks = run.options.hooks;
  const before = (await hooks?.beforeCompact?.(run.signal)) ?? { instructions: [] };
  if (before.skip) return;
  const outcome = await summariseOlderTurns(conversation, run.model, {
    keepRecentTurns,
    signal: run.signal,
    instructions: before.instructions,
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
  const after = await hooks?.afterCompact?.(outcome.summary, run.signal);
  if (after && after.context.length > 0) append(run, hookContextMessage(after.context));
}

/** Providers' words for a request over the context window. */
const CONTEXT_OVERFLOW =
  /context (length|window)|too long|too many tokens|maximum context|exceeds the (maximum|limit)/i;

/**
 * The window table can be wrong for a model: when the provider refuses the request as too long,
 * compact once whatever the estimate said. True when the conversation shrank and the turn can be retried.
 */
export async function compactAfterOverflow(run: LoopRun, error: ModelErrorInfo): Promise<boolean> {
  const compaction = run.options.compaction;
  if (!compaction || run.compactedForOverflow || error.kind !== "bad_request") return false;
  if (!CONTEXT_OVERFLOW.test(error.message)) return false;
  run.compactedForOverflow = true;
  const before = run.conversation.messages.length;
  await compactIfNeeded(run, { ...compaction, threshold: 0 });
  return run.conversation.messages.length < before;
}
