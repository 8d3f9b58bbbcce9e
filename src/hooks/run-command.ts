import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import type { Readable } from "node:stream";
import { runThroughRunner } from "./hook-runner.js";
import { pidNamespacePrefix } from "./pid-namespace.js";

export interface CommandHookRequest {
  command: string;
  /** Written to stdin, which is then closed. */
  input: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Bytes kept of stdout and of stderr each; the rest is read and dropped. */
  maxOutputBytes: number;
  signal?: AbortSignal;
  /** Between SIGTERM and SIGKILL of the hook's process group. */
  killGraceMs?: number;
}

export interface CommandHookExit {
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  stdoutOverflow: boolean;
}

export type CommandHookOutcome = { ok: true; exit: CommandHookExit } | { ok: false; failure: string };

const SHELL = existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";
// `--norc`: bash reads ~/.bashrc for `bash -c` when its stdin is a socket (Node's pipes are socket pairs)
// and SHLVL is unset, as in a Gantry started by an editor, a service or a container; a hook must run the
// same however Gantry was started, and the rc file's output must not land in the hook's JSON
const SHELL_ARGS = SHELL === "/bin/bash" ? ["--norc", "-c"] : ["-c"];
// After the hook exits, output already in the pipes is read for this long; a background child that
// inherited stdout must not hold the call.
const DRAIN_AFTER_EXIT_MS = 50;

/**
 * Runs one command hook: started by the hook runner process where there is one (hook-runner.ts), so
 * the session's own process, however large it has grown, is not forked for it; else from here.
 */
export function runCommandHook(request: CommandHookRequest): Promise<CommandHookOutcome> {
  return runThroughRunner(request, spawnCommandHook);
}

/**
 * Starts one command hook from this process, through the shell in a PID namespace of its own
 * (pid-namespace.ts) and its own process group: a timeout, and the hook's own exit, end every process
 * it started. `watch` learns the process group's id as soon as the hook runs, and when its shell has
 * ended (after the outcome, for a hook that was stopped).
 */
export function spawnCommandHook(
  request: CommandHookRequest,
  watch: { onStart?: (pid: number) => void; onEnd?: () => void } = {},
): Promise<CommandHookOutcome> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      // loaded on the first hook run: child_process is one of the costlier built-ins to start with
      const { spawn } = process.getBuiltinModule("node:child_process");
      const [program, ...args] = [...pidNamespacePrefix(), SHELL, ...SHELL_ARGS, request.command];
      child = spawn(program as string, args, {
        cwd: request.cwd,
        env: request.env,
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
      });
    } catch (cause) {
      resolve({ ok: false, failure: `could not start: ${(cause as Error).message}` });
      return;
    }
    if (child.pid !== undefined) watch.onStart?.(child.pid);
    child.once("exit", () => watch.onEnd?.());
    const stdout = collectBounded(child.stdout as Readable, request.maxOutputBytes);
    const stderr = collectBounded(child.stderr as Readable, request.maxOutputBytes);
    let settled = false;
    const finish = (outcome: CommandHookOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal?.removeEventListener("abort", onAbort);
      stdout.stop();
      stderr.stop();
      resolve(outcome);
    };
    const stop = (failure: string) => {
      killProcessGroup(child, request.killGraceMs ?? 500);
      finish({ ok: false, failure });
    };
    const onAbort = () => stop("aborted");
    const timer = setTimeout(
      () => stop(`timed out after ${formatSeconds(request.timeoutMs)}`),
      request.timeoutMs,
    );
    request.signal?.addEventListener("abort", onAbort, { once: true });
    if (request.signal?.aborted) onAbort();

    child.on("error", (cause) => finish({ ok: false, failure: `could not start: ${cause.message}` }));
    child.on("exit", (exitCode, exitSignal) => {
      const drain = delay(DRAIN_AFTER_EXIT_MS);
      void Promise.race([Promise.all([stdout.ended, stderr.ended]), drain.elapsed]).then(() => {
        drain.cancel();
        finish({
          ok: true,
          exit: {
            exitCode,
            exitSignal,
            stdout: stdout.text(),
            stderr: stderr.text(),
            stdoutOverflow: stdout.overflow(),
          },
        });
      });
    });
    // A hook that never reads stdin closes the pipe early: EPIPE is expected, not a crash.
    child.stdin?.on("error", () => {});
    child.stdin?.end(request.input);
  });
}

function killProcessGroup(child: ChildProcess, graceMs: number): void {
  const pid = child.pid;
  if (pid === undefined) return;
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  };
  signalGroup("SIGTERM");
  setTimeout(() => signalGroup("SIGKILL"), graceMs).unref();
}

interface BoundedCollector {
  ended: Promise<void>;
  text(): string;
  overflow(): boolean;
  stop(): void;
}

/** Keeps the first `maxBytes` of a stream and drains the rest, so 10 MB of output costs no memory. */
function collectBounded(stream: Readable, maxBytes: number): BoundedCollector {
  const chunks: Buffer[] = [];
  let kept = 0;
  let overflowed = false;
  stream.on("data", (chunk: Buffer) => {
    if (kept >= maxBytes) {
      overflowed = true;
      return;
    }
    const room = maxBytes - kept;
    if (chunk.length > room) overflowed = true;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    chunks.push(part);
    kept += part.length;
  });
  const ended = new Promise<void>((resolve) => {
    stream.once("end", resolve);
    stream.once("close", resolve);
    stream.once("error", () => resolve());
  });
  return {
    ended,
    text: () => Buffer.concat(chunks).toString("utf8"),
    overflow: () => overflowed,
    stop: () => stream.destroy(),
  };
}

/** A wait that can be called off: a drain that ended early leaves no timer holding the process open. */
function delay(ms: number): { elapsed: Promise<void>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return { elapsed, cancel: () => clearTimeout(timer) };
}

export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}
