import { createGantrySession, type GantrySession } from "../gantry.js";
import type { ApprovalMode } from "../policy/modes.js";
import type { RemoteAgents } from "../subagents/remote.js";
import { createDurableAsker } from "./asks.js";
import type { WorkerEnv } from "./context.js";
import { createListedReadLedger } from "./session-sync.js";

/**
 * Tools that need a live process between steps (timers, background agents and the tools that steer
 * them): not offered in a durable session. Foreground `agent` and `invoke_subagent` stay: each agent
 * runs as its own invocation (run-subagent.ts).
 */
const IN_PROCESS_TOOLS = ["schedule", "define_subagent", "send_message", "list_agents", "manage_subagents"];

/** A subagent's session has no agent tools: its agents would nest outside any depth limit. */
const AGENT_TOOLS = ["agent", "invoke_subagent"];

export interface DurableSessionOptions {
  sessionId: string;
  root: string;
  trust?: boolean;
  approvalMode?: ApprovalMode;
  model?: string;
  baseUrl?: string;
  /** Given, foreground agents run as their own invocations; absent (a subagent), agent tools are off. */
  remoteAgents?: RemoteAgents;
}

export type DurableSession = GantrySession & { ledger: ReturnType<typeof createListedReadLedger> };

/** The same session as `gantry -p` opens, with durable asks and a read ledger a snapshot can list. */
export function openDurableSession(worker: WorkerEnv, options: DurableSessionOptions): DurableSession {
  const ledger = createListedReadLedger();
  const session = createGantrySession({
    workspace: options.root,
    home: worker.home,
    // SPEC §5a: a checked-out repository is somebody else's configuration unless the submitter vouches for it
    trust: options.trust ? { trustedBy: "gantry submit --trust" } : false,
    defaultApprovalMode: "default",
    ...(options.approvalMode ? { approvalMode: options.approvalMode } : {}),
    asker: createDurableAsker(),
    readLedger: ledger,
    // search_web's `model` backend and generate_image use the prompt's provider
    ...(options.model ? { model: options.model } : {}),
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    ...(options.remoteAgents ? { remoteAgents: options.remoteAgents } : {}),
  });
  session.identify({ sessionId: options.sessionId, transcriptPath: "" });
  for (const line of session.configNotices()) worker.log(`session ${options.sessionId}: ${line}`);
  const off = options.remoteAgents ? IN_PROCESS_TOOLS : [...IN_PROCESS_TOOLS, ...AGENT_TOOLS];
  for (const name of off) if (session.registry.lookup(name)) session.registry.setEnabled(name, false);
  return Object.assign(session, { ledger });
}
