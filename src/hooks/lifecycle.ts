import type { HookEvent, HookEventName } from "./events.js";
import { type EventOutcome, emptyOutcome, foldVerdict } from "./fold.js";
import type { HookRuntime } from "./runtime.js";

/**
 * The session's lifecycle hooks (everything but the tool events, which the pipeline's hook step runs):
 * each event runs its matching handlers in order and folds what they said. Warnings and hooks'
 * `systemMessage`s go to the log (the user); blocks, stops and context are the caller's to apply.
 */
export interface SessionHooks {
  has(event: HookEventName): boolean;
  fire(event: HookEvent, signal?: AbortSignal): Promise<EventOutcome>;
  /** Fires without waiting (Notification: the user is not kept waiting for a hook); `settled` awaits them. */
  notify(event: HookEvent): void;
  settled(): Promise<void>;
  log(line: string): void;
}

export function createSessionHooks(runtime: HookRuntime): SessionHooks {
  const inFlight = new Set<Promise<unknown>>();

  async function fire(event: HookEvent, signal = new AbortController().signal): Promise<EventOutcome> {
    const outcome = emptyOutcome();
    if (!runtime.has(event.kind)) return outcome;
    for (const planned of runtime.plan(event)) {
      if (signal.aborted) break;
      const { verdict, notes } = await runtime.runHandler(planned, event, signal);
      outcome.warnings.push(...notes);
      foldVerdict(outcome, planned, verdict);
    }
    for (const line of [...outcome.warnings, ...outcome.messages]) runtime.log(line);
    return outcome;
  }

  return {
    has: (event) => runtime.has(event),
    fire,
    notify(event) {
      if (!runtime.has(event.kind)) return;
      const running = fire(event).catch((cause: Error) =>
        runtime.log(`${event.kind} hooks failed: ${cause.message}`),
      );
      inFlight.add(running);
      void running.finally(() => inFlight.delete(running));
    },
    async settled() {
      await Promise.allSettled([...inFlight]);
    },
    log: (line) => runtime.log(line),
  };
}

/** Hooks that do nothing: sessions without a hooks runtime (tests, embedders that pass none). */
export const noSessionHooks: SessionHooks = {
  has: () => false,
  fire: async () => emptyOutcome(),
  notify: () => undefined,
  settled: async () => undefined,
  log: () => undefined,
};
