import { homedir } from "node:os";
import type { ConfigReport } from "../config/provenance.js";
import type { Settings } from "../config/settings.js";
import type { WorkspaceTrust } from "../trust/workspace-trust.js";
import type { Workspace } from "../workspace/workspace.js";
import { ALWAYS_ANSWERS_NAME } from "./always-answers.js";
import { type Asker, createHeadlessAsker } from "./asker.js";
import type { CheckContext } from "./checks.js";
import type { RuleSet } from "./evaluate.js";
import { createGrantStore, type Grant, type GrantStore } from "./grants.js";
import { loadPermissionSettings } from "./load.js";
import type { ApprovalMode } from "./modes.js";
import { compileRule, type Rule, type RuleContext, type RuleEntry } from "./rules.js";

/** One session's permission state: the mode, the rules with their files, the grants, the asker. */
export interface SessionPermissions {
  /** Undefined: no policy at all (a library session given no mode and no rules): everything is allowed. */
  readonly mode: ApprovalMode | undefined;
  /** Where the mode came from, for list_permissions. */
  readonly modeSource: string;
  /**
   * The user changes the mode mid-session (the terminal UI's Shift-Tab and /mode): it holds from the
   * next call on, for this session and the worktree agents that inherit it.
   */
  setMode(mode: ApprovalMode, source: string): void;
  /**
   * `permissions.disableBypassPermissionsMode in <file>` when a settings file switched yolo off: the
   * session may not be started or put in yolo (setMode throws), so a UI leaves it out of its choices.
   */
  readonly yoloDisabledBy: string | undefined;
  /**
   * A subagent's own narrower mode (its agent file's `permissionMode`), under the agent that started it:
   * its calls run under the narrowest of the session's mode, its own and its parents' agents'. Never wider.
   */
  narrowAgent(agentId: string, parentId: string, mode: ApprovalMode | undefined): void;
  /** The mode one agent's calls run under ("main": the session's). */
  modeFor(agentId: string): ApprovalMode | undefined;
  readonly asker: Asker;
  readonly workspace: Workspace;
  readonly grants: GrantStore;
  /** Where "yes, always" answers are saved: the user's home, under this folder's real path. */
  readonly alwaysAnswers: { home: string; root: string; shown: string };
  readonly warnings: readonly string[];
  /** Allow rules and modes of workspace files that trust does not cover (listed by list_permissions). */
  readonly ignored: readonly { text: string; origin: string; why: string }[];
  /** The rules as the settings files give them, before compiling (a worktree agent's session inherits them). */
  readonly ruleEntries: readonly RuleEntry[];
  ruleContext(): RuleContext;
  /** What the checks of a call depend on: the workspace, `$HOME` of commands, whether protected files hold. */
  checkContext(): CheckContext;
  rules(): RuleSet;
  ruleErrors(): { entry: RuleEntry; error: string }[];
}

export interface SessionPermissionsOptions {
  workspace: Workspace;
  /** Home folder for `~/.agents/settings.json` and `~/` rules; defaults to the user's. */
  home?: string;
  /** Settings given in place of the `.agents/settings.json` files. */
  settings?: Settings;
  /** Whose workspace files count (an untrusted workspace's allow rules and modes do not). */
  trust: WorkspaceTrust;
  /** Where every rule and mode is recorded, honoured or not (`gantry config`). */
  report?: ConfigReport;
  /** The caller's mode (`--approval-mode`, the library option): wins over every settings file. */
  approvalMode?: ApprovalMode;
  /** The mode when no file names one: the CLI says "default"; a library session without rules has none. */
  fallbackApprovalMode?: ApprovalMode;
  asker?: Asker;
  /** Canonical tool names for the native names and aliases rules use; the registry, once it exists. */
  resolveTool(name: string): string | undefined;
  /** Whether the agent may change its own hooks and settings files (settings `allowAgentConfigEdits`). */
  allowAgentConfigEdits?: boolean;
  /**
   * The parent session's permissions, for a subagent's session in another folder (its worktree): the
   * parent's mode, its rules from every file (origins kept) and its grants hold there unchanged, and no
   * settings file is read. `settings`, `approvalMode` and `fallbackApprovalMode` are ignored then.
   */
  parent?: SessionPermissions;
}

interface ResolvedPolicy {
  mode: ApprovalMode | undefined;
  modeSource: string;
  yoloDisabledBy?: string;
  entries: RuleEntry[];
  ignored: { text: string; origin: string; why: string }[];
  warnings: string[];
}

