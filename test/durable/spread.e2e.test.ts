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
  waitFor,
} from "../support/restate.js";
import { KEYS, submit, waitForState, workerPaths } from "./support.js";

const SESSIONS = 20;
let cluster: RestateCluster;
const workers: Worker[] = [];
const servers: ModelServer[] = [];

beforeAll(async () => {
  cluster = await startRestate();
  const port = await freePort();
  // two workers on one address (SO_REUSEPORT): the kernel spreads Restate's connections over them
  for (const name of ["w1", "w2"])
    workers.push(await startWorker(cluster, port, { ...(await workerPaths(cluster, name)), env: KEYS }));
}, 120_000);

afterAll(async () => {
  for (const worker of workers) await worker.kill();
  for (const server of servers) await server.close();
  await cluster?.stop();
});

it("runs 20 concurrent sessions spread over both workers, each tool call once", {
  timeout: 300_000,
}, async () => {
  const repo = await createGitRepo(path.join(cluster.dir, "repo"), { "notes.md": "the answer is 42\n" });
  const log = path.join(cluster.dir, "calls.log");
  const ids: string[] = [];
  // every session's first turn waits until all are submitted: a session that ended before the next one
  // started would hand its connection on, and on a loaded machine all of them could reuse one connection
  let allSubmitted = () => {};
  const submitted = new Promise<void>((resolve) => {
    allSubmitted = resolve;
  });
  for (let n = 0; n < SESSIONS; n++) {
    const model = await startModelServer([
      { toolCalls: [{ name: "view_file", args: { AbsolutePath: "notes.md" } }], waitFor: submitted },
      {
        toolCalls: [
          {
            name: "run_command",
            args: { CommandLine: `echo session-${n} >> ${log}`, Cwd: ".", WaitMsBeforeAsync: 10_000 },
          },
        ],
      },
      { text: `session ${n} done`, expect: (request) => expect(request.text).toContain(`session-${n}`) },
    ]);
    servers.push(model);
    ids.push(
      await submit(cluster, model, repo, `session ${n}: read the notes and count`, [
        "--approval-mode",
        "yolo",
      ]),
    );
  }
  allSubmitted();
  const ends = await Promise.all(
    ids.map((id) => waitForState(cluster, id, ["completed", "failed", "cancelled"], 240_000)),
  );
  for (const [n, end] of ends.entries())
    expect(end, workers.map((w) => w.output()).join("\n")).toMatchObject({
      state: "completed",
      result: `session ${n} done`,
    });
  const ranOn = new Set(ends.map((end) => end.worker));
  expect([...ranOn].sort()).toEqual(workers.map((worker) => worker.id).sort());
  const calls = readFileSync(log, "utf8").trim().split("\n").sort();
  expect(calls).toEqual(Array.from({ length: SESSIONS }, (_, n) => `session-${n}`).sort());
  for (const server of servers) server.assertDone();
  // the index `gantry sessions` lists is told of each session's end by a one-way message, so it may
  // show a session that has just completed as running for a moment
  const completedIn = (stdout: string) =>
    ids.every((id) => new RegExp(`^${id}\\tcompleted\\t`, "m").test(stdout));
  let listed = await runGantry(["sessions", "--ingress", cluster.ingress], { timeoutMs: 60_000 });
  await waitFor(
    async () => {
      if (completedIn(listed.stdout)) return true;
      listed = await runGantry(["sessions", "--ingress", cluster.ingress], { timeoutMs: 60_000 });
      return false;
    },
    30_000,
    () => `the index did not list every session completed: ${listed.stdout}`,
  );
  expect(listed.code).toBe(0);
  for (const id of ids) expect(listed.stdout).toMatch(new RegExp(`^${id}\\tcompleted\\t`, "m"));
  // the same lines as `gantry -p --output-format stream-json`, from whichever worker ran them
  const follow = await runGantry(["sessions", "--ingress", cluster.ingress, ids[0] as string, "--follow"], {
    timeoutMs: 60_000,
  });
  const lines = follow.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  expect(lines[0]).toMatchObject({ type: "system", subtype: "init", session_id: ids[0] });
  expect(lines.map((line) => line.type)).toEqual(
    expect.arrayContaining(["assistant", "user", "tool_result", "turn_end", "done"]),
  );
  expect(lines.at(-1)).toMatchObject({ type: "result", subtype: "success", result: "session 0 done" });
  expect(follow.code).toBe(0);
});
