import { randomUUID } from "node:crypto";
import { type AgentInbox, createAgentInbox } from "./agent/inbox.js";
import { loadSettings, type Settings } from "./config/settings.js";
import type { HookConfig } from "./hooks/config.js";
import type { SessionIdentity } from "./hooks/events.js";
import { createHookStep, loadSessionHookConfig } from "./hooks/step.js";
import type { Asker } from "./policy/asker.js";
import { createConsentStep } from "./policy/consent-step.js";
import type { ApprovalMode } from "./policy/modes.js";
import { createSessionPermissions, type SessionPermissions } from "./policy/permissions.js";
import { createPolicyStep } from "./policy/policy-step.js";
import { createSubagentHost, type SubagentHost } from "./subagents/host.js";
import { createBuiltinTools } from "./tools/builtin.js";
import { createToolPipeline, type ToolPipeline } from "./tools/pipeline.js";
import { createToolRegistry, type ToolRegistry } from "./tools/registry.js";
import { createReadLedger } from "./workspace/read-ledger.js";
import { openWorkspace, type Workspace } from "./workspace/workspace.js";

export interface GantryOptions {
  /** The workspace folder; defaults to the current directory. */
  workspace?: string;
  /** Settings to use instead of the files in ~/.agents and <workspace>/.agents. */
  settings?: Settings;
  /** Home folder for user-level configuration (tests point it at a temp folder). */
  home?: string;
  /** Runs commands in the sandbox (true) or not (false), whatever settings say (`--sandbox`). */
  sandbox?: boolean;
  /** false for a one-shot `gantry tool` call: edits need no earlier view_file (see ToolEnvironment). */
  requireReadBeforeEdit?: boolean;
  /** `--approval-mode`: how much runs without asking; wins over `approvalMode` in settings. */
  approvalMode?: ApprovalMode;
  /**
   * The mode when neither `approvalMode` nor a settings file names one. The CLI passes "default".
   * Left out, a library session with no permission rules has no policy (every call allowed, as
   * before permissions existed): embedders opt in with `approvalMode`, rules or this option.
   */
  defaultApprovalMode?: ApprovalMode;
  /** Who answers permission asks and ask_question: a terminal, a callback, or headless (the default). */
  asker?: Asker;
  /** The hooks snapshot to use instead of reading the files (subagent sessions inherit their parent's). */
  hookConfig?: HookConfig;
  /** Who the session is to hooks (a worktree agent's session shares its parent's); see `identify`. */
  identity?: SessionIdentity;
  /**
   * The parent session's permissions, for a subagent's session in its worktree: the parent's approval
   * mode, rules (with their files) and grants hold there as they are, and no settings file is read for
   * them (`approvalMode` and `defaultApprovalMode` are ignored then).
   */
  parentPermissions?: SessionPermissions;
}

/** One Gantry session's tools: the workspace guard, the registry and the one pipeline. */
export interface GantrySession {
  workspace: Workspace;
  settings: Settings;
  registry: ToolRegistry;
  pipeline: ToolPipeline;
  inbox: AgentInbox;
  /** Approval mode, rules, grants and the asker. */
  permissions: SessionPermissions;
  /** Subagent types and running agents; `subagents.bind(...)` gives them the model (src/subagents/host.ts). */
  subagents: SubagentHost;
  /** Ends everything the session started (processes, timers, worktrees). Safe to call twice. */
  /**
   * Names the session to hooks once its log is open: `session_id` and `transcript_path` in the event
   * JSON (Claude Code, Gemini CLI). Until then hooks see a random id and an empty path.
   */
  identify(identity: SessionIdentity): void;
  /**
   * Reads the hook files again and makes them the session's snapshot (the user's `/reload-hooks`);
   * a broken configuration throws and the old snapshot stays. Returns the new snapshot.
   */
  reloadHooks(): HookConfig;
  dispose(): Promise<void>;
}

export function createGantrySession(options: GantryOptions = {}): GantrySession {
  const root = options.workspace ?? process.cwd();
  const loaded = options.settings ?? loadSettings(root, options.home);
  const settings: Settings =
    options.sandbox === undefined
      ? loaded
      : { ...loaded, sandbox: { ...loaded.sandbox, enabled: options.sandbox } };
  const workspace = openWorkspace(root, { limits: settings.limits, secrets: settings.secrets });
  // Hooks are a snapshot, read once: the agent editing hooks.json mid-session changes nothing, and
  // subagent sessions (worktrees) inherit it, so their calls cannot escape the user's hooks.
  const hookConfig = options.hookConfig ?? loadSessionHookConfig(workspace.root, options.home);
  const inbox = createAgentInbox();
  const identity: SessionIdentity = options.identity ?? { sessionId: randomUUID(), transcriptPath: "" };
  const cleanups: (() => Promise<void> | void)[] = [];
  const lifecycle = { onDispose: (cleanup: () => Promise<void> | void) => void cleanups.push(cleanup) };

  let registryForRules: ToolRegistry | undefined;
  const permissions = createSessionPermissions({
    workspace,
    home: options.home,
    settings: options.settings,
    approvalMode: options.approvalMode,
    fallbackApprovalMode: options.defaultApprovalMode,
    asker: options.asker,
    resolveTool: (name) => registryForRules?.lookup(name)?.spec.name,
    ...(options.parentPermissions ? { parent: options.parentPermissions } : {}),
  });
  // agents in a worktree get a session there with these settings, held to this session's permissions
  // (settings merged into one object would lose which file may raise the mode and each rule's file),
  // and never ask the user
  const openSession = (folder: string) =>
    createGantrySession({
      ...options,
      workspace: folder,
      settings,
      asker: undefined,
      hookConfig,
      identity,
      parentPermissions: permissions,
    });
  const subagents = createSubagentHost({
    workspace,
    settings,
    home: options.home,
    inbox,
    lifecycle,
    openSession,
  });
  const registry = createToolRegistry(
    createBuiltinTools({
      subagents,
      permissions,
      workspace,
      settings,
      reads: createReadLedger(),
      inbox,
      lifecycle,
      requireReadBeforeEdit: options.requireReadBeforeEdit,
    }),
  );
  registryForRules = registry;
  for (const name of settings.tools?.disabled ?? []) {
    if (!registry.lookup(name)) throw new Error(`settings tools.disabled names an unknown tool "${name}"`);
    registry.setEnabled(name, false);
  }
  const hooks = createHookStep({ config: hookConfig, workspaceRoot: workspace.root, identity });
  const pipeline = createToolPipeline({
    registry,
    maxOutputChars: workspace.limits.maxOutputChars,
    hooks,
    policy: createPolicyStep(permissions),
    consent: createConsentStep(permissions),
  });
  subagents.attach(pipeline);

  let disposed = false;
  return {
    workspace,
    settings,
    registry,
    pipeline,
    inbox,
    permissions,
    subagents,
    reloadHooks() {
      const next = loadSessionHookConfig(workspace.root, options.home);
      hooks.reload(next);
      return next;
    },
    identify(given) {
      identity.sessionId = given.sessionId;
      identity.transcriptPath = given.transcriptPath;
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      const failures: unknown[] = [];
      for (const cleanup of cleanups.reverse()) {
        try {
          await cleanup();
        } catch (cause) {
          failures.push(cause);
        }
      }
      if (failures.length > 0) throw new AggregateError(failures, "session cleanup failed");
    },
  };
}