export function createSessionPermissions(options: SessionPermissionsOptions): SessionPermissions {
  const workspaceRoot = options.workspace.root;
  const parent = options.parent;
  const home = parent?.ruleContext().home ?? options.home ?? homedir();
  const context: RuleContext = { workspaceRoot, home, resolveTool: options.resolveTool };
  const resolved = parent
    ? inheritPolicy(parent, workspaceRoot)
    : resolvePolicy(options, workspaceRoot, home);
  const { entries, ignored, warnings } = resolved;
  let own = { mode: resolved.mode, source: resolved.modeSource };
  const agentModes = createAgentModes();
  const ownGrants = createGrantStore(context);
  const checkContext: CheckContext = {
    workspaceRoot,
    // commands run with Gantry's environment: their `~` is its HOME
    home: process.env.HOME,
    protectedPaths: options.workspace.protectedPaths,
    allowAgentConfigEdits:
      parent?.checkContext().allowAgentConfigEdits ??
      options.allowAgentConfigEdits ??
      options.settings?.allowAgentConfigEdits === true,
    readRulesBind: () => {
      const { deny, ask } = compile().rules;
      return [...deny, ...ask].some((rule) => rule.specifier !== undefined && rule.tools.has("view_file"));
    },
  };

  // compiled on first use: native names and aliases resolve through the registry, built after the tools
  let compiled: { rules: RuleSet; errors: { entry: RuleEntry; error: string }[] } | undefined;
  const compile = () => {
    if (compiled) return compiled;
    const rules: { deny: Rule[]; ask: Rule[]; allow: Rule[] } = { deny: [], ask: [], allow: [] };
    const errors: { entry: RuleEntry; error: string }[] = [];
    for (const entry of entries) {
      const result = compileRule(entry, context);
      if (result.ok) rules[entry.kind].push(result.rule);
      else errors.push({ entry, error: result.error });
    }
    compiled = { rules, errors };
    return compiled;
  };

  return {
    // a worktree agent's session follows its parent's mode as it changes
    get mode() {
      return parent ? parent.mode : own.mode;
    },
    get modeSource() {
      if (!parent) return own.source;
      return parent.mode ? `${parent.modeSource}, as in the parent session` : parent.modeSource;
    },
    setMode(mode, source) {
      if (parent) throw new Error("a worktree agent's approval mode follows its parent session's");
      if (mode === "yolo" && resolved.yoloDisabledBy)
        throw new Error(
          `yolo is switched off by ${resolved.yoloDisabledBy}; choose default, auto-edit or plan`,
        );
      own = { mode, source };
    },
    get yoloDisabledBy() {
      return parent ? parent.yoloDisabledBy : resolved.yoloDisabledBy;
    },
    // a worktree agent's session keeps them where its parent does: the agent's id is the same there
    narrowAgent(agentId, parentId, mode) {
      if (parent) parent.narrowAgent(agentId, parentId, mode);
      else agentModes.narrow(agentId, parentId, mode);
    },
    modeFor(agentId) {
      return parent ? parent.modeFor(agentId) : agentModes.modeFor(own.mode, agentId);
    },
    asker: options.asker ?? createHeadlessAsker(),
    workspace: options.workspace,
    grants: parent ? inheritGrants(parent, ownGrants, context) : ownGrants,
    // "always" answers belong to the parent's workspace, not to a worktree that is removed
    alwaysAnswers: parent?.alwaysAnswers ?? {
      home,
      root: workspaceRoot,
      shown: `~/.agents/${ALWAYS_ANSWERS_NAME}`,
    },
    warnings,
    ignored,
    ruleEntries: entries,
    ruleContext: () => context,
    checkContext: () => checkContext,
    rules: () => compile().rules,
    ruleErrors: () => compile().errors,
  };
}

