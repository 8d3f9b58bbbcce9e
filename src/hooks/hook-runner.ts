import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { CommandHookOutcome, CommandHookRequest } from "./run-command.js";

/**
 * The hook runner: a small Node process of its own that starts command hooks for this process.
 * Forking copies the page tables of the process that forks, so a spawn from a session that has grown
 * to hundreds of MB costs several ms, and a hook runs before and after every tool call; the runner
 * stays small. It starts with the first command hook (which waits for it) and lives as long as this
 * process: it is not waited for when idle, and it ends, with every hook it is running, when this
 * process ends (its IPC channel closes). Where it cannot start, or once it has ended, hooks are
 * started from this process as before; a hook running when it ended fails, saying so.
 */

/** A request as the runner is sent it: what a hook needs, without the caller's AbortSignal. */
export type RunnerHookRequest = Omit<CommandHookRequest, "signal">;

export type RunnerMessage =
  | { type: "run"; id: number; request: RunnerHookRequest }
  | { type: "abort"; id: number };

export type RunnerAnswer =
  | { type: "ready" }
  | { type: "started"; id: number; pid: number }
  /** The hook's shell has ended (a stopped hook's outcome came before). */
  | { type: "ended"; id: number }
  | { type: "done"; id: number; outcome: CommandHookOutcome };

/**
 * The runner's script, found at its first start: the library build's, next to this module, or from
 * the command's bundle (dist/bundle), the same script in dist/hooks. It is not a bundle entry: the
 * modules it shares with the session would leave the bundle's code-cached chunks for one Node loads.
 */
function defaultEntry(): string {
  const here = fileURLToPath(new URL("./hook-runner-process.js", import.meta.url));
  if (existsSync(here)) return here;
  return fileURLToPath(new URL("../hooks/hook-runner-process.js", import.meta.url));
}
/** The runner answers `ready` once it has probed the PID namespace; a runner slower than this is given up. */
const START_TIMEOUT_MS = 10_000;
/** Past a hook's own timeout and kill grace, a runner that has not answered is given up on for that hook. */
const ANSWER_SLACK_MS = 10_000;
const STDERR_TAIL_BYTES = 2_000;
/** After a stopped hook's SIGKILL, how long the runner's word that its shell ended is waited for. */
const KILLED_WAIT_MS = 1_000;

interface Pending {
  resolve: (outcome: CommandHookOutcome) => void;
  /** The hook's process group, once the runner said it started. */
  pid?: number;
  /** Its shell has ended (the outcome follows). */
  ended?: boolean;
}

interface Runner {
  child: ChildProcess;
  pending: Map<number, Pending>;
  /**
   * Hooks stopped (aborted, or no answer) whose shell has not ended yet, by id: their group's id and
   * the SIGKILL due after the grace. This process waits for them, as for a hook it started itself.
   */
  stopping: Map<number, { pid: number; kill: NodeJS.Timeout }>;
  nextId: number;
  stderrTail: string;
}

/** One configuration's runner: a runner that ends or is replaced changes only its own generation. */
interface Generation {
  /** The runner's script; undefined: the default one. */
  entry: string | false | undefined;
  starting?: Promise<Runner | undefined>;
  /** The runner once it said it is ready: a hook then goes to it without waiting on `starting`. */
  ready?: Runner;
  /** Why the runner is not used (it could not start, or it ended): hooks start from this process. */
  unavailable?: string;
}

let current: Generation = { entry: undefined };

/**
 * Which runner script to start (`false`: none, hooks start from this process). A running runner is
 * stopped. The default is the build's hook-runner-process.js (defaultEntry); a source checkout run by
 * vitest has none, so its hooks start from the test's process unless a test names the build's.
 */
export function configureHookRunner(options: { entry: string | false }): void {
  void current.starting?.then((runner) => runner?.child.kill("SIGKILL"));
  current = { entry: options.entry };
}

/** The runner's pid while it is in use (for tests and diagnostics). */
export async function hookRunnerPid(): Promise<number | undefined> {
  const generation = current;
  const runner = await generation.starting;
  return generation.unavailable === undefined ? runner?.child.pid : undefined;
}

/**
 * Starts the runner in the background, for a session with command hooks: it is up by the first hook
 * (a session's first tool call comes after its first model answer), which would otherwise wait for it.
 */
export function prepareHookRunner(): void {
  void readyRunner(current);
}

/** Runs the hook through the runner when there is one, else with `direct` (from this process). */
export async function runThroughRunner(
  request: CommandHookRequest,
  direct: (request: CommandHookRequest) => Promise<CommandHookOutcome>,
): Promise<CommandHookOutcome> {
  const generation = current;
  let runner = generation.unavailable === undefined ? generation.ready : undefined;
  if (!runner) {
    const starting = readyRunner(generation);
    // while the runner starts, this hook keeps the process alive, as its own spawn would
    const hold = starting ? setInterval(() => {}, 60_000) : undefined;
    runner = await starting;
    clearInterval(hold);
  }
  if (!runner || generation.unavailable !== undefined || request.signal?.aborted) return direct(request);
  return ask(runner, request);
}

function readyRunner(generation: Generation): Promise<Runner | undefined> | undefined {
  if (generation.entry === false || generation.unavailable !== undefined) return undefined;
  generation.starting ??= start(generation, generation.entry ?? defaultEntry());
  return generation.starting;
}

