import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { type AgentInbox, createAgentInbox } from "./agent/inbox.js";
import { type ArtifactLog, createArtifactLog } from "./artifacts/artifacts.js";
import { loadSessionSettings } from "./config/load.js";
import { type ConfigReport, createConfigReport, ignoredNotices } from "./config/provenance.js";
import type { Settings } from "./config/settings.js";
import { withPermissionHooks } from "./hooks/asker-hooks.js";
import { type HookConfig, type HookGroup, loadHookConfig } from "./hooks/config.js";
import { createSessionVariables } from "./hooks/env-file.js";
import type { SessionIdentity } from "./hooks/events.js";
import { createSessionHooks, type SessionHooks } from "./hooks/lifecycle.js";
import { createHookRuntime } from "./hooks/runtime.js";
import { createHookStep, loadSessionHookConfig } from "./hooks/step.js";
import type { McpManager } from "./mcp/manager.js";
import { openSessionMcp } from "./mcp/session-mcp.js";
import { type Asker, createHeadlessAsker } from "./policy/asker.js";
import { createConsentStep } from "./policy/consent-step.js";
import { createHookConditions } from "./policy/hook-condition.js";
import type { ApprovalMode } from "./policy/modes.js";
import { createSessionPermissions, type SessionPermissions } from "./policy/permissions.js";
import { createPolicyStep } from "./policy/policy-step.js";
import { randomUuid } from "./session/random-ids.js";
import { lazySkillCatalog, type SkillCatalog } from "./skills/catalog.js";
import { createAgentJudge } from "./subagents/hook-judge.js";
import { createSubagentHost, type SubagentHost } from "./subagents/host.js";
import type { RemoteAgents } from "./subagents/remote.js";
import { createBuiltinTools } from "./tools/builtin.js";
import type { AnyTool } from "./tools/contract.js";
import type { BackgroundKind, EditorFiles, SessionLifecycle } from "./tools/environment.js";
import { createToolPipeline, type ToolPipeline } from "./tools/pipeline.js";
import { createToolRegistry, type ToolRegistry } from "./tools/registry.js";
import { scriptsOfHooks } from "./trust/covered.js";
import { sessionTrust, type TrustOption } from "./trust/session-trust.js";
import { printable } from "./trust/shown-value.js";
import type { WorkspaceTrust } from "./trust/workspace-trust.js";
import { PROTECTED_CONFIG_FOLDERS } from "./workspace/protected.js";
import { createReadLedger, type ReadLedger } from "./workspace/read-ledger.js";
import { openWorkspace, type Workspace } from "./workspace/workspace.js";

export interface GantryOptions {
  /** The workspace folder; defaults to the current directory. */
  workspace?: string;
  /** Settings to use instead of the files in ~/.agents and <workspace>/.agents (counted as the user's). */
  settings?: Settings;
  /**
   * Whether the workspace's own configuration counts (SPEC §5a). Untrusted (the default), it may only
   * narrow: its hooks, allow rules, model and endpoint settings and anything that loosens a guard are
   * ignored, and `session.config` says what. `true` trusts it as it is; `"recorded"` follows the user's
   * decision (`gantry trust`); a WorkspaceTrust is a decision made elsewhere (a parent session's).
   */
  trust?: TrustOption;
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
  /**
   * MCP servers by name, as in `.mcp.json` (`command`/`args`/`env`, or `url`/`headers`), counted as the
   * user's; the servers of the configuration files (src/mcp/sources.ts) come as well.
   */
  mcpServers?: Record<string, unknown>;
  /**
   * The conversation's model (`--model`, `--base-url`), for tools that use the provider's own services
   * (search_web's `model` backend); default: `model` and `baseUrl` of settings.
   */
  model?: string;
  baseUrl?: string;
  /** Environment variables API keys are read from (default process.env). */
  variables?: Record<string, string | undefined>;
  /** The caller's own tools (createAgent `tools`), registered beside the built-in ones, run through the pipeline. */
  tools?: readonly AnyTool[];
  /** The caller's own hook groups (createAgent `hooks`), after the files' hooks; they always count. */
  hookGroups?: readonly HookGroup[];
  /** An editor's open files (ACP): view_file reads their unsaved text. */
  editorFiles?: EditorFiles;
  /** What the agent has read, for stale-edit checks; a durable session passes one it can list and restore. */
  readLedger?: ReadLedger;
  /** Where foreground subagents run when not in this process (a durable session: their own invocations). */
  remoteAgents?: RemoteAgents;
}

