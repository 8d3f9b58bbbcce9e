import type { SessionHooks } from "../hooks/lifecycle.js";
import type { Journal } from "./journal.js";

/**
 * The session's lifecycle hooks (SessionStart, UserPromptSubmit, Stop, the model and compaction events)
 * with every firing that has a hook a journaled step: a replay takes the hooks' decisions from the
 * journal instead of running their commands again. Tool hooks run inside each call's own step.
 */
export function journaledSessionHooks(hooks: SessionHooks, journal: Journal): SessionHooks {
  let fired = 0;
  return {
    has: (event) => hooks.has(event),
    fire(event, signal) {
      if (!hooks.has(event.kind)) return hooks.fire(event, signal);
      return journal.step(`hook ${event.kind} ${++fired}`, () => hooks.fire(event, signal));
    },
    notify: (event) => hooks.notify(event),
    settled: () => hooks.settled(),
    hasBackground: () => hooks.hasBackground(),
    // when async hooks finish depends on timing: a replay reads what the first run took
    takeContext: (agentId) => journal.step(`hook context ${++fired}`, () => hooks.takeContext(agentId)),
    addAgentGroups: (agentId, groups) => hooks.addAgentGroups(agentId, groups),
    log: (line) => hooks.log(line),
  };
}
