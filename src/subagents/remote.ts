import type { ToolErrorCode } from "../tools/contract.js";
import type { SubagentHost } from "./host.js";
import type { RunOutcome, SpawnRequest, SpawnResult } from "./spawn.js";
import { FORK_TYPE } from "./types.js";

/** What an agent run elsewhere came back with: its outcome, or why it did not start. */
export type RemoteOutcome =
  | { ok: true; outcome: RunOutcome }
  | { ok: false; code: ToolErrorCode; message: string };

/**
 * Runs foreground agents outside this process (a durable session: each is its own Restate invocation,
 * src/durable/). The agent type, its tools and its model are resolved where it runs, by startAgent.
 */
export interface RemoteAgents {
  run(request: SpawnRequest): Promise<RemoteOutcome>;
}

/** Why a request cannot run elsewhere, or undefined when it can. */
function remoteRefusal(request: SpawnRequest): string | undefined {
  if (request.background)
    return "background agents need a live process to report back to, and a durable session has none between its steps: run it in the foreground (run_in_background: false); its report is then this call's result";
  if (request.type === FORK_TYPE)
    return "a fork continues the parent's conversation in the parent's process; in a durable session start a named type (e.g. \"general-purpose\") and put the context it needs in the prompt";
  if (request.isolation || request.workingDir)
    return "isolation and working_dir name folders of one machine; in a durable session an agent runs in its own checkout of the session's workspace on any worker, and its changes come back to this workspace";
  return undefined;
}

/**
 * startAgent for a host whose foreground agents run elsewhere. `remote.run` is called before anything
 * is awaited, so the agents one call starts are handed to it in the order of the call's arguments.
 */
export async function startRemoteAgent(
  host: SubagentHost,
  remote: RemoteAgents,
  request: SpawnRequest,
): Promise<SpawnResult> {
  const refusal = remoteRefusal(request);
  if (refusal) return { ok: false, code: "unavailable", message: refusal };
  const ran = await remote.run(request);
  if (!ran.ok) return ran;
  const { outcome } = ran;
  const record = {
    id: outcome.id,
    type: request.type,
    description: request.description,
    parentId: request.callerId,
    depth: 1,
    background: false,
    state: outcome.state,
    startedAt: Date.now(),
    endedAt: Date.now(),
    result: outcome.text,
    ...(outcome.error ? { error: outcome.error } : {}),
    controller: new AbortController(),
    settled: Promise.resolve(),
  };
  host.agents.add(record);
  return { ok: true, record, finished: Promise.resolve(outcome) };
}