async function start(generation: Generation, script: string): Promise<Runner | undefined> {
  if (!existsSync(script)) {
    generation.unavailable = `no hook runner script at ${script}`;
    return undefined;
  }
  const { fork } = process.getBuiltinModule("node:child_process");
  let child: ChildProcess;
  try {
    child = fork(script, [], {
      // none of this process's flags (an --inspect or --cpu-prof is for it, not for the runner), and
      // none of its environment: each hook is given its own
      execArgv: [],
      env: { PATH: process.env.PATH ?? "" },
      // its own process group: a Ctrl-C in the terminal reaches the session, which decides
      detached: true,
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "json",
    });
  } catch (cause) {
    generation.unavailable = `the hook runner could not start: ${(cause as Error).message}`;
    return undefined;
  }
  const runner: Runner = { child, pending: new Map(), stopping: new Map(), nextId: 1, stderrTail: "" };
  // a runner starting in the background holds nothing; a hook waiting for it holds this process itself
  holdWhileBusy(runner);
  child.stderr?.on("data", (chunk: Buffer) => {
    runner.stderrTail = (runner.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES);
  });
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), START_TIMEOUT_MS);
    timer.unref();
    const settle = (ok: boolean) => {
      clearTimeout(timer);
      resolve(ok);
    };
    child.once("message", (message: RunnerAnswer) => settle(message.type === "ready"));
    child.once("exit", () => settle(false));
    child.once("error", () => settle(false));
  });
  if (!ready) {
    generation.unavailable = `the hook runner did not start${tail(runner)}`;
    child.kill("SIGKILL");
    return undefined;
  }
  const end = (why: string) => ended(generation, runner, why);
  child.on("message", (message: RunnerAnswer) => answer(runner, message));
  child.on("exit", (code, signal) => end(`exit ${signal ?? code}`));
  child.on("error", (error) => end(error.message));
  holdWhileBusy(runner);
  generation.ready = runner;
  return runner;
}

function ask(runner: Runner, request: CommandHookRequest): Promise<CommandHookOutcome> {
  const id = runner.nextId++;
  const { signal, ...sent } = request;
  const waitMs = request.timeoutMs + (request.killGraceMs ?? 500) + ANSWER_SLACK_MS;
  return new Promise((resolve) => {
    const stop = (failure: string) => {
      // signalled from here at once, as a hook started from here would be, and waited for until its
      // shell has ended (SIGKILL after the grace): this process may be about to exit. The runner is told too.
      const pending = runner.pending.get(id);
      const pid = pending?.pid;
      if (pid !== undefined && !pending?.ended) {
        signalGroup(pid, "SIGTERM");
        const kill = setTimeout(() => {
          signalGroup(pid, "SIGKILL");
          // the runner says when the shell has ended; a runner that does not is waited for no longer
          setTimeout(() => stopped(runner, id), KILLED_WAIT_MS).unref();
        }, request.killGraceMs ?? 500);
        kill.unref();
        runner.stopping.set(id, { pid, kill });
      }
      send(runner, { type: "abort", id });
      settle({ ok: false, failure });
    };
    const onAbort = () => stop("aborted");
    const backstop = setTimeout(() => stop(`the hook runner gave no answer in ${waitMs} ms`), waitMs);
    backstop.unref();
    const settle = (outcome: CommandHookOutcome) => {
      if (!runner.pending.delete(id)) return;
      clearTimeout(backstop);
      signal?.removeEventListener("abort", onAbort);
      holdWhileBusy(runner);
      resolve(outcome);
    };
    runner.pending.set(id, { resolve: settle });
    signal?.addEventListener("abort", onAbort, { once: true });
    holdWhileBusy(runner);
    send(runner, { type: "run", id, request: sent });
  });
}

function answer(runner: Runner, message: RunnerAnswer): void {
  if (message.type === "started") {
    const pending = runner.pending.get(message.id);
    if (pending) pending.pid = message.pid;
  } else if (message.type === "ended") {
    const pending = runner.pending.get(message.id);
    if (pending) pending.ended = true;
    stopped(runner, message.id);
  } else if (message.type === "done") {
    runner.pending.get(message.id)?.resolve(message.outcome);
  }
}

/** A stopped hook's shell has ended (or is waited for no longer). */
function stopped(runner: Runner, id: number): void {
  const stopping = runner.stopping.get(id);
  if (!stopping) return;
  clearTimeout(stopping.kill);
  runner.stopping.delete(id);
  holdWhileBusy(runner);
}

function send(runner: Runner, message: RunnerMessage): void {
  if (!runner.child.connected) return;
  runner.child.send(message, (error) => {
    if (error) runner.child.emit("error", error);
  });
}

/** The runner is gone: its hooks fail (and their process groups are killed), later ones start from here. */
function ended(generation: Generation, runner: Runner, why: string): void {
  generation.unavailable ??= `the hook runner ended (${why})`;
  runner.child.kill("SIGKILL");
  for (const stopping of runner.stopping.values()) {
    clearTimeout(stopping.kill);
    signalGroup(stopping.pid, "SIGKILL");
  }
  runner.stopping.clear();
  holdWhileBusy(runner);
  for (const pending of [...runner.pending.values()]) {
    // a hook it was running would be left without a parent to end it: its group is ended here
    if (pending.pid !== undefined) signalGroup(pending.pid, "SIGKILL");
    pending.resolve({
      ok: false,
      failure: `the hook runner process ended while the hook ran (${why})${tail(runner)}; the hook was stopped`,
    });
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone
  }
}

/** This process waits for the runner only while a hook runs through it, or one it stopped is ending. */
function holdWhileBusy(runner: Runner): void {
  const busy = runner.pending.size > 0 || runner.stopping.size > 0;
  const stderr = runner.child.stderr as (NodeJS.ReadableStream & { ref?(): void; unref?(): void }) | null;
  for (const handle of [runner.child, runner.child.channel, stderr]) {
    if (busy) handle?.ref?.();
    else handle?.unref?.();
  }
}

function tail(runner: Runner): string {
  const text = runner.stderrTail.trim();
  return text === "" ? "" : `: ${text.split("\n").slice(-3).join(" / ")}`;
}