export interface BackgroundWork {
  tasks: number;
  schedules: number;
  agents: number;
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
  /** Whether the workspace is trusted, and how that was decided. */
  trust: WorkspaceTrust;
  /** Every configuration value with its file, honoured or not and why (`gantry config`). */
  config: ConfigReport;
  /** One line per file whose values were ignored, and the warnings of the configuration (unknown keys…). */
  configNotices(): string[];
  /** Subagent types and running agents; `subagents.bind(...)` gives them the model (src/subagents/host.ts). */
  subagents: SubagentHost;
  /** The lifecycle hooks (session start and end, prompts, stops, ...); the pipeline runs the tool hooks. */
  hooks: SessionHooks;
  /**
   * The MCP servers (none started yet): `mcp.startMain()` before the first model turn registers their
   * tools; a subagent that names a subagent-only server's tools starts it (src/mcp/manager.ts).
   */
  mcp: McpManager;
  /** The skills of the home and the workspace (`gantry skills`), for the system prompt and IsSkillFile. */
  skills: SkillCatalog;
  /** The documents and images the session's tools recorded as artifacts (a resumed session adds its earlier ones). */
  artifacts: ArtifactLog;
  /** Ends everything the session started (processes, timers, worktrees). Safe to call twice. */
  /**
   * Names the session to hooks once its log is open: `session_id` and `transcript_path` in the event
   * JSON (Claude Code, Gemini CLI). Until then hooks see a random id and an empty path.
   */
  identify(identity: SessionIdentity): void;
  /**
   * Reads the hook files again and makes them the session's snapshot (the user's `/reload-hooks`);
   * a broken configuration throws and the old snapshot stays. Returns the new snapshot, and one line per
   * file whose hooks trust keeps out (changed since the folder was trusted, or never trusted).
   */
  reloadHooks(): HookConfig & { ignored: string[] };
  /** What runs between turns: background commands, active schedules, background agents. */
  backgroundWork(): BackgroundWork;
  dispose(): Promise<void>;
}