/** The mode and rules from `--approval-mode`, the settings files (load.ts) and the fallbacks, in that order. */
function resolvePolicy(
  options: SessionPermissionsOptions,
  workspaceRoot: string,
  home: string,
): ResolvedPolicy {
  const loaded = loadPermissionSettings({
    workspaceRoot,
    home,
    settings: options.settings,
    trust: options.trust,
    ...(options.report ? { report: options.report } : {}),
  });
  const policy = {
    entries: loaded.entries,
    ignored: loaded.ignored,
    warnings: loaded.warnings,
    ...(loaded.yoloDisabledBy ? { yoloDisabledBy: loaded.yoloDisabledBy } : {}),
  };
  // a mode the caller asks for is refused outright, the fallback only where it would be used: falling
  // back to another mode would hide the file's choice
  const asked: [ApprovalMode | undefined, string] = options.approvalMode
    ? [options.approvalMode, "--approval-mode yolo"]
    : [loaded.mode ? undefined : options.fallbackApprovalMode, "the default approval mode yolo"];
  if (asked[0] === "yolo" && loaded.yoloDisabledBy)
    throw new Error(
      `${asked[1]} is switched off by ${loaded.yoloDisabledBy}; choose default, auto-edit or plan, or remove the key there`,
    );
  if (options.approvalMode)
    return { ...policy, mode: options.approvalMode, modeSource: "given by the caller (--approval-mode)" };
  if (loaded.mode) return { ...policy, mode: loaded.mode.mode, modeSource: loaded.mode.source };
  if (options.fallbackApprovalMode)
    return { ...policy, mode: options.fallbackApprovalMode, modeSource: "the default" };
  if (loaded.entries.length > 0)
    return { ...policy, mode: "default", modeSource: "the default (rules are configured)" };
  return {
    ...policy,
    mode: undefined,
    modeSource: "none: a library session without rules or approvalMode allows every call",
  };
}

/**
 * A worktree agent's policy is its parent's, never re-read from files: the worktree's own files could
 * differ, and settings merged into one object lose both where a rule came from and which file may not
 * switch on yolo. A `/path` rule of the parent's workspace names the same path in the worktree.
 */
function inheritPolicy(parent: SessionPermissions, workspaceRoot: string): ResolvedPolicy {
  const parentRoot = parent.ruleContext().workspaceRoot;
  return {
    mode: parent.mode,
    modeSource: parent.mode ? `${parent.modeSource}, as in the parent session` : parent.modeSource,
    entries: parent.ruleEntries.map((entry) => ({
      ...entry,
      projectDir: entry.projectDir === parentRoot ? workspaceRoot : entry.projectDir,
    })),
    ignored: [...parent.ignored],
    warnings: [...parent.warnings],
  };
}

/**
 * The parent's grants, as they stand at each call (a grant the user gives later covers the agent
 * too, as it covers an agent in the parent's own folder), compiled for this folder; then this session's own.
 */
function inheritGrants(parent: SessionPermissions, own: GrantStore, context: RuleContext): GrantStore {
  const parentRoot = parent.ruleContext().workspaceRoot;
  const compiled = new WeakMap<Grant, Grant | undefined>();
  const inherited = (grant: Grant): Grant | undefined => {
    if (compiled.has(grant)) return compiled.get(grant);
    const { kind, text, origin, projectDir } = grant.rule;
    const entry = {
      kind,
      text,
      origin,
      projectDir: projectDir === parentRoot ? context.workspaceRoot : projectDir,
    };
    const result = compileRule(entry, context);
    const local = result.ok ? { ...grant, rule: result.rule } : undefined;
    compiled.set(grant, local);
    return local;
  };
  const list = () => [...parent.grants.list().flatMap((grant) => inherited(grant) ?? []), ...own.list()];
  return {
    add: (text, source) => own.add(text, source),
    list,
    rules: () => list().map((grant) => grant.rule),
  };
}

/** From the most to the least that runs without asking; a narrower mode comes first. */
const NARROWEST_FIRST: readonly ApprovalMode[] = ["plan", "default", "auto-edit", "yolo"];

/** Agents' own modes and who started them; an agent inherits every narrowing above it. */
function createAgentModes() {
  const agents = new Map<string, { mode?: ApprovalMode; parentId: string }>();
  return {
    narrow(agentId: string, parentId: string, mode: ApprovalMode | undefined) {
      agents.set(agentId, { parentId, ...(mode ? { mode } : {}) });
    },
    modeFor(session: ApprovalMode | undefined, agentId: string): ApprovalMode | undefined {
      let mode = session;
      const seen = new Set<string>();
      for (let id = agentId; !seen.has(id); ) {
        seen.add(id);
        const agent = agents.get(id);
        if (!agent) break;
        if (agent.mode) mode = narrower(mode, agent.mode);
        id = agent.parentId;
      }
      return mode;
    },
  };
}

/** No policy at all allows everything: any mode an agent asks for is narrower. */
function narrower(a: ApprovalMode | undefined, b: ApprovalMode): ApprovalMode {
  if (a === undefined) return b;
  return NARROWEST_FIRST.indexOf(a) <= NARROWEST_FIRST.indexOf(b) ? a : b;
}
