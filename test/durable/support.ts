import { mkdir } from "node:fs/promises";
import path from "node:path";
import { runGantry } from "../support/cli.js";
import type { ModelServer } from "../support/model-server.js";
import {
  freePort,
  type RestateCluster,
  startRestate,
  startWorker,
  type Worker,
  waitFor,
} from "../support/restate.js";

export const KEYS = { OPENAI_API_KEY: "test-key" };

/** `gantry submit` against the cluster, the session's model the scripted server; returns the session id. */
export async function submit(
  cluster: RestateCluster,
  model: ModelServer,
  repo: string,
  prompt: string,
  extra: string[] = [],
): Promise<string> {
  const run = await runGantry(
    [
      "submit",
      "--ingress",
      cluster.ingress,
      "-p",
      prompt,
      "--repo",
      repo,
      "--model",
      "openai:test-model",
      "--base-url",
      model.baseUrl("openai"),
      ...extra,
    ],
    { env: { HOME: path.join(cluster.dir, "submitter") }, timeoutMs: 60_000 },
  );
  if (run.code !== 0) throw new Error(`gantry submit exited ${run.code}: ${run.stderr}`);
  return run.stdout.trim();
}

export interface StatusView {
  state: string;
  worker?: string;
  turns: number;
  asks: { askId: string; awakeableId: string; pending: { kind: string } }[];
  subagents?: string[];
  result?: string;
  error?: string;
}

export async function status(cluster: RestateCluster, id: string): Promise<StatusView> {
  const response = await fetch(`${cluster.ingress}/GantrySession/${id}/status`, { method: "POST" });
  if (!response.ok) throw new Error(`status ${response.status}: ${await response.text()}`);
  return (await response.json()) as StatusView;
}

export async function waitForState(
  cluster: RestateCluster,
  id: string,
  states: string[],
  timeoutMs = 120_000,
): Promise<StatusView> {
  let last: StatusView | undefined;
  await waitFor(
    async () => {
      last = await status(cluster, id);
      return states.includes(last.state);
    },
    timeoutMs,
    () => `session ${id} did not reach ${states.join("|")}: ${JSON.stringify(last)}`,
  );
  return last as StatusView;
}

/**
 * A worker's home and workdir. Workers on one machine share the workdir (a session's folder then has
 * the same path wherever it runs); `ownWorkdir` gives each its own, as on separate machines.
 */
export async function workerPaths(
  cluster: RestateCluster,
  name: string,
  options: { ownWorkdir?: boolean } = {},
): Promise<{ workdir: string; home: string }> {
  const home = path.join(cluster.dir, `${name}-home`);
  await mkdir(home, { recursive: true });
  return { workdir: path.join(cluster.dir, options.ownWorkdir ? `${name}-workdir` : "workdir"), home };
}

/** A cluster with two workers on one port, each with its own workdir, as on two machines. */
export async function startTwoMachines(): Promise<{ cluster: RestateCluster; workers: Worker[] }> {
  const cluster = await startRestate();
  const port = await freePort();
  const workers: Worker[] = [];
  for (const name of ["w1", "w2"])
    workers.push(
      await startWorker(cluster, port, {
        ...(await workerPaths(cluster, name, { ownWorkdir: true })),
        env: KEYS,
      }),
    );
  return { cluster, workers };
}

/** A run_command call as the scripted model makes it, waiting for the command in the foreground. */
export const command = (line: string) => ({
  name: "run_command",
  args: { CommandLine: line, Cwd: ".", WaitMsBeforeAsync: 30_000 },
});
