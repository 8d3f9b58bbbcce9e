import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { GANTRY_BIN } from "./cli.js";

/**
 * A real `restate-server` from the npm package, bound to 127.0.0.1 only, on free ports, with its own
 * data folder; `stop` kills it. `timeout` kills it too should the test process die first.
 */
export interface RestateCluster {
  ingress: string;
  admin: string;
  /** A temp folder of this cluster's test: data, workers' workdirs and homes go under it. */
  dir: string;
  log(): string;
  stop(): Promise<void>;
}

const LIFETIME_S = 900;

export function restateServerBinary(): string {
  const require = createRequire(import.meta.url);
  return require.resolve(`@restatedev/restate-server-${process.platform}-${process.arch}/bin/restate-server`);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface RestateOptions {
  /** An ed25519 private key (PKCS#8 PEM): Restate signs its requests to workers with it. */
  identityKeyPem?: string;
}

export async function startRestate(options: RestateOptions = {}): Promise<RestateCluster> {
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), "gantry-restate-")));
  const [fabric, admin, ingress] = [await freePort(), await freePort(), await freePort()];
  const config = path.join(dir, "restate.toml");
  const keyFile = path.join(dir, "identity.pem");
  if (options.identityKeyPem) await writeFile(keyFile, options.identityKeyPem);
  await writeFile(
    config,
    [
      'cluster-name = "gantry-test"',
      'node-name = "n1"',
      'bind-ip = "127.0.0.1"',
      `bind-port = ${fabric}`,
      'listen-mode = "tcp"',
      "disable-telemetry = true",
      `base-dir = ${JSON.stringify(path.join(dir, "data"))}`,
      "default-num-partitions = 8",
      "[admin]",
      `bind-port = ${admin}`,
      "disable-web-ui = true",
      "[ingress]",
      `bind-port = ${ingress}`,
      ...(options.identityKeyPem
        ? ["[worker.invoker]", `request-identity-private-key-pem-file = ${JSON.stringify(keyFile)}`]
        : []),
      "",
    ].join("\n"),
  );
  let output = "";
  const child = spawn(
    "timeout",
    ["--signal=KILL", `${LIFETIME_S}s`, restateServerBinary(), "--config-file", config, "--no-logo"],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, RUST_LOG: "warn", NO_COLOR: "1" },
      // a group of its own, so one kill ends `timeout` and the server under it
      detached: true,
    },
  );
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const cluster: RestateCluster = {
    ingress: `http://127.0.0.1:${ingress}`,
    admin: `http://127.0.0.1:${admin}`,
    dir,
    log: () => output,
    stop: async () => {
      await stopChild(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await waitFor(
      async () => (await fetch(`${cluster.admin}/health`)).ok,
      60_000,
      () => `restate-server did not start:\n${output}`,
    );
    await waitFor(
      async () => (await fetch(`${cluster.ingress}/restate/health`)).ok,
      60_000,
      () => `restate ingress did not start:\n${output}`,
    );
  } catch (cause) {
    await cluster.stop();
    throw cause;
  }
  return cluster;
}

export interface Worker {
  child: ChildProcess;
  pid: number;
  /** The worker id status reports: host:pid. */
  id: string;
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** `gantry worker` from the built CLI, on `port` (several workers share one port), registered with the cluster. */
export async function startWorker(
  cluster: RestateCluster,
  port: number,
  options: { workdir: string; home: string; env?: Record<string, string>; args?: string[] },
): Promise<Worker> {
  await mkdir(options.workdir, { recursive: true });
  let output = "";
  const child = spawn(
    "timeout",
    [
      "--signal=KILL",
      `${LIFETIME_S}s`,
      process.execPath,
      GANTRY_BIN,
      "worker",
      "--port",
      String(port),
      "--admin",
      cluster.admin,
      "--workdir",
      options.workdir,
      ...(options.args ?? []),
    ],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, HOME: options.home, ...options.env },
      detached: true,
    },
  );
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(
    async () => /serving /.test(output),
    60_000,
    () => `gantry worker did not start:\n${output}`,
  );
  const pid = Number(/:(\d+) serving/.exec(output)?.[1]);
  return {
    child,
    pid,
    id: /gantry worker: (\S+) serving/.exec(output)?.[1] ?? "",
    output: () => output,
    kill: (signal = "SIGKILL") => stopChild(child, signal),
  };
}

/** Kills the child's whole process group (`timeout` and what runs under it) and waits for it. */
async function stopChild(child: ChildProcess, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  try {
    process.kill(-child.pid, signal);
  } catch {
    // gone already
  }
  await exited;
}

export async function waitFor(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  what: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(what());
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A git repository with `files` in one commit, for a session to check out. */
export async function createGitRepo(dir: string, files: Record<string, string>): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), content);
  }
  const git = (...args: string[]) =>
    execFileSync("git", ["-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", ...args], { stdio: "pipe" });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "start");
  return dir;
}
