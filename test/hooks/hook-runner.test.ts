import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { configureHookRunner, hookRunnerPid } from "../../src/hooks/hook-runner.js";
import { type CommandHookRequest, runCommandHook } from "../../src/hooks/run-command.js";
import { REPO_ROOT } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { pidsWith, uniqueMarker, waitFor } from "../tools/exec/helpers.js";

// Command hooks start from a small runner process of the session's (src/hooks/hook-runner.ts). The
// runner is the build's script: these tests drive the built one, as `npm test` builds first.
const RUNNER = path.join(REPO_ROOT, "dist", "hooks", "hook-runner-process.js");
const RUN_COMMAND = path.join(REPO_ROOT, "dist", "hooks", "run-command.js");

let ws: TempWorkspace | undefined;
beforeAll(() => {
  if (!existsSync(RUNNER)) throw new Error(`${RUNNER} is missing: run \`npm run build\` first`);
  configureHookRunner({ entry: RUNNER });
});
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});
afterAll(() => configureHookRunner({ entry: false }));

const request = (command: string, extra: Partial<CommandHookRequest> = {}): CommandHookRequest => ({
  command,
  input: "{}",
  cwd: process.cwd(),
  env: process.env,
  timeoutMs: 10_000,
  maxOutputBytes: 4096,
  ...extra,
});

/** The parent of a process, from /proc. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

function ancestors(pid: number): number[] {
  const chain: number[] = [];
  for (let at = parentOf(pid); at !== undefined && at > 1; at = parentOf(at)) chain.push(at);
  return chain;
}

/** Whether a process lives (a zombie waiting for its parent to reap it does not). */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

describe("the hook runner", () => {
  it("starts a hook from its own process, with the hook's input, environment and folder, and answers as a spawn from here does", async () => {
    ws = await createTempWorkspace();
    // a sleep of half a second, told apart from other tests' by its digits
    const marker = `0.5${uniqueMarker().replace(".", "")}`;
    const outcome = runCommandHook(
      request(`cat; printf ' %s %s\\n' "$HOOK_VALUE" "$(pwd)"; echo problem >&2; sleep ${marker}; exit 3`, {
        input: '{"tool":"view_file"}',
        cwd: ws.root,
        env: { ...process.env, HOOK_VALUE: "from the session" },
      }),
    );
    expect(await waitFor(() => pidsWith(`sleep ${marker}`).length > 0)).toBe(true);
    const runner = await hookRunnerPid();
    expect(runner).toBeDefined();
    const [sleeper] = pidsWith(`sleep ${marker}`);
    const chain = ancestors(sleeper as number);
    // the hook's processes descend from the runner, which is this process's child
    expect(chain).toContain(runner);
    expect(chain.indexOf(runner as number)).toBeLessThan(chain.indexOf(process.pid));
    expect(parentOf(runner as number)).toBe(process.pid);
    await expect(outcome).resolves.toEqual({
      ok: true,
      exit: {
        exitCode: 3,
        exitSignal: null,
        stdout: `{"tool":"view_file"} from the session ${ws.root}\n`,
        stderr: "problem\n",
        stdoutOverflow: false,
      },
    });
  });

  it("ends a hook past its timeout, with a setsid grandchild, and one whose call is aborted", async () => {
    const marker = uniqueMarker();
    const timedOut = await runCommandHook(
      request(`(setsid sleep ${marker} > /dev/null 2>&1 &); sleep ${marker}`, {
        timeoutMs: 300,
        killGraceMs: 100,
      }),
    );
    expect(timedOut).toEqual({ ok: false, failure: "timed out after 0.3 s" });
    expect(await waitFor(() => pidsWith(`sleep ${marker}`).length === 0)).toBe(true);
    const aborted = new AbortController();
    const other = uniqueMarker();
    const pending = runCommandHook(request(`sleep ${other}`, { signal: aborted.signal, killGraceMs: 100 }));
    expect(await waitFor(() => pidsWith(`sleep ${other}`).length > 0)).toBe(true);
    aborted.abort();
    expect(await pending).toEqual({ ok: false, failure: "aborted" });
    expect(await waitFor(() => pidsWith(`sleep ${other}`).length === 0)).toBe(true);
  });

  it("fails a hook it was running when it dies, saying so, and leaves no process of it; later hooks start from here", async () => {
    const marker = uniqueMarker();
    const pending = runCommandHook(request(`sleep ${marker}`));
    expect(await waitFor(() => pidsWith(`sleep ${marker}`).length > 0)).toBe(true);
    const runner = (await hookRunnerPid()) as number;
    process.kill(runner, "SIGKILL");
    const outcome = await pending;
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? "" : outcome.failure).toMatch(
      /^the hook runner process ended while the hook ran \(exit SIGKILL\); the hook was stopped$/,
    );
    expect(await waitFor(() => pidsWith(`sleep ${marker}`).length === 0)).toBe(true);
    expect(await hookRunnerPid()).toBeUndefined();
    await expect(runCommandHook(request("echo still"))).resolves.toMatchObject({
      ok: true,
      exit: { exitCode: 0, stdout: "still\n" },
    });
    // a new configuration starts a new runner
    configureHookRunner({ entry: RUNNER });
    await expect(runCommandHook(request("true"))).resolves.toMatchObject({ ok: true });
    expect(await hookRunnerPid()).toBeDefined();
  });

  it("starts hooks from here where there is no runner script", async () => {
    configureHookRunner({ entry: path.join(REPO_ROOT, "no-such-runner.js") });
    await expect(runCommandHook(request("echo here"))).resolves.toMatchObject({
      ok: true,
      exit: { stdout: "here\n" },
    });
    expect(await hookRunnerPid()).toBeUndefined();
    configureHookRunner({ entry: RUNNER });
  });
});

