import type { HandlerVerdict } from "./dialects/dialect.js";
import type { HookEvent } from "./events.js";
import type { PlannedHandler } from "./plan.js";
import type { HookRuntime } from "./runtime.js";

/** How the handlers of one event meet what they said: the event each next one sees, and the fold. */
export interface PlannedSink {
  /** The event as the handlers so far changed it; `chained`: Gemini's `sequential`, which passes changes on. */
  current(next: PlannedHandler, chained: boolean): HookEvent;
  take(planned: PlannedHandler, verdict: HandlerVerdict, notes: string[]): void;
}

/**
 * Runs an event's handlers and folds their verdicts in declaration order. A run of Gemini CLI handlers
 * runs in parallel (Gemini's default), unless one of their rules says `sequential: true` (then Gemini runs
 * all of them in order); Claude, Qwen and native handlers run one after another. `async` handlers start
 * in the background (runtime.background) and are not waited for.
 */
export async function runPlanned(
  runtime: HookRuntime,
  planned: PlannedHandler[],
  event: HookEvent,
  signal: AbortSignal,
  sink: PlannedSink,
): Promise<void> {
  for (const batch of batchesOf(planned)) {
    // a cancelled call will not run: the hooks still to come are not started only to be stopped
    if (signal.aborted) return;
    if (batch.background) {
      runtime.background(batch.handlers[0] as PlannedHandler, event);
      continue;
    }
    const ran = await Promise.all(
      batch.handlers.map((handler) =>
        runtime.runHandler(handler, sink.current(handler, batch.chained), signal),
      ),
    );
    batch.handlers.forEach((handler, i) => {
      const result = ran[i];
      if (result) sink.take(handler, result.verdict, result.notes);
    });
  }
}

interface Batch {
  handlers: PlannedHandler[];
  /** Gemini's `sequential: true`: each handler sees the changes of the ones before. */
  chained: boolean;
  background: boolean;
}

function batchesOf(planned: PlannedHandler[]): Batch[] {
  const batches: Batch[] = [];
  for (let i = 0; i < planned.length; ) {
    const first = planned[i] as PlannedHandler;
    if (first.dialect.id !== "gemini") {
      const background = first.handler.kind === "command" && first.handler.background === true;
      batches.push({ handlers: [first], chained: false, background });
      i++;
      continue;
    }
    let end = i;
    while (end < planned.length && planned[end]?.dialect.id === "gemini") end++;
    const run = planned.slice(i, end);
    if (run.some((handler) => handler.rule.sequential === true)) {
      for (const handler of run) batches.push({ handlers: [handler], chained: true, background: false });
    } else batches.push({ handlers: run, chained: false, background: false });
    i = end;
  }
  return batches;
}
