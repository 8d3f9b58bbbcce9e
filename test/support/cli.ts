import { type ChildProcessByStdio, spawn } from "node:child_process";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The built command; `npm test` builds it first. */
export const GANTRY_BIN = path.join(REPO_ROOT, "dist/bundle/gantry.cjs");

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
  /** "ignore": stdin is /dev/null (a detached run) instead of a pipe fed `input`. */
  stdin?: "pipe" | "ignore";
  timeoutMs?: number;
}

/** Runs the real `gantry` command as a child process (under the same Node as the tests). */
export function runGantry(args: string[], options: CliOptions = {}): Promise<CliRun> {
  return runNode([GANTRY_BIN, ...args], options);
}

/** Runs a Node script as a child process (under the same Node as the tests). */
export function runNode(args: string[], options: CliOptions = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: [options.stdin ?? "pipe", "pipe", "pipe"],
    }) as ChildProcessByStdio<Writable | null, Readable, Readable>;
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 20_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin?.end(options.input ?? "");
  });
}

/** Runs `gantry tool <name> <json>` and parses the printed result. */
export async function runGantryTool(
  name: string,
  args: unknown,
  options: CliOptions & { workspace: string; extra?: string[] },
): Promise<{
  run: CliRun;
  result: { text: string; error: boolean; errorCode?: string; metadata: Record<string, unknown> };
}> {
  const run = await runGantry(
    ["tool", name, JSON.stringify(args), "--workspace", options.workspace, ...(options.extra ?? [])],
    options,
  );
  if (run.code !== 0) throw new Error(`gantry tool exited ${run.code}: ${run.stderr}`);
  return { run, result: JSON.parse(run.stdout) };
}
