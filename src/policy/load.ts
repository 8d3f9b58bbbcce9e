import { homedir } from "node:os";
import path from "node:path";
import { z } from "zod";
import { readJsonFile, type Settings } from "../config/settings.js";
import { localSettingsFile } from "./grants.js";
import { type ApprovalMode, parseApprovalMode } from "./modes.js";
import type { RuleEntry, RuleKind } from "./rules.js";
import { PermissionsSchema } from "./schema.js";

const RULE_KINDS: RuleKind[] = ["deny", "ask", "allow"];

interface SettingsFileRole {
  file: string;
  /** `.agents` files carry `approvalMode`; `.claude` files only `permissions`. */
  native: boolean;
  /** Files inside the workspace may not switch on yolo: a cloned repository must not disarm the user. */
  inWorkspace: boolean;
}

export interface LoadedPermissions {
  entries: RuleEntry[];
  /** The approval mode the files name, and the file that named it. */
  mode?: { mode: ApprovalMode; source: string };
  warnings: string[];
}

export interface LoadOptions {
  workspaceRoot: string;
  home?: string;
  /** Settings given in place of the `.agents/settings.json` files (the library's `settings` option). */
  settings?: Settings;
}

/**
 * Rules from every file are combined, never replaced: home and workspace `.agents/settings.json`,
 * `.agents/settings.local.json` (where "always" answers are saved), `.claude/settings.json` and
 * `.claude/settings.local.json`. A file with a broken `permissions` section is an error naming the file.
 */
export function loadPermissionSettings(options: LoadOptions): LoadedPermissions {
  const home = options.home ?? homedir();
  const root = options.workspaceRoot;
  const loaded: LoadedPermissions = { entries: [], warnings: [] };
  const sources = settingsSources(options, home, root);
  let fromApprovalMode: LoadedPermissions["mode"];
  let fromDefaultMode: LoadedPermissions["mode"];
  for (const { role, raw } of sources) {
    if (raw === undefined) continue;
    const section = readSection(role.file, raw);
    const projectDir = role.inWorkspace ? root : role.file === "settings given to Gantry" ? root : home;
    const shown = displayName(role.file, root, home);
    for (const kind of RULE_KINDS) {
      for (const text of section.permissions?.[kind] ?? [])
        loaded.entries.push({ kind, text, origin: shown, projectDir });
    }
    const approval = role.native ? section.approvalMode : undefined;
    const mode = pickMode(approval, `approvalMode in ${shown}`, role, loaded.warnings);
    if (mode) fromApprovalMode = mode;
    const claudeMode = pickMode(
      section.permissions?.defaultMode,
      `permissions.defaultMode in ${shown}`,
      role,
      loaded.warnings,
    );
    if (claudeMode) fromDefaultMode = claudeMode;
  }
  loaded.mode = fromApprovalMode ?? fromDefaultMode;
  return loaded;
}

/**
 * Home first, then the workspace: later files name the mode; rules add up. `~/.claude/settings.json`
 * is not read: user-wide rules go in `~/.agents/settings.json` (same syntax), so a library session
 * never picks up a policy from another tool's global configuration.
 */
function settingsSources(
  options: LoadOptions,
  home: string,
  root: string,
): { role: SettingsFileRole; raw: unknown }[] {
  const roles: SettingsFileRole[] = [];
  if (!options.settings)
    roles.push({ file: path.join(home, ".agents", "settings.json"), native: true, inWorkspace: false });
  if (!options.settings)
    roles.push({ file: path.join(root, ".agents", "settings.json"), native: true, inWorkspace: true });
  roles.push({ file: localSettingsFile(root), native: true, inWorkspace: true });
  roles.push({ file: path.join(root, ".claude", "settings.json"), native: false, inWorkspace: true });
  roles.push({ file: path.join(root, ".claude", "settings.local.json"), native: false, inWorkspace: true });
  const seen = new Set<string>();
  const sources = roles
    .filter((role) => !seen.has(role.file) && seen.add(role.file))
    .map((role) => ({ role, raw: readJsonFile(role.file) }));
  if (options.settings) {
    const given = { file: "settings given to Gantry", native: true, inWorkspace: false };
    sources.unshift({ role: given, raw: options.settings });
  }
  return sources;
}

function readSection(
  file: string,
  raw: unknown,
): { permissions?: z.infer<typeof PermissionsSchema>; approvalMode?: string } {
  const schema = z.looseObject({
    permissions: PermissionsSchema.optional(),
    approvalMode: z.string().optional(),
  });
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`)
      .join("; ");
    throw new Error(`invalid permissions in ${file}: ${problems}`);
  }
  return parsed.data;
}

function pickMode(
  value: string | undefined,
  source: string,
  role: SettingsFileRole,
  warnings: string[],
): LoadedPermissions["mode"] {
  if (value === undefined) return undefined;
  const mode = parseApprovalMode(value);
  if (!mode) {
    throw new Error(`${source}: unknown approval mode "${value}" (use default, auto-edit, yolo or plan)`);
  }
  if (mode === "yolo" && role.inWorkspace) {
    warnings.push(
      `${source} asks for yolo; ignored, a workspace file may not switch approvals off (use --approval-mode yolo or ~/.agents/settings.json)`,
    );
    return undefined;
  }
  return { mode, source };
}

function displayName(file: string, root: string, home: string): string {
  if (file.startsWith(`${root}${path.sep}`)) return path.relative(root, file);
  if (file.startsWith(`${home}${path.sep}`)) return `~/${path.relative(home, file)}`;
  return file;
}
