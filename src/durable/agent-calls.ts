import { AsyncLocalStorage } from "node:async_hooks";
import type { RemoteAgents, RemoteOutcome } from "../subagents/remote.js";
import type { SpawnRequest } from "../subagents/spawn.js";
import type { SessionSnapshot } from "./session-sync.js";

/** What a subagent invocation answers its parent: the agent's outcome and the workspace it left. */
export interface SubagentAnswer {
  result: RemoteOutcome;
  /** The child's workspace at its end (the parent's changes and its own); absent when it did not start. */
  snapshot?: SessionSnapshot;
}

/** Starts the subagents one call asked for, each as its own invocation, and waits for their answers. */
export interface SubagentChannel {
  call(requests: SpawnRequest[]): Promise<SubagentArrival[]>;
}

/** An answer as it reached the parent, with the workspace the parent sent (to tell the child's own changes). */
export interface SubagentArrival extends SubagentAnswer {
  sent?: SessionSnapshot;
}

/** The outcomes one journaled execution of a call may use, in order, and the agents it still needs. */
interface AgentScope {
  outcomes: RemoteOutcome[];
  taken: number;
  requests: SpawnRequest[];
}

const scopes = new AsyncLocalStorage<AgentScope>();

/** Runs one call's pipeline with the agent outcomes it already has; an agent without one is recorded. */
export async function withAgentOutcomes<T>(
  outcomes: RemoteOutcome[],
  run: () => Promise<T>,
): Promise<{ value: T; requests: SpawnRequest[] }> {
  const scope: AgentScope = { outcomes, taken: 0, requests: [] };
  const value = await scopes.run(scope, run);
  return { value, requests: scope.requests };
}

const WAITING = "the agent was recorded; the call runs again with its report once its invocation ends";

/**
 * The durable session's remote runner: inside a journaled call it hands out the outcomes that call already
 * got; an agent without one marks the call as needing it (its result is then discarded), so the agent
 * runs outside the step, as a durable call to its own invocation, on any worker.
 */
export function createDurableAgents(): RemoteAgents {
  return {
    async run(request) {
      const scope = scopes.getStore();
      if (!scope)
        return { ok: false, code: "unavailable", message: "agent started outside a journaled call" };
      const ready = scope.outcomes[scope.taken++];
      if (ready) return ready;
      scope.requests.push(JSON.parse(JSON.stringify(request)) as SpawnRequest);
      return { ok: false, code: "unavailable", message: WAITING };
    },
  };
}
