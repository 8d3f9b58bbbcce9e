import type { AgentEvent } from "../agent/events.js";

/**
 * Turns a run that reports events through a callback into an async iterable of them. Leaving the loop
 * early (break, return, a throw in the loop body) aborts the run; the run's own failure is thrown from
 * the loop.
 */
export async function* eventQueue(
  start: (onEvent: (event: AgentEvent) => void, signal: AbortSignal) => Promise<unknown>,
  outer?: AbortSignal,
): AsyncGenerator<AgentEvent> {
  const controller = new AbortController();
  const forward = () => controller.abort(outer?.reason);
  if (outer?.aborted) forward();
  outer?.addEventListener("abort", forward, { once: true });
  const waiting: AgentEvent[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  let failure: { error: unknown } | undefined;
  const run = start((event) => {
    waiting.push(event);
    wake?.();
  }, controller.signal).then(
    () => undefined,
    (error: unknown) => {
      failure = { error };
    },
  );
  void run.finally(() => {
    ended = true;
    wake?.();
  });
  try {
    while (true) {
      const event = waiting.shift();
      if (event) {
        yield event;
        continue;
      }
      if (ended) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
    if (failure) throw failure.error;
  } finally {
    outer?.removeEventListener("abort", forward);
    if (!ended) {
      controller.abort(new Error("the event stream was left before the run ended"));
      await run;
    }
  }
}
