import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { constants } from "node:os";

/**
 * How a command's processes are held together so that all of them can be ended:
 * - `pid-namespace`: bubblewrap with a PID namespace of its own (`--unshare-pid`) and
 *   `--die-with-parent`; when bwrap ends, the kernel ends every process in the namespace, including
 *   those that left the process group with `setsid` or a double fork, and bwrap ends when Gantry dies,
 *   even by SIGKILL.
 * - `sandbox`: the sandbox runtime's bwrap, which does the same and more.
 * - `process-group`: the fallback; a signal to the group plus the descendants still findable by
 *   parent id. Misses a process that both left the group and was orphaned (a daemon).
 */
/** child_process, loaded with the first command rather than with every `gantry` start. */
const childProcess = () => process.getBuiltinModule("node:child_process");

export type Isolation = "pid-namespace" | "process-group" | "sandbox";
export type IsolationSetting = "auto" | "pid-namespace" | "process-group";

export interface ExitStatus {
  exitCode: number | null;
  /** The signal that ended the command (a shell reports "killed by N" as exit code 128+N). */
  signal: string | null;
}

export interface ProcessTree {
  readonly pid: number;
  readonly isolation: Isolation;
  readonly child: ChildProcess;
  /** Resolves once the top process has exited (its stdio may still be draining). */
  readonly exited: Promise<ExitStatus>;
  /** SIGTERM to every process of the tree, SIGKILL to what is left after `graceMs`. */
  kill(graceMs: number): Promise<ExitStatus>;
}

export interface SpawnTreeOptions {
  /** A bash script; its stderr is merged into stdout. Ignored when `argv` is given. */
  script: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  isolation: IsolationSetting;
  /** A ready command line (the sandbox's wrapped bwrap call); runs under `sandbox` isolation. */
  sandboxedCommand?: string;
  /**
   * Standard input: `pipe`, a pipe that stays open for the caller to write (`child.stdin`); `null`,
   * /dev/null, so a command that reads it gets end-of-input at once and never waits for input.
   */
  stdin: "pipe" | "null";
}

const BWRAP_BASE = ["--dev-bind", "/", "/", "--unshare-pid", "--die-with-parent", "--proc", "/proc"];
let namespaceArgs: string[] | null | undefined;

/** The bwrap arguments that work here (root, or unprivileged with a user namespace), or null. Probed once. */
export function pidNamespaceArgs(): string[] | null {
  if (namespaceArgs !== undefined) return namespaceArgs;
  namespaceArgs = null;
  for (const args of [BWRAP_BASE, ["--unshare-user", ...BWRAP_BASE]]) {
    const probe = childProcess().spawnSync("bwrap", [...args, "--", "true"], {
      stdio: "ignore",
      timeout: 5_000,
    });
    if (probe.status === 0) {
      namespaceArgs = args;
      break;
    }
  }
  return namespaceArgs;
}

export function resolveIsolation(setting: IsolationSetting): Isolation {
  if (setting === "process-group") return "process-group";
  if (pidNamespaceArgs()) return "pid-namespace";
  if (setting === "pid-namespace") throw new Error("bubblewrap cannot create a PID namespace here");
  return "process-group";
}

const liveTrees = new Set<ProcessTree>();
let exitHookInstalled = false;

/** Gantry's own exit (normal or process.exit) kills every tree it still runs. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const tree of liveTrees) {
      for (const pid of [...descendantsOf(tree.pid), tree.pid]) sendSignal(pid, "SIGKILL");
      sendSignal(-tree.pid, "SIGKILL");
    }
  });
}

/**
 * `--norc`: bash reads ~/.bashrc for `bash -c` when stdin is a socket (Node's pipes are socket pairs) and
 * SHLVL is unset, as in a Gantry started by an editor, a service or a container; a command runs the same
 * however Gantry was started, with stdin or without.
 */
const BASH_C = ["bash", "--norc", "-c"];

