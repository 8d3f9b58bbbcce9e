import type { AgentInbox } from "../agent/inbox.js";
import type { Settings } from "../config/settings.js";
import type { ReadLedger } from "../workspace/read-ledger.js";
import type { Workspace } from "../workspace/workspace.js";

/** Cleanup that runs when the session ends (kill processes, remove worktrees, stop timers). */
export interface SessionLifecycle {
  onDispose(cleanup: () => Promise<void> | void): void;
}

/** Session-wide dependencies handed to tool factories (STYLE rule 1: small factories, narrow deps). */
export interface ToolEnvironment {
  workspace: Workspace;
  settings: Settings;
  reads: ReadLedger;
  /** Where schedules and background agents deliver messages for the agent's next turn. */
  inbox: AgentInbox;
  lifecycle: SessionLifecycle;
}
