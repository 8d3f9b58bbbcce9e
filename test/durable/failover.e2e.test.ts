import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { createGitRepo, type RestateCluster, type Worker, waitFor } from "../support/restate.js";
import { command, startTwoMachines, status, submit, waitForState } from "./support.js";

let cluster: RestateCluster;
let workers: Worker[] = [];
let model: ModelServer | undefined;

beforeAll(async () => {
  // separate workdirs, as on two machines: another worker checks the workspace out anew
  ({ cluster, workers } = await startTwoMachines());
}, 120_000);

afterAll(async () => {
  for (const worker of workers) await worker.kill();
  await model?.close();
  await cluster?.stop();
});

it("a worker killed mid-call: the session completes on the other, no side effect runs twice, the model hears of the interruption", {
  timeout: 300_000,
}, async () => {
  const repo = await createGitRepo(path.join(cluster.dir, "repo"), { "app.txt": "v1\n" });
  const log = path.join(cluster.dir, "effects.log");
  model = await startModelServer([
    { toolCalls: [command(`echo one >> ${log}`)] },
    {
      toolCalls: [
        {
          name: "write_to_file",
          args: {
            TargetFile: "made.txt",
            Overwrite: false,
            CodeContent: "made before the crash\n",
            Description: "a file",
          },
        },
      ],
    },
    // the call in flight when its worker dies
    { toolCalls: [command(`echo two-start >> ${log}; sleep 600; echo two-end >> ${log}`)] },
    {
      toolCalls: [command(`echo three >> ${log}; cat made.txt >> ${log}`)],
      expect: (request) => expect(request.text).toContain("run_command was interrupted"),
    },
    { text: "finished after the move" },
  ]);
  const id = await submit(cluster, model, repo, "do three things", ["--approval-mode", "yolo"]);
  await waitFor(
    () => existsSync(log) && readFileSync(log, "utf8").includes("two-start"),
    120_000,
    () => `the second call never started: ${workers.map((w) => w.output()).join("\n")}`,
  );
  const before = await status(cluster, id);
  const victim = workers.find((worker) => worker.id === before.worker);
  const survivor = workers.find((worker) => worker !== victim);
  expect(victim, `status names the worker running the session: ${JSON.stringify(before)}`).toBeDefined();
  await victim?.kill("SIGKILL");
  const end = await waitForState(cluster, id, ["completed", "failed", "cancelled"], 180_000);
  expect(end, survivor?.output()).toMatchObject({
    state: "completed",
    result: "finished after the move",
    worker: survivor?.id,
  });
  // every completed call ran once, the interrupted one was not run again, and the file written before the crash followed the session
  expect(readFileSync(log, "utf8")).toBe("one\ntwo-start\nthree\nmade before the crash\n");
  expect(model.requests).toHaveLength(5);
  model.assertDone();
});

it("a second prompt to the same session continues its conversation and its workspace", {
  timeout: 300_000,
}, async () => {
  const repo = await createGitRepo(path.join(cluster.dir, "repo-followup"), { "base.txt": "base\n" });
  const followUp = await startModelServer([
    {
      toolCalls: [
        {
          name: "write_to_file",
          args: {
            TargetFile: "kept.txt",
            Overwrite: false,
            CodeContent: "from prompt one\n",
            Description: "a file",
          },
        },
      ],
    },
    { text: "wrote it" },
    {
      toolCalls: [{ name: "view_file", args: { AbsolutePath: "kept.txt" } }],
      expect: (request) => {
        expect(request.text).toContain("write the file");
        expect(request.text).toContain("now read it back");
      },
    },
    { text: "read it", expect: (request) => expect(request.text).toContain("from prompt one") },
  ]);
  const id = await submit(cluster, followUp, repo, "write the file", ["--approval-mode", "yolo"]);
  expect(await waitForState(cluster, id, ["completed", "failed"])).toMatchObject({
    state: "completed",
    result: "wrote it",
  });
  const sent = await fetch(`${cluster.ingress}/GantrySession/${id}/prompt/send`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      prompt: "now read it back",
      model: "openai:test-model",
      baseUrl: followUp.baseUrl("openai"),
      approvalMode: "yolo",
    }),
  });
  expect(sent.ok).toBe(true);
  await waitFor(
    async () => (await status(cluster, id)).result === "read it",
    120_000,
    () => "the second prompt did not finish",
  );
  expect(await status(cluster, id)).toMatchObject({ state: "completed", prompts: 2, turns: 4 });
  followUp.assertDone();
  await followUp.close();
});
