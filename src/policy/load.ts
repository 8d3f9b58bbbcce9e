import { homedir } from "node:os";
import path from "node:path";
import { z } from "zod";
import { dropInvalid, UNTRUSTED_BROKEN } from "../config/drop-invalid.js";
import { fileTrust } from "../config/file-trust.js";
import { type ConfigReport, createConfigReport, type Origin } from "../config/provenance.js";
import { readJsonOrProblem, type Settings } from "../config/settings.js";
import { originOf, shownPath } from "../trust/origin.js";
import type { WorkspaceTrust } from "../trust/workspace-trust.js";
import { ALWAYS_ANSWERS_NAME, savedAllowRules } from "./always-answers.js";
import { type ApprovalMode, parseApprovalMode } from "./modes.js";
import type { RuleEntry, RuleKind } from "./rules.js";
import { ClaudePermissionsSchema } from "./schema.js";

const RULE_KINDS: RuleKind[] = ["deny", "ask", "allow"];

/** Strictest first: a workspace may only move the mode this way from what the user set. */
const MODE_STRICTNESS: readonly ApprovalMode[] = ["plan", "default", "auto-edit", "yolo"];

interface PolicySource {
  /** As shown in messages and rule origins. */
  shown: string;
  origin: Origin;
  /** `.agents` files carry `approvalMode`; `.claude` files only `permissions`. */
  native: boolean;
  /** The folder `/x` rules are relative to. */
  projectDir: string;
  raw: unknown;
  /** Trust covers it (always for the user's own files), or why not. */
  trusted: boolean;
  untrustedWhy?: string;
}

export interface LoadedPermissions {
  entries: RuleEntry[];
  /** Allow rules and modes of workspace files trust does not cover: listed, never applied. */
  ignored: { text: string; origin: string; why: string }[];
  /** The approval mode the files name, and the file that named it. */
  mode?: { mode: ApprovalMode; source: string };
  /** `permissions.disableBypassPermissionsMode in <file>`: yolo may not be chosen in this session. */
  yoloDisabledBy?: string;
  warnings: string[];
}

export interface LoadOptions {
  workspaceRoot: string;
  home?: string;
  /** Settings given in place of the `.agents/settings.json` files (the library's `settings` option). */
  settings?: Settings;
  /** Whose workspace files count: an untrusted workspace's allow rules and modes are ignored. */
  trust: WorkspaceTrust;
  /** Where every rule and mode is recorded, honoured or not. */
  report?: ConfigReport;
}

/**
 * Rules from every file are combined, never replaced: home `.agents/settings.json` and the user's saved
 * "always" answers for this folder, then the workspace's `.agents/settings.json`, `.agents/settings.local.json`,
 * `.claude/settings.json` and `.claude/settings.local.json`. A workspace's deny and ask rules always
 * count; its allow rules and modes only when trust covers the file (SPEC §5a).
 */
