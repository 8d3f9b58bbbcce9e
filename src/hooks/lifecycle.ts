import type { HookEvent, HookEventName } from "./events.js";
import { type EventOutcome, emptyOutcome, foldVerdict } from "./fold.js";
import type { HookGroup } from "./rules.js";
import type { HookRuntime } from "./runtime.js";
import { runPlanned } from "./schedule.js";

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
  /** The session closes: notifications are awaited, `async` hooks still running are ended. */
  settled(): Promise<void>;
  /** Whether some handler runs in the background (`async`), so context may wait for a model call. */
  hasBackground(): boolean;
  /** The context `async` hooks left for this agent since the last take (its next model call gets it). */
  takeContext(agentId: string): Promise<string[]>;
  /** One subagent's own hooks, for its events only, until the returned function ends them. */
  addAgentGroups(agentId: string, groups: readonly HookGroup[]): () => void;
  log(line: string): void;
}

export function createSessionHooks(runtime: HookRuntime): SessionHooks {
  const inFlight = new Set<Promise<unknown>>();

  async function fire(event: HookEvent, signal = new AbortController().signal): Promise<EventOutcome> {
    const outcome = emptyOutcome();
    if (!runtime.has(event.kind)) return outcome;
    await runPlanned(runtime, runtime.plan(event), event, signal, {
      current: (_next, chained) => (chained ? chainedEvent(event, outcome) : event),
      take(planned, verdict, notes) {
        outcome.warnings.push(...notes);
        foldVerdict(outcome, planned, verdict);
      },
    });
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
      await runtime.endBackground();
    },
    hasBackground: () => runtime.hasBackground(),
    takeContext: async (agentId) => runtime.takeContext(agentId),
    addAgentGroups: (agentId, groups) => runtime.addAgentGroups(agentId, groups),
    log: (line) => runtime.log(line),
  };
}

/** Hooks that do nothing: sessions without a hooks runtime (tests, embedders that pass none). */
export const noSessionHooks: SessionHooks = {
  has: () => false,
  fire: async () => emptyOutcome(),
  notify: () => undefined,
  settled: async () => undefined,
  hasBackground: () => false,
  takeContext: async () => [],
  addAgentGroups: () => () => undefined,
  log: () => undefined,
};

/**
 * Gemini CLI's `sequential: true` passes one handler's changes to the next: BeforeAgent's prompt carries
 * the context added so far, BeforeModel's `llm_request` the messages a hook gave back.
 */
function chainedEvent(event: HookEvent, outcome: EventOutcome): HookEvent {
  if (event.kind === "user_prompt_submit" && outcome.context.length > 0)
    return { ...event, prompt: [event.prompt, ...outcome.context].join("\n\n") };
  const messages = outcome.request?.messages;
  if (event.kind === "before_model" && messages) {
    const shaped = messages.map((m) => ({
      role: m.role === "model" ? ("model" as const) : ("user" as const),
      content: m.content,
    }));
    return { ...event, request: { ...event.request, messages: shaped } };
  }
  return event;
}