describe("the hook runner and the session's process", () => {
  /**
   * A Node process that runs one hook through the built modules and prints the runner's pid; with
   * `abortAfterMs`, its call is aborted that long after the runner is up, and the process has no more to do.
   */
  function sessionProcess(command: string, abortAfterMs?: number) {
    const script = `
      const { runCommandHook } = await import(${JSON.stringify(RUN_COMMAND)});
      const { hookRunnerPid } = await import(${JSON.stringify(path.join(REPO_ROOT, "dist", "hooks", "hook-runner.js"))});
      const aborted = new AbortController();
      const outcome = runCommandHook({ command: ${JSON.stringify(command)}, input: "{}", cwd: process.cwd(),
        env: process.env, timeoutMs: 30000, maxOutputBytes: 1024, signal: aborted.signal, killGraceMs: 300 });
      ${abortAfterMs === undefined ? "" : `setTimeout(() => aborted.abort(), ${abortAfterMs});`}
      console.log("runner " + (await hookRunnerPid()));
      console.log(JSON.stringify(await outcome));`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    return { child, output: () => out, exited };
  }

  it("does not keep an idle runner's session process alive: a command that is done exits", async () => {
    const session = sessionProcess("echo done");
    const started = Date.now();
    expect(await session.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    const [runnerLine, outcomeLine] = session.output().trim().split("\n");
    expect(runnerLine).toMatch(/^runner \d+$/);
    expect(JSON.parse(outcomeLine as string)).toMatchObject({ ok: true, exit: { stdout: "done\n" } });
    const runner = Number(runnerLine?.slice("runner ".length));
    expect(await waitFor(() => !isRunning(runner))).toBe(true);
  });

  it("ends with the session's process, killed or not, and so does the hook it was running", async () => {
    const marker = uniqueMarker();
    const session = sessionProcess(`(setsid sleep ${marker} > /dev/null 2>&1 &); sleep ${marker}`);
    expect(
      await waitFor(() => /runner \d+/.test(session.output()) && pidsWith(`sleep ${marker}`).length >= 2),
    ).toBe(true);
    const runner = Number(/runner (\d+)/.exec(session.output())?.[1]);
    session.child.kill("SIGKILL");
    await session.exited;
    expect(await waitFor(() => !isRunning(runner))).toBe(true);
    expect(await waitFor(() => pidsWith(`sleep ${marker}`).length === 0)).toBe(true);
  });

  it("waits, once a hook is aborted, until its processes have ended before the process may exit", async () => {
    const marker = uniqueMarker();
    // the shell is the first process of its PID namespace: SIGTERM does not reach it, SIGKILL after the grace does
    const session = sessionProcess(`sleep ${marker}`, 500);
    expect(await waitFor(() => pidsWith(`sleep ${marker}`).length > 0)).toBe(true);
    expect(await session.exited).toBe(0);
    expect(JSON.parse(session.output().trim().split("\n")[1] as string)).toEqual({
      ok: false,
      failure: "aborted",
    });
    // nothing of the hook outlives the process that ran it
    expect(pidsWith(`sleep ${marker}`)).toEqual([]);
  });

  it("does not hold a process whose runner is still starting in the background", async () => {
    ws = await createTempWorkspace();
    // a runner that never says it is ready: before this, its start kept the process for 10 s
    const silent = await ws.write(
      "silent-runner.cjs",
      `process.on("disconnect", () => process.exit(0));\nsetInterval(() => {}, 1000);\n`,
    );
    const script = `
      const { configureHookRunner, prepareHookRunner } = await import(${JSON.stringify(path.join(REPO_ROOT, "dist", "hooks", "hook-runner.js"))});
      configureHookRunner({ entry: ${JSON.stringify(silent)} });
      prepareHookRunner();`;
    const started = Date.now();
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: "ignore" });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