export function loadPermissionSettings(options: LoadOptions): LoadedPermissions {
  const home = options.home ?? homedir();
  const report = options.report ?? createConfigReport();
  const loaded: LoadedPermissions = { entries: [], ignored: [], warnings: [] };
  const modes: Record<"user" | "workspace", { approvalMode?: Candidate; defaultMode?: Candidate }> = {
    user: {},
    workspace: {},
  };
  // for list_permissions and the session's start-up notices alike
  const warn = (line: string) => {
    loaded.warnings.push(line);
    report.warnings.push(line);
  };
  const sources = policySources(options, home, warn)
    .filter((source) => source.raw !== undefined)
    .map((source) => ({ source, section: readSection(source, warn) }));
  // it only narrows, so it counts from every file, trusted or not (the first file that says it is named)
  const disabling = sources.find(({ section }) => section.permissions?.disableBypassPermissionsMode);
  if (disabling) {
    loaded.yoloDisabledBy = `permissions.disableBypassPermissionsMode in ${disabling.source.shown}`;
    report.values.push({
      key: "permissions.disableBypassPermissionsMode",
      value: "disable",
      file: disabling.source.shown,
      origin: disabling.source.origin,
      honoured: true,
    });
  }
  for (const { source, section } of sources) {
    if (section.permissions?.additionalDirectories !== undefined)
      warn(
        `permissions.additionalDirectories in ${source.shown} is not supported; ignored: Gantry's tools stay inside the workspace (open the session in a folder that holds those folders)`,
      );
    for (const kind of RULE_KINDS) {
      for (const text of section.permissions?.[kind] ?? []) {
        const honoured = kind !== "allow" || source.trusted;
        report.values.push({
          key: `permissions.${kind}`,
          value: text,
          file: source.shown,
          origin: source.origin,
          honoured,
          ...(honoured ? {} : { why: source.untrustedWhy ?? "not trusted", wantsTrust: true }),
        });
        if (honoured)
          loaded.entries.push({ kind, text, origin: source.shown, projectDir: source.projectDir });
        else
          loaded.ignored.push({
            text: `allow ${text}`,
            origin: source.shown,
            why: source.untrustedWhy ?? "not trusted",
          });
      }
    }
    for (const candidate of modeCandidates(source, section, warn)) {
      const slot = source.origin === "workspace" ? "workspace" : "user";
      if (!source.trusted) {
        const why = source.untrustedWhy ?? "not trusted";
        recordMode(report, source, candidate, false, why, true);
        loaded.ignored.push({ text: `${candidate.key}: ${candidate.value}`, origin: source.shown, why });
        continue;
      }
      if (candidate.mode === "yolo" && loaded.yoloDisabledBy) {
        const why = `yolo is switched off by ${loaded.yoloDisabledBy}`;
        recordMode(report, source, candidate, false, why);
        // a workspace file's ignored values have their notice already (ignoredNotices); the user's do not
        const line = `${candidate.source} asks for yolo; ignored, ${why}`;
        if (source.origin === "workspace") loaded.warnings.push(line);
        else warn(line);
        continue;
      }
      if (candidate.mode === "yolo" && source.origin === "workspace") {
        const why =
          "a workspace file may not switch approvals off (use --approval-mode yolo or ~/.agents/settings.json)";
        recordMode(report, source, candidate, false, why);
        loaded.warnings.push(`${candidate.source} asks for yolo; ignored, ${why}`);
        continue;
      }
      // later files name the mode; approvalMode wins over Claude Code's permissions.defaultMode
      modes[slot][candidate.key === "approvalMode" ? "approvalMode" : "defaultMode"] = {
        ...candidate,
        file: source,
      };
    }
  }
  const pick = (slot: "user" | "workspace") => {
    const { approvalMode, defaultMode } = modes[slot];
    if (approvalMode && defaultMode?.file)
      recordMode(report, defaultMode.file, defaultMode, false, `${approvalMode.source} wins`);
    return approvalMode ?? defaultMode;
  };
  loaded.mode = chooseMode(pick("user"), pick("workspace"), report);
  return loaded;
}

interface Candidate {
  mode: ApprovalMode;
  source: string;
  key: string;
  value: string;
  file?: PolicySource;
}

/**
 * `approvalMode` (native files) wins over Claude Code's `permissions.defaultMode` in the same place. An
 * unknown mode is an error, or a warning in a file trust does not cover (its mode would not count anyway).
 */
function modeCandidates(
  source: PolicySource,
  section: { permissions?: z.infer<ReturnType<typeof ClaudePermissionsSchema>>; approvalMode?: string },
  warn: (line: string) => void,
): Candidate[] {
  const found: Candidate[] = [];
  const add = (key: string, value: string | undefined) => {
    if (value === undefined) return;
    const mode = parseApprovalMode(value);
    if (!mode) {
      const problem = `${key} in ${source.shown}: unknown approval mode "${value}" (use default, auto-edit, yolo or plan)`;
      if (source.trusted) throw new Error(problem);
      warn(`${problem}; ${UNTRUSTED_BROKEN}`);
      return;
    }
    found.push({ mode, source: `${key} in ${source.shown}`, key, value });
  };
  add("permissions.defaultMode", section.permissions?.defaultMode);
  if (source.native) add("approvalMode", section.approvalMode);
  return found;
}

/** The user's mode, unless a trusted workspace names a mode at least as strict (or the user names none). */
function chooseMode(
  user: Candidate | undefined,
  workspace: Candidate | undefined,
  report: ConfigReport,
): LoadedPermissions["mode"] {
  if (
    workspace?.file &&
    user &&
    MODE_STRICTNESS.indexOf(workspace.mode) > MODE_STRICTNESS.indexOf(user.mode)
  ) {
    recordMode(
      report,
      workspace.file,
      workspace,
      false,
      `your home sets ${user.mode}; a workspace may only make it stricter`,
    );
    workspace = undefined;
  }
  const chosen = workspace ?? user;
  if (user?.file) recordMode(report, user.file, user, chosen === user);
  if (workspace?.file) recordMode(report, workspace.file, workspace, true);
  return chosen ? { mode: chosen.mode, source: chosen.source } : undefined;
}

