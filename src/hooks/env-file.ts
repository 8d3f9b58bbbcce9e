import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * Variables SessionStart hooks set for the session's later commands (Claude Code's CLAUDE_ENV_FILE): a
 * hook writes `export NAME=value` lines to the file; every command the agent runs after it sees them.
 * `null` is a variable the file unsets.
 */
export interface SessionVariables {
  /** Changes with every update, so a reader can keep what it built from the last one. */
  readonly version: number;
  readonly values: ReadonlyMap<string, string | null>;
  replace(values: ReadonlyMap<string, string | null>): void;
}

/**
 * `settings` are the session's `env` setting (config/env-setting.ts): they hold from the start, and what
 * the hooks' file sets goes over them name by name.
 */
export function createSessionVariables(settings: Readonly<Record<string, string>> = {}): SessionVariables {
  const base = Object.entries(settings);
  let values: ReadonlyMap<string, string | null> = new Map(base);
  let version = 0;
  return {
    get version() {
      return version;
    },
    get values() {
      return values;
    },
    replace(next) {
      values = base.length === 0 ? next : new Map([...base, ...next]);
      version++;
    },
  };
}

/** The environment `base` with the session's variables applied. */
export function withSessionVariables(
  base: NodeJS.ProcessEnv,
  variables: SessionVariables,
): NodeJS.ProcessEnv {
  if (variables.values.size === 0) return base;
  const env = { ...base };
  for (const [name, value] of variables.values) {
    if (value === null) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** The file SessionStart hooks write to: one per session, in a folder only this user can read, removed at its end. */
export function createEnvFile(): { path: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), "gantry-env-"));
  const file = path.join(dir, "session.env");
  writeFileSync(file, "", { mode: 0o600 });
  return { path: file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Variables a shell sets for itself, never the file's doing. */
const SHELL_OWN = new Set(["_", "PWD", "OLDPWD", "SHLVL"]);

/**
 * What the file sets: bash sources it (as Claude Code does before each command) in `base`, and the
 * variables that differ afterwards are the file's. An empty file sets nothing and runs nothing.
 */
export async function readEnvFile(
  file: string,
  base: NodeJS.ProcessEnv,
): Promise<Map<string, string | null>> {
  const variables = new Map<string, string | null>();
  if (statSync(file, { throwIfNoEntry: false })?.size === 0) return variables;
  const after = await sourcedEnvironment(file, base);
  for (const [name, value] of after)
    if (!SHELL_OWN.has(name) && base[name] !== value) variables.set(name, value);
  for (const name of Object.keys(base))
    if (!SHELL_OWN.has(name) && !after.has(name)) variables.set(name, null);
  return variables;
}

function sourcedEnvironment(file: string, base: NodeJS.ProcessEnv): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    process
      .getBuiltinModule("node:child_process")
      .execFile(
        "bash",
        ["--norc", "--noprofile", "-c", '. "$1" >/dev/null 2>&1 </dev/null; env -0', "bash", file],
        { env: base, maxBuffer: 16 * 1024 * 1024, timeout: 10_000 },
        (error, stdout) => {
          if (error)
            return reject(new Error(`reading the SessionStart environment file failed: ${error.message}`));
          const entries = stdout.split("\0").filter((entry) => entry.includes("="));
          resolve(
            new Map(
              entries.map((entry) => [
                entry.slice(0, entry.indexOf("=")),
                entry.slice(entry.indexOf("=") + 1),
              ]),
            ),
          );
        },
      );
  });
}
