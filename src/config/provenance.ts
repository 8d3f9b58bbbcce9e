/** Where a configuration value came from (SPEC §5a): the user's home, the workspace, or the caller. */
export type Origin = "home" | "workspace" | "given";

/** One value one file set, and whether the session honours it. */
export interface SettingValue {
  /** Dotted key, e.g. `sandbox.enabled`, `permissions.allow`, `hooks`. */
  key: string;
  value: unknown;
  /** The file as shown to the user (`~/.agents/settings.json`, `.claude/settings.json`). */
  file: string;
  origin: Origin;
  honoured: boolean;
  /** Why it is not honoured, or how it was (e.g. "tightens the limit"). */
  why?: string;
  /** Not honoured only for want of trust: trusting the folder (again) would make it count. */
  wantsTrust?: boolean;
}

/** What a session's configuration is made of: every value with its file, and what was ignored. */
export interface ConfigReport {
  values: SettingValue[];
  /** Problems that do not stop the session (unknown keys, a changed hook script), one line each. */
  warnings: string[];
}

export function createConfigReport(): ConfigReport {
  return { values: [], warnings: [] };
}

/** How a user makes a workspace's ignored settings count. */
export const HOW_TO_TRUST =
  'run "gantry trust" in it, or pass --trust (GANTRY_TRUST_WORKSPACE=1 for CI checkouts)';

/**
 * One line per file that had values ignored, naming the keys and why (the stderr notice of a
 * narrowed session): `gantry: .claude/settings.json: ignored hooks, permissions.allow (this folder is not trusted; …)`.
 */
export function ignoredNotices(report: ConfigReport): string[] {
  const byFile = new Map<string, Map<string, string[]>>();
  for (const value of report.values) {
    if (value.honoured || value.origin !== "workspace") continue;
    const reasons = byFile.get(value.file) ?? new Map<string, string[]>();
    byFile.set(value.file, reasons);
    const why = value.why ?? "ignored";
    const keys = reasons.get(why) ?? [];
    if (!keys.includes(value.key)) keys.push(value.key);
    reasons.set(why, keys);
  }
  const lines: string[] = [];
  for (const [file, reasons] of byFile) {
    const parts = [...reasons].map(([why, keys]) => `${keys.join(", ")} (${why})`);
    lines.push(`${file}: ignored ${parts.join("; ")}`);
  }
  return lines;
}
