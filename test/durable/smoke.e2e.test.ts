import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runGantry } from "../support/cli.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import {
  createGitRepo,
  freePort,
  type RestateCluster,
  startRestate,
  startWorker,
  type Worker,
} from "../support/restate.js";
import { KEYS, submit, waitForState, workerPaths } from "./support.js";

let cluster: RestateCluster;
let worker: Worker;
const servers: ModelServer[] = [];

beforeAll(async () => {
  cluster = await startRestate();
  worker = await startWorker(cluster, await freePort(), { ...(await workerPaths(cluster, "w1")), env: KEYS });
}, 120_000);

afterAll(async () => {
  await worker?.kill();
  for (const server of servers) await server.close();
  await cluster?.stop();
});

it("runs a session to the end and streams its stream-json lines", { timeout: 180_000 }, async () => {
  const repo = await createGitRepo(path.join(cluster.dir, "repo"), { "README.md": "hello\n" });
  const model = await startModelServer([
    {
      toolCalls: [
        {
          name: "run_command",
          args: { CommandLine: `echo ran >> ${cluster.dir}/count.log`, Cwd: ".", WaitMsBeforeAsync: 5000 },
        },
      ],
    },
    { text: "all done" },
  ]);
  servers.push(model);
  const id = await submit(cluster, model, repo, "count once", ["--approval-mode", "yolo"]);
  const end = await waitForState(cluster, id, ["completed", "failed"]);
  expect(end, worker.output()).toMatchObject({ state: "completed", result: "all done", worker: worker.id });
  expect(readFileSync(path.join(cluster.dir, "count.log"), "utf8")).toBe("ran\n");
  const follow = await runGantry(["sessions", "--ingress", cluster.ingress, id, "--follow"], {
    timeoutMs: 60_000,
  });
  const lines = follow.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  expect(lines[0]).toMatchObject({ type: "system", subtype: "init", session_id: id });
  expect(lines.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "all done" });
  expect(follow.code).toBe(0);
  model.assertDone();
});
