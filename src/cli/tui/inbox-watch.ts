import type { AgentInbox } from "../../agent/inbox.js";

/**
 * Calls `onMessage` once when a message for the main agent arrives, after `start` and before `stop`:
 * a schedule or background agent that posts while the prompt waits starts a turn of its own.
 */
export function watchInboxWhileIdle(inbox: AgentInbox, onMessage: () => void) {
  let watch: AbortController | undefined;
  return {
    start(): void {
      if (watch) return;
      const current = new AbortController();
      watch = current;
      inbox.wait("main", current.signal).then(
        () => {
          if (watch !== current) return;
          watch = undefined;
          onMessage();
        },
        () => {},
      );
    },
    stop(): void {
      watch?.abort();
      watch = undefined;
    },
  };
}
