import { homedir } from "node:os";
import type { Settings } from "../config/settings.js";
import type { Workspace } from "../workspace/workspace.js";
import { type Asker, createHeadlessAsker } from "./asker.js";
import type { RuleSet } from "./evaluate.js";
import { createGrantStore, type GrantStore, localSettingsFile } from "./grants.js";
import { loadPermissionSettings } from "./load.js";
import type { ApprovalMode } from "./modes.js";
import { compileRule, type Rule, type RuleContext, type RuleEntry } from "./rules.js";

/** One session's permission state: the mode, the rules with their files, the grants, the asker. */
export interface SessionPermissions {
  /** Undefined: no policy at all (a library session given no mode and no rules): everything is allowed. */
  readonly mode: ApprovalMode | undefined;
  /** Where the mode came from, for list_permissions. */
  readonly modeSource: string;
  readonly asker: Asker;
  readonly workspace: Workspace;
  readonly grants: GrantStore;
  /** Where "yes, always" answers are saved. */
  readonly localSettingsFile: string;
  readonly warnings: readonly string[];
  ruleContext(): RuleContext;
  rules(): RuleSet;
  ruleErrors(): { entry: RuleEntry; error: string }[];
}

export interface SessionPermissionsOptions {
  workspace: Workspace;
  /** Home folder for `~/.agents/settings.json` and `~/` rules; defaults to the user's. */
  home?: string;
  /** Settings given in place of the `.agents/settings.json` files. */
  settings?: Settings;
  /** The caller's mode (`--approval-mode`, the library option): wins over every settings file. */
  approvalMode?: ApprovalMode;
  /** The mode when no file names one: the CLI says "default"; a library session without rules has none. */
  fallbackApprovalMode?: ApprovalMode;
  asker?: Asker;
  /** Canonical tool names for the native names and aliases rules use; the registry, once it exists. */
  resolveTool(name: string): string | undefined;
}

export function createSessionPermissions(options: SessionPermissionsOptions): SessionPermissions {
  const workspaceRoot = options.workspace.root;
  const home = options.home ?? homedir();
  const loaded = loadPermissionSettings({ workspaceRoot, home, settings: options.settings });
  const context: RuleContext = { workspaceRoot, home, resolveTool: options.resolveTool };
  let mode: ApprovalMode | undefined;
  let modeSource: string;
  if (options.approvalMode)
    [mode, modeSource] = [options.approvalMode, "given by the caller (--approval-mode)"];
  else if (loaded.mode) [mode, modeSource] = [loaded.mode.mode, loaded.mode.source];
  else if (options.fallbackApprovalMode) [mode, modeSource] = [options.fallbackApprovalMode, "the default"];
  else if (loaded.entries.length > 0) [mode, modeSource] = ["default", "the default (rules are configured)"];
  else modeSource = "none: a library session without rules or approvalMode allows every call";

  // compiled on first use: native names and aliases resolve through the registry, built after the tools
  let compiled: { rules: RuleSet; errors: { entry: RuleEntry; error: string }[] } | undefined;
  const compile = () => {
    if (compiled) return compiled;
    const rules: { deny: Rule[]; ask: Rule[]; allow: Rule[] } = { deny: [], ask: [], allow: [] };
    const errors: { entry: RuleEntry; error: string }[] = [];
    for (const entry of loaded.entries) {
      const result = compileRule(entry, context);
      if (result.ok) rules[entry.kind].push(result.rule);
      else errors.push({ entry, error: result.error });
    }
    compiled = { rules, errors };
    return compiled;
  };

  return {
    mode,
    modeSource,
    asker: options.asker ?? createHeadlessAsker(),
    workspace: options.workspace,
    grants: createGrantStore(context),
    localSettingsFile: localSettingsFile(workspaceRoot),
    warnings: loaded.warnings,
    ruleContext: () => context,
    rules: () => compile().rules,
    ruleErrors: () => compile().errors,
  };
}
