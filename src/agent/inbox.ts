/**
 * Messages that arrive for an agent between its turns: a schedule firing, a background agent
 * finishing. The agent loop drains the inbox at each turn boundary and starts a new turn for them.
 */
export interface InboxMessage {
  /** Who posted it: `schedule <id>`, `agent <id>`, ... */
  source: string;
  text: string;
  /** The agent the message is for; "main" by default. */
  agentId?: string;
}

export interface AgentInbox {
  post(message: InboxMessage): void;
  /** Takes every waiting message for `agentId`. */
  drain(agentId?: string): InboxMessage[];
  /** Resolves when a message for `agentId` arrives (or at once if one waits); rejects on abort. */
  wait(agentId?: string, signal?: AbortSignal): Promise<void>;
  /** Work that will post later (a running background agent or schedule) keeps a headless run alive. */
  holdOpen(): () => void;
  readonly pendingHolds: number;
}

export function createAgentInbox(): AgentInbox {
  const messages: InboxMessage[] = [];
  const waiters = new Set<{ agentId: string; wake: () => void }>();
  let holds = 0;

  return {
    post(message) {
      const agentId = message.agentId ?? "main";
      messages.push({ ...message, agentId });
      for (const waiter of [...waiters]) {
        if (waiter.agentId === agentId) {
          waiters.delete(waiter);
          waiter.wake();
        }
      }
    },
    drain(agentId = "main") {
      const taken = messages.filter((m) => m.agentId === agentId);
      for (const message of taken) messages.splice(messages.indexOf(message), 1);
      return taken;
    },
    wait(agentId = "main", signal) {
      if (messages.some((m) => m.agentId === agentId)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const waiter = { agentId, wake: () => resolve() };
        waiters.add(waiter);
        signal?.addEventListener(
          "abort",
          () => {
            waiters.delete(waiter);
            reject(signal.reason);
          },
          { once: true },
        );
      });
    },
    holdOpen() {
      holds++;
      let released = false;
      return () => {
        if (!released) {
          released = true;
          holds--;
        }
      };
    },
    get pendingHolds() {
      return holds;
    },
  };
}