/**
 * SHLVL for a command's (or a hook's) environment: at least 1. bash reads ~/.bashrc for a `bash -c` on a
 * socket stdin when it is the first shell level, and a Gantry started by an editor or a service has no
 * SHLVL, one that `bash -c` exec'd has 0; either counts as started from a shell, as from a terminal.
 */
export function shellLevel(value: string | undefined): string {
  return Number(value) >= 1 ? (value as string) : "1";
}

export function spawnProcessTree(options: SpawnTreeOptions): ProcessTree {
  installExitHook();
  const script = `exec 2>&1\n${options.script}`;
  let isolation: Isolation;
  let argv: string[];
  if (options.sandboxedCommand !== undefined) {
    isolation = "sandbox";
    argv = [...BASH_C, `exec ${options.sandboxedCommand}`];
  } else {
    isolation = resolveIsolation(options.isolation);
    argv =
      isolation === "pid-namespace"
        ? ["bwrap", ...(pidNamespaceArgs() ?? []), "--", ...BASH_C, script]
        : [...BASH_C, script];
  }
  const child = childProcess().spawn(argv[0] as string, argv.slice(1), {
    cwd: options.cwd,
    env: options.env,
    detached: true, // its own session and process group
    stdio: [options.stdin === "pipe" ? "pipe" : "ignore", "pipe", "pipe"],
  });
  const pid = child.pid ?? -1;
  let exitStatus: ExitStatus | undefined;
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once("exit", (code, signal) => {
      exitStatus = describeExit(code, signal);
      // a command ends with its top process; in a namespace the kernel already ended the rest, and a
      // process group's leftovers (`server &`) are ended here: orphans, no longer findable as descendants
      if (isolation === "process-group") sendSignal(-pid, "SIGKILL");
      liveTrees.delete(tree);
      resolve(exitStatus);
    });
    child.once("error", () => {
      exitStatus = { exitCode: null, signal: null };
      liveTrees.delete(tree);
      resolve(exitStatus);
    });
  });
  // stdin errors (EPIPE when the command has exited) are expected, never fatal
  child.stdin?.on("error", () => {});

  const tree: ProcessTree = {
    pid,
    isolation,
    child,
    exited,
    async kill(graceMs) {
      const keep = isolation === "process-group" ? undefined : pid;
      signalTree(pid, "SIGTERM", keep);
      if (exitStatus === undefined || isolation === "process-group") {
        await Promise.race([exited, delay(graceMs)]);
      }
      signalTree(pid, "SIGKILL");
      liveTrees.delete(tree);
      return exited;
    },
  };
  if (pid > 0) liveTrees.add(tree);
  return tree;
}

/** Signals the group led by `pid`, `pid` itself and every descendant, except `spare`. */
function signalTree(pid: number, signal: NodeJS.Signals, spare?: number): void {
  if (pid <= 0) return;
  const targets = [...descendantsOf(pid), pid].filter((p) => p !== spare);
  for (const target of targets) sendSignal(target, signal);
  if (spare === undefined) sendSignal(-pid, signal);
}

function sendSignal(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/** Every process below `root`, found through the parent ids in /proc. */
export function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentPid(entry);
    if (parent === undefined) continue;
    const list = children.get(parent) ?? [];
    list.push(Number(entry));
    children.set(parent, list);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const next = children.get(queue.shift() as number) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

function parentPid(pid: string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // the command name may hold spaces and parentheses: fields resume after the last ")"
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[1]);
  } catch {
    return undefined;
  }
}

function describeExit(code: number | null, signal: NodeJS.Signals | null): ExitStatus {
  if (signal) return { exitCode: null, signal };
  if (code !== null && code > 128 && code <= 128 + 64) {
    const name = Object.entries(constants.signals).find(([, number]) => number === code - 128)?.[0];
    return { exitCode: code, signal: name ?? null };
  }
  return { exitCode: code, signal: null };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Whether a process exists (and is not a zombie). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}
