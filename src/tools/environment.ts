import type { AgentInbox } from "../agent/inbox.js";
import type { ArtifactLog } from "../artifacts/artifacts.js";
import type { Settings } from "../config/settings.js";
import type { SessionVariables } from "../hooks/env-file.js";
import type { SessionPermissions } from "../policy/permissions.js";
import type { SkillCatalog } from "../skills/catalog.js";
import type { SubagentHost } from "../subagents/host.js";
import type { ReadLedger } from "../workspace/read-ledger.js";
import type { Workspace } from "../workspace/workspace.js";

/** Cleanup that runs when the session ends (kill processes, remove worktrees, stop timers). */
export interface SessionLifecycle {
  onDispose(cleanup: () => Promise<void> | void): void;
  /** How to count the work a tool family keeps running between turns (a UI's status line shows it). */
  countBackground?(kind: BackgroundKind, count: () => number): void;
}

/** Background commands (run_command past its wait) and active schedules. */
export type BackgroundKind = "tasks" | "schedules";

/** Session-wide dependencies handed to tool factories (STYLE rule 1: small factories, narrow deps). */
export interface ToolEnvironment {
  workspace: Workspace;
  settings: Settings;
  /** The user's home folder as the session knows it (tests give a temp folder); default: the real one. */
  home?: string;
  reads: ReadLedger;
  /** Where schedules and background agents deliver messages for the agent's next turn. */
  inbox: AgentInbox;
  lifecycle: SessionLifecycle;
  /**
   * Whether editing an existing file needs an earlier read in this session (default true). A one-shot
   * `gantry tool` call sets false: nothing can have been read before it; the edit tools then still
   * check that the file did not change between their own read and their write.
   */
  requireReadBeforeEdit?: boolean;
  /** Rules, grants, approval mode and the asker (src/policy): for list_permissions, ask_permission, ask_question. */
  permissions?: SessionPermissions;
  /** Subagent types and running agents (src/subagents): for the agent tools. */
  subagents?: SubagentHost;
  /** Environment variables API keys are read from (default process.env). */
  variables?: Record<string, string | undefined>;
  /** The conversation's model, for tools that use the provider's own services (search_web's `model` backend). */
  conversationModel?: { model?: string; baseUrl?: string };
  /** The session's artifacts (write_to_file with ArtifactMetadata, generate_image). */
  artifacts?: ArtifactLog;
  /** The skills discovered for the session: view_file's IsSkillFile reads inside their folders. */
  skills?: SkillCatalog;
  /** An editor's open files (ACP `fs/read_text_file`): view_file shows their unsaved text. */
  editorFiles?: EditorFiles;
  /** What SessionStart hooks set for the session's commands (CLAUDE_ENV_FILE). */
  sessionVariables?: SessionVariables;
}

/**
 * Text an editor holds for a file, unsaved changes included; undefined when it has none to give
 * (the file is read from disk then). Only asked after the workspace guard admitted the path.
 */
export interface EditorFiles {
  /** The editor's text of a file (ACP `fs/read_text_file`); absent when the editor does not offer it. */
  readText?(absPath: string, signal: AbortSignal): Promise<string | undefined>;
  /**
   * Hands an edit's new text to the editor (ACP `fs/write_text_file`), so its buffer shows it and it
   * saves it; only after the guard, the policy and the stale-read check admitted the write.
   */
  writeText?(absPath: string, text: string, signal: AbortSignal): Promise<void>;
}