function recordMode(
  report: ConfigReport,
  source: PolicySource,
  candidate: Candidate,
  honoured: boolean,
  why?: string,
  wantsTrust?: boolean,
) {
  report.values.push({
    key: candidate.key,
    value: candidate.value,
    file: source.shown,
    origin: source.origin,
    honoured,
    ...(why ? { why } : honoured ? {} : { why: "a stricter mode wins" }),
    ...(wantsTrust ? { wantsTrust } : {}),
  });
}

/** Home first, then the workspace. `~/.claude/settings.json` is Claude Code's own user file: not read. */
function policySources(options: LoadOptions, home: string, warn: (line: string) => void): PolicySource[] {
  const root = options.workspaceRoot;
  const trust = options.trust;
  const sources: PolicySource[] = [];
  if (options.settings) {
    sources.push({
      shown: "settings given to Gantry",
      origin: "given",
      native: true,
      projectDir: root,
      raw: options.settings,
      trusted: true,
    });
  }
  const files: { file: string; native: boolean }[] = [];
  if (!options.settings) files.push({ file: path.join(home, ".agents", "settings.json"), native: true });
  if (!options.settings) files.push({ file: path.join(root, ".agents", "settings.json"), native: true });
  files.push({ file: path.join(root, ".agents", "settings.local.json"), native: true });
  files.push({ file: path.join(root, ".claude", "settings.json"), native: false });
  files.push({ file: path.join(root, ".claude", "settings.local.json"), native: false });
  const seen = new Set<string>();
  for (const { file, native } of files) {
    if (seen.has(file)) continue;
    seen.add(file);
    const origin = originOf(file, home, root);
    const shown = shownPath(file, root, home);
    const read = readJsonOrProblem(file);
    // judged on the bytes parsed, not on a second read
    const status = read ? fileTrust(file, origin, trust, read.bytes) : ({ trusted: true } as const);
    // a file the user vouched for stops the session; an untrusted one cannot (its rules only narrow)
    if (read && "problem" in read) {
      if (status.trusted) throw new Error(read.fatal);
      warn(`${shown} ${read.problem}; ${UNTRUSTED_BROKEN}`);
    }
    sources.push({
      shown,
      origin,
      native,
      projectDir: origin === "home" ? home : root,
      raw: read && "raw" in read ? read.raw : undefined,
      trusted: status.trusted,
      ...(status.trusted ? {} : { untrustedWhy: status.why }),
    });
    // the user's "always" answers for this folder come right after the user's own settings
    if (origin === "home" && file === path.join(home, ".agents", "settings.json"))
      sources.push(savedAnswers(home, root));
  }
  if (options.settings) sources.splice(1, 0, savedAnswers(home, root));
  return sources;
}

function savedAnswers(home: string, root: string): PolicySource {
  const allow = savedAllowRules(home, root);
  return {
    shown: `~/.agents/${ALWAYS_ANSWERS_NAME} (your answers for this folder)`,
    origin: "home",
    native: false,
    projectDir: root,
    raw: allow.length > 0 ? { permissions: { allow } } : undefined,
    trusted: true,
  };
}

/**
 * A file's `permissions` and `approvalMode`. A value of the wrong type is an error naming the file and
 * the key, or in a file trust does not cover a warning with that value left out: a deny rule the
 * repository wrote that cannot be read only narrowed, so leaving it out never widens what the user set.
 */
function readSection(
  source: PolicySource,
  warn: (line: string) => void,
): { permissions?: z.infer<ReturnType<typeof ClaudePermissionsSchema>>; approvalMode?: string } {
  const schema = z.looseObject({
    permissions: ClaudePermissionsSchema().optional(),
    approvalMode: z.string().optional(),
  });
  let input = source.raw;
  for (let attempt = 0; attempt < 8; attempt++) {
    const parsed = schema.safeParse(input);
    if (parsed.success) return parsed.data;
    if (source.trusted) {
      const problems = parsed.error.issues
        .map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`)
        .join("; ");
      throw new Error(`invalid permissions in ${source.shown}: ${problems}`);
    }
    const dropped = dropInvalid(input, parsed.error.issues, source.shown);
    for (const line of dropped.warnings) warn(line);
    if (dropped.whole) return {};
    input = dropped.input;
  }
  return {};
}
