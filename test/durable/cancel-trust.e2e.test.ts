import { existsSync, readFileSync } from "node:fs";
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

let cluster: RestateCluster;
let worker: Worker;
const servers: ModelServer[] = [];

beforeAll(async () => {
  cluster = await startRestate();
  worker = await startWorker(cluster, await freePort(), { ...(await workerPaths(cluster, "w")), env: KEYS });
}, 120_000);

afterAll(async () => {
  await worker?.kill();
  for (const server of servers) await server.close();
  await cluster?.stop();
});

it("gantry cancel stops the running command and ends the session as cancelled", {
  timeout: 300_000,
}, async () => {
  const repo = await createGitRepo(path.join(cluster.dir, "repo-cancel"), { "c.txt": "c\n" });
  const marks = path.join(cluster.dir, "cancel.log");
  const model = await startModelServer([
    {
      toolCalls: [
        {
          name: "run_command",
          args: {
            CommandLine: `echo started >> ${marks}; sleep 600; echo finished >> ${marks}`,
            Cwd: ".",
            WaitMsBeforeAsync: 900_000,
          },
        },
      ],
    },
  ]);
  servers.push(model);
  const id = await submit(cluster, model, repo, "run for a long time", ["--approval-mode", "yolo"]);
  await waitFor(
    () => existsSync(marks),
    120_000,
    () => `the command never started: ${worker.output()}`,
  );
  const cancel = await runGantry(["cancel", "--ingress", cluster.ingress, id], { timeoutMs: 60_000 });
  expect(cancel.code, cancel.stderr).toBe(0);
  // well before the command's 600 s: the abort ended it
  const end = await waitForState(cluster, id, ["cancelled", "completed", "failed"], 60_000);
  expect(end.state).toBe("cancelled");
  const follow = await runGantry(["sessions", "--ingress", cluster.ingress, id, "--follow"], {
    timeoutMs: 60_000,
  });
  expect(follow.code).toBe(130);
  expect(follow.stdout).toContain('"error":"interrupted"');
  expect(readFileSync(marks, "utf8")).toBe("started\n");
  const again = await runGantry(["cancel", "--ingress", cluster.ingress, id], { timeoutMs: 60_000 });
  expect(again.code).toBe(1);
  model.assertDone();
});

const DENY_HOOK = JSON.stringify({
  gate: {
    pre_tool_execution: [
      {
        matcher: "run_command",
        hooks: [{ type: "command", command: `echo '{"decision":"deny","reason":"the repository says no"}'` }],
      },
    ],
  },
});

it("a checked-out repository is untrusted: its hooks run only when the submitter passes --trust", {
  timeout: 300_000,
}, async () => {
  const repo = await createGitRepo(path.join(cluster.dir, "repo-hooks"), { ".agents/hooks.json": DENY_HOOK });
  const ran = path.join(cluster.dir, "hooked.log");
  const call = {
    name: "run_command",
    args: { CommandLine: `echo ran >> ${ran}`, Cwd: ".", WaitMsBeforeAsync: 10_000 },
  };
  const untrusted = await startModelServer([{ toolCalls: [call] }, { text: "ran" }]);
  const trusted = await startModelServer([
    { toolCalls: [call] },
    { text: "denied", expect: (request) => expect(request.text).toContain("the repository says no") },
  ]);
  servers.push(untrusted, trusted);
  const first = await submit(cluster, untrusted, repo, "run it", ["--approval-mode", "yolo"]);
  expect(await waitForState(cluster, first, ["completed", "failed"])).toMatchObject({ state: "completed" });
  expect(readFileSync(ran, "utf8")).toBe("ran\n");
  expect(worker.output()).toMatch(/hooks\.json: ignored .*not trusted/);
  const second = await submit(cluster, trusted, repo, "run it", ["--approval-mode", "yolo", "--trust"]);
  expect(await waitForState(cluster, second, ["completed", "failed"])).toMatchObject({
    state: "completed",
    result: "denied",
  });
  expect(readFileSync(ran, "utf8")).toBe("ran\n");
  untrusted.assertDone();
  trusted.assertDone();
});
