import type { Settings } from "../config/settings.js";
import type { ReadLedger } from "../workspace/read-ledger.js";
import type { Workspace } from "../workspace/workspace.js";

/** Session-wide dependencies handed to tool factories (STYLE rule 1: small factories, narrow deps). */
export interface ToolEnvironment {
  workspace: Workspace;
  settings: Settings;
  reads: ReadLedger;
}
