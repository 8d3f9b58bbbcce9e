import type { AgentInbox } from "../agent/inbox.js";
import type { HandlerVerdict } from "./dialects/dialect.js";
import { agentOf, type HookEvent } from "./events.js";
import type { PlannedHandler } from "./plan.js";

type RunHandler = (
  planned: PlannedHandler,
  event: HookEvent,
  signal: AbortSignal,
) => Promise<{ verdict: HandlerVerdict; notes: string[] }>;

/**
 * Claude Code's `async: true` command hooks: started and not waited for. What they decide has no effect
 * (the moment has passed; a warning says so), their `systemMessage` is shown to the user, and their
 * context waits for the agent's next model call. Each run is tracked: at the session's end the ones still
 * running are ended like a timed-out hook (their whole process tree), so none outlives the session.
 */
export function createBackgroundHandlers(
  run: RunHandler,
  log: (line: string) => void,
  inbox?: Pick<AgentInbox, "post" | "holdOpen">,
) {
  const running = new Set<Promise<void>>();
  const controller = new AbortController();
  const context = new Map<string, string[]>();

  function settle(planned: PlannedHandler, event: HookEvent, verdict: HandlerVerdict, notes: string[]) {
    const source = `hook ${planned.label} (async)`;
    for (const note of notes) log(note);
    if (verdict.failure !== undefined) {
      const why = controller.signal.aborted ? "still running when the session ended: ended" : verdict.failure;
      log(`${source}: ${why} (it ran in the background: nothing waited for it)`);
      return;
    }
    if (
      planned.handler.kind === "command" &&
      planned.handler.rewake &&
      inbox &&
      rewake(planned, event, verdict)
    )
      return;
    const decided = decisionOf(verdict);
    if (decided)
      log(`${source}: its ${decided} has no effect: async hooks run in the background and cannot decide`);
    if (verdict.systemMessage) log(`${source}: ${verdict.systemMessage}`);
    const texts = verdict.additionalContext ?? [];
    if (texts.length > 0) {
      const agent = agentOf(event);
      context.set(agent, [...(context.get(agent) ?? []), ...texts]);
    }
  }

  /**
   * Claude Code's `asyncRewake`: what the hook blocked with (exit 2, `decision: block`) and its context
   * reach the agent as a message that starts its next turn. Returns whether there was any.
   */
  function rewake(planned: PlannedHandler, event: HookEvent, verdict: HandlerVerdict): boolean {
    if (verdict.systemMessage) log(`hook ${planned.label} (async): ${verdict.systemMessage}`);
    const blocked = verdict.block ?? (verdict.verdict === "deny" ? verdict.reason : undefined);
    const texts = [...(blocked ? [blocked] : []), ...(verdict.additionalContext ?? [])];
    if (texts.length === 0) return true;
    const text = `The background hook ${planned.label} reports:\n${texts.join("\n")}`;
    inbox?.post({ source: `hook ${planned.label}`, agentId: agentOf(event), text });
    return true;
  }

  return {
    start(planned: PlannedHandler, event: HookEvent) {
      if (controller.signal.aborted) return;
      // a run waits for a hook that may wake its agent, as for a background agent
      const release =
        planned.handler.kind === "command" && planned.handler.rewake ? inbox?.holdOpen() : undefined;
      const done = run(planned, event, controller.signal)
        .then(({ verdict, notes }) => settle(planned, event, verdict, notes))
        .catch((cause: Error) => log(`hook ${planned.label} (async) failed: ${cause.message}`))
        .finally(() => release?.());
      running.add(done);
      void done.finally(() => running.delete(done));
    },
    take(agentId: string): string[] {
      const texts = context.get(agentId) ?? [];
      context.delete(agentId);
      return texts;
    },
    async end() {
      controller.abort();
      await Promise.allSettled([...running]);
    },
  };
}

/** The part of a verdict that would have decided something, named for the warning. */
function decisionOf(verdict: HandlerVerdict): string | undefined {
  if (verdict.verdict) return `decision "${verdict.verdict}"`;
  if (verdict.block !== undefined) return "block";
  if (verdict.args) return "input rewrite";
  if (verdict.permission) return `permission answer "${verdict.permission.behavior}"`;
  if (verdict.stop !== undefined) return "continue: false";
  return undefined;
}