export function createGantrySession(options: GantryOptions = {}): GantrySession {
  const home = options.home ?? homedir();
  const root = realWorkspaceRoot(options.workspace ?? process.cwd());
  const report = createConfigReport();
  const trust = sessionTrust(root, home, options.trust, (line) => report.warnings.push(line));
  const loaded = loadSessionSettings({ root, home, trust, given: options.settings, report });
  const settings: Settings =
    options.sandbox === undefined
      ? loaded.settings
      : { ...loaded.settings, sandbox: { ...loaded.settings.sandbox, enabled: options.sandbox } };
  // Hooks are a snapshot, read once: the agent editing hooks.json mid-session changes nothing, and
  // subagent sessions (worktrees) inherit it, so their calls cannot escape the user's hooks.
  const allHooks = options.hookConfig ?? loadHookConfig(root, home);
  const fileHooks =
    options.hookConfig ?? loadSessionHookConfig(root, { home, trust, report, loaded: allHooks });
  const hookConfig = withGroups(fileHooks, options.hookGroups);
  const workspace = openWorkspace(root, {
    limits: settings.limits,
    secrets: loaded.secrets.user,
    ...(loaded.secrets.workspace ? { workspaceSecrets: loaded.secrets.workspace } : {}),
    // a script a hook names is protected before it exists: the agent creating it would run code unsandboxed
    protectedPaths: [
      ...scriptsOfHooks(allHooks, root, { includeMissing: true, home }),
      ...userConfigFolders(home),
    ],
  });
  const inbox = createAgentInbox();
  const skills = lazySkillCatalog({ root, home });
  const artifacts = createArtifactLog();
  const identity: SessionIdentity = options.identity ?? { sessionId: randomUuid(), transcriptPath: "" };
  const cleanups: (() => Promise<void> | void)[] = [];
  const backgroundCounts = new Map<BackgroundKind, () => number>();
  const lifecycle: SessionLifecycle = {
    onDispose: (cleanup) => void cleanups.push(cleanup),
    countBackground: (kind, count) => void backgroundCounts.set(kind, count),
  };

  let registryForRules: ToolRegistry | undefined;
  let permissionsForHooks: SessionPermissions | undefined;
  let hookConditions: ReturnType<typeof createHookConditions> | undefined;
  const conditionsFor = (permissions: SessionPermissions, registry: ToolRegistry) => {
    hookConditions ??= createHookConditions(permissions, (name) => registry.lookup(name));
    return hookConditions;
  };
  // the `env` setting and what SessionStart hooks write to CLAUDE_ENV_FILE, for the session's commands
  const sessionVariables = createSessionVariables(settings.env);
  const hookRuntime = createHookRuntime({
    sessionVariables,
    // the `env` setting reaches hooks too, as Claude Code's does
    ...(settings.env && Object.keys(settings.env).length > 0
      ? { env: { ...process.env, ...settings.env } }
      : {}),
    inbox,
    config: hookConfig,
    workspaceRoot: workspace.root,
    identity,
    approvalMode: () => permissionsForHooks?.mode,
    // prompt hooks ask the model subagents would get: the session's, a tier or a provider:model
    judgeModel: (model) => subagents.modelFor(model),
    // agent hooks' judges read through this session's pipeline, attached below
    judgeAgent: createAgentJudge(() => subagents.pipeline),
    // Claude Code's `if` on a handler, matched as the policy matches rules (both exist by the first call)
    conditionMatches: (condition, call) =>
      permissionsForHooks && registryForRules
        ? conditionsFor(permissionsForHooks, registryForRules)(condition, call)
        : Promise.resolve(false),
  });
  const hooks = createSessionHooks(hookRuntime);
  const toolNames = (name: string) => {
    const spec = registryForRules?.lookup(name)?.spec;
    return spec ? { name: spec.name, aliases: spec.aliases ?? [] } : undefined;
  };
  const permissions = createSessionPermissions({
    workspace,
    home: options.home,
    settings: options.settings,
    trust,
    report,
    approvalMode: options.approvalMode,
    fallbackApprovalMode: options.defaultApprovalMode,
    asker: withPermissionHooks(options.asker ?? createHeadlessAsker(), hooks, toolNames),
    allowAgentConfigEdits: settings.allowAgentConfigEdits === true,
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
      trust,
      asker: undefined,
      hookConfig,
      hookGroups: undefined, // already in hookConfig
      identity,
      parentPermissions: permissions,
      readLedger: undefined,
    });
  permissionsForHooks = permissions;
  const subagents = createSubagentHost({
    workspace,
    settings,
    home,
    trust,
    inbox,
    lifecycle,
    openSession,
    hooks,
    skills,
    permissions,
    ...(options.remoteAgents ? { remote: options.remoteAgents } : {}),
  });
  const registry = createToolRegistry(
    createBuiltinTools({
      subagents,
      permissions,
      workspace,
      settings,
      home: options.home,
      reads: options.readLedger ?? createReadLedger(),
      inbox,
      lifecycle,
      requireReadBeforeEdit: options.requireReadBeforeEdit,
      skills,
      artifacts,
      sessionVariables,
      conversationModel: {
        model: options.model ?? settings.model,
        baseUrl: options.baseUrl ?? settings.baseUrl,
      },
      ...(options.variables ? { variables: options.variables } : {}),
      ...(options.editorFiles ? { editorFiles: options.editorFiles } : {}),
    }),
  );
  for (const tool of options.tools ?? []) {
    const taken = [tool.spec.name, ...(tool.spec.aliases ?? [])].find((name) => registry.lookup(name));
    if (taken)
      throw new Error(
        `your tool "${taken}" has the name of a ${registry.lookup(taken)?.spec.name === taken ? "built-in tool" : `built-in tool's alias (${registry.lookup(taken)?.spec.name})`}; give it another name`,
      );
    registry.register(tool);
  }
  registryForRules = registry;
  const disabled = settings.tools?.disabled ?? [];
  const mcp = openSessionMcp({
    root,
    home,
    trust,
    report,
    registry,
    disabled,
    ...(options.mcpServers
      ? { given: options.mcpServers }
      : options.settings?.mcpServers
        ? { given: options.settings.mcpServers }
        : {}),
    settingsGiven: options.settings !== undefined,
    // a server's forms go to the user who answers this session's asks (none headless)
    ...(options.asker ? { asker: options.asker } : {}),
  });
  lifecycle.onDispose(() => mcp.close());
  subagents.mcp = mcp;
  chooseTools(registry, settings.tools);
  const hookStep = createHookStep({
    runtime: hookRuntime,
    workspaceRoot: workspace.root,
    config: hookConfig,
  });
  const pipeline = createToolPipeline({
    registry,
    maxOutputChars: workspace.limits.maxOutputChars,
    hooks: hookStep,
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
    trust,
    config: report,
    // the lines name keys and values of workspace files: escaped, they cannot drive the user's terminal
    // two loaders reading one file name the same broken value in the same words: said once
    configNotices: () => [...new Set([...report.warnings, ...ignoredNotices(report)])].map(printable),
    subagents,
    hooks,
    mcp,
    skills,
    artifacts,
    reloadHooks() {
      const reloaded = createConfigReport();
      // decided again: a decision recorded since (`gantry trust`) counts, a file changed since does not
      const current = typeof options.trust === "object" ? trust : sessionTrust(root, home, options.trust);
      const next = withGroups(
        loadSessionHookConfig(workspace.root, { home, trust: current, report: reloaded }),
        options.hookGroups,
      );
      hookRuntime.reload(next);
      return { ...next, ignored: ignoredNotices(reloaded) };
    },
    backgroundWork: () => ({
      tasks: backgroundCounts.get("tasks")?.() ?? 0,
      schedules: backgroundCounts.get("schedules")?.() ?? 0,
      agents: subagents.agents.list().filter((agent) => agent.background && agent.state === "running").length,
    }),
    identify(given) {
      identity.sessionId = given.sessionId;
      identity.transcriptPath = given.transcriptPath;
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      await hooks.settled();
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

/** `tools.disabled` switches tools off; `tools.only` keeps just the tools it names (a chosen set). */
function chooseTools(registry: ToolRegistry, tools: Settings["tools"]): void {
  // an MCP tool exists only once its server has started: it is switched off when it is registered
  const later = (name: string) => name.startsWith("mcp__") && !registry.lookup(name);
  const check = (key: string, name: string) => {
    if (!registry.lookup(name)) throw new Error(`settings tools.${key} names an unknown tool "${name}"`);
  };
  for (const name of tools?.disabled ?? []) {
    if (later(name)) continue;
    check("disabled", name);
    registry.setEnabled(name, false);
  }
  if (!tools?.only) return;
  for (const name of tools.only) if (!later(name)) check("only", name);
  const kept = new Set(tools.only.map((name) => registry.lookup(name)?.spec.name));
  for (const tool of registry.all())
    if (!kept.has(tool.spec.name)) registry.setEnabled(tool.spec.name, false);
}

function withGroups(config: HookConfig, groups: readonly HookGroup[] | undefined): HookConfig {
  return groups && groups.length > 0 ? { ...config, groups: [...config.groups, ...groups] } : config;
}

function realWorkspaceRoot(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    throw new Error(`workspace folder "${folder}" does not exist`);
  }
}

/**
 * The user's own config folders: a sandboxed command given write access to the home still may not change
 * them. Also those that do not exist yet: a `~/.claude/settings.json` the agent creates would hold hooks
 * every later session runs as the user's own.
 */
function userConfigFolders(home: string): string[] {
  return PROTECTED_CONFIG_FOLDERS.map((folder) => path.join(home, folder));
}
