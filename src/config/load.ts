import { homedir } from "node:os";
import path from "node:path";
import { originOf, shownPath } from "../trust/origin.js";
import { resolveWorkspaceTrust, type WorkspaceTrust } from "../trust/workspace-trust.js";
import type { SecretsConfig } from "../workspace/secrets.js";
import { readClaudeSettings } from "./claude-settings.js";
import { combineSettings, type SettingsLayer } from "./combine.js";
import { UNTRUSTED_BROKEN } from "./drop-invalid.js";
import { fileTrust } from "./file-trust.js";
import { foreignSettingsNotices } from "./foreign-keys.js";
import { type ConfigReport, createConfigReport } from "./provenance.js";
import { parseSettingsFile, readJsonOrProblem, type Settings } from "./settings.js";

export interface SessionSettingsOptions {
  /** Real path of the workspace. */
  root: string;
  home: string;
  trust: WorkspaceTrust;
  /** Settings the caller gives in place of both `.agents/settings.json` files (counted as the user's). */
  given?: Settings;
  report: ConfigReport;
}

export interface SessionSettings {
  settings: Settings;
  /**
   * The secret settings by whose they are: the user's, and the workspace's own patterns with (when
   * trusted) its exceptions to them, kept apart so those exempt nothing else (workspace/secrets.ts).
   */
  secrets: { user: SecretsConfig; workspace?: SecretsConfig };
}

/**
 * The settings a session uses: the user's `~/.agents/settings.json` (or what the caller gives) with the
 * workspace's files over it, key by key as src/config/key-rules.ts says: `.agents/settings.json` (unless
 * the caller gives settings), `.agents/settings.local.json`, and the `sandbox` sections and `env` of
 * Claude Code's `.claude/settings.json` and `.claude/settings.local.json` (config/claude-settings.ts).
 */
export function loadSessionSettings(options: SessionSettingsOptions): SessionSettings {
  const { root, home, trust, report } = options;
  const user = options.given
    ? { file: "settings given to Gantry", origin: "given" as const, settings: options.given, trusted: true }
    : readLayer(path.join(home, ".agents", "settings.json"), root, home, trust, report, "gantry");
  const files: [string, "gantry" | "claude"][] = [
    ...(options.given ? [] : [[path.join(root, ".agents", "settings.json"), "gantry"] as [string, "gantry"]]),
    [path.join(root, ".agents", "settings.local.json"), "gantry"],
    [path.join(root, ".claude", "settings.json"), "claude"],
    [path.join(root, ".claude", "settings.local.json"), "claude"],
  ];
  const workspaces = files
    .filter(([file]) => originOf(file, home, root) !== "home")
    .flatMap(([file, kind]) => readLayer(file, root, home, trust, report, kind) ?? []);
  // what the workspace's other harness files set that Gantry does not use, named once
  report.warnings.push(...foreignSettingsNotices(root, home));
  const combined = combineSettings(user, workspaces);
  report.values.push(...combined.values);
  const own = workspaces.flatMap((layer) => {
    const secrets = layer.settings.secrets as SecretsConfig | undefined;
    return secrets ? [{ secrets, trusted: layer.trusted }] : [];
  });
  const secrets = {
    user: (user?.settings.secrets ?? {}) as SecretsConfig,
    ...(own.length > 0
      ? {
          workspace: {
            patterns: own.flatMap(({ secrets }) => secrets.patterns ?? []),
            allow: own.flatMap(({ secrets, trusted }) => (trusted ? (secrets.allow ?? []) : [])),
          },
        }
      : {}),
  };
  return { settings: combined.settings as Settings, secrets };
}

/**
 * One settings file as a layer. Its trust is judged first, on the bytes read (not on a second read),
 * because it decides what a broken file does: one the user vouched for (home, a trusted folder) stops
 * the session, one trust does not cover is named and left out, as much of it as is broken (a
 * repository must not be able to stop Gantry, and leaving out an untrusted file's key never widens).
 */
function readLayer(
  file: string,
  root: string,
  home: string,
  trust: WorkspaceTrust,
  report: ConfigReport,
  kind: "gantry" | "claude",
): SettingsLayer | undefined {
  const read = readJsonOrProblem(file);
  if (read === undefined) return undefined;
  const shown = shownPath(file, root, home);
  const origin = originOf(file, home, root);
  const status = fileTrust(file, origin, trust, read.bytes);
  if ("problem" in read) {
    if (status.trusted) throw new Error(read.fatal);
    report.warnings.push(`${shown} ${read.problem}; ${UNTRUSTED_BROKEN}`);
    return undefined;
  }
  const untrusted = !status.trusted;
  const parsed =
    kind === "gantry"
      ? parseSettingsFile(shown, read.raw, { untrusted })
      : readClaudeSettings(shown, read.raw, root, home, { untrusted });
  report.warnings.push(...parsed.warnings);
  return {
    file: shown,
    origin,
    settings: parsed.settings as Record<string, unknown>,
    trusted: status.trusted,
    ...(status.trusted ? {} : { untrustedWhy: status.why }),
    ...("keyNames" in parsed ? { keyNames: parsed.keyNames } : {}),
  };
}

/**
 * The settings of a folder as a session would use them; an untrusted workspace (the default) only
 * narrows. A broken file is an error naming the file and the key.
 */
export function loadSettings(
  workspaceRoot: string,
  home = homedir(),
  trust: WorkspaceTrust = resolveWorkspaceTrust(workspaceRoot, { kind: "untrusted", how: "not trusted" }),
): Settings {
  return loadSessionSettings({ root: workspaceRoot, home, trust, report: createConfigReport() }).settings;
}
