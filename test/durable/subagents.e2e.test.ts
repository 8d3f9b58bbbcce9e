import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runGantry } from "../support/cli.js";
import {
  type ModelServer,
  type RecordedRequest,
  type ScriptedTurn,
  startModelServer,
} from "../support/model-server.js";
import { createGitRepo, type RestateCluster, type Worker, waitFor } from "../support/restate.js";
import { command, startTwoMachines, status, submit, waitForState } from "./support.js";

let cluster: RestateCluster;
let workers: Worker[] = [];
const models: ModelServer[] = [];

beforeAll(async () => {
  // separate workdirs, as on two machines: another worker checks the workspace out anew
  ({ cluster, workers } = await startTwoMachines());
}, 120_000);

afterAll(async () => {
  for (const worker of workers) await worker.kill();
  for (const model of models) await model.close();
  await cluster?.stop();
});

const agentCall = (prompt: string) => ({
  name: "agent",
  args: { description: "child task", prompt, subagent_type: "general-purpose" },
});

/** The workspace folder a request's system prompt names. */
const rootOf = (request: RecordedRequest) =>
  /You work in the workspace (\S+) on/.exec(request.text)?.[1] ?? "(no workspace in the prompt)";

/** The invocations of a handler Restate knows of, from its admin SQL. */
async function invocations(handler: "subagent"): Promise<{ key: string; status: string }[]> {
  const response = await fetch(`${cluster.admin}/query`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({
      query: `SELECT target_service_key AS key, status FROM sys_invocation WHERE target_handler_name = '${handler}'`,
    }),
  });
  if (!response.ok) throw new Error(`admin query ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { rows: { key: string; status: string }[] }).rows;
}

it("a durable session's agent call runs the child as its own invocation in the parent's workspace; its changes and report come back", {
  timeout: 300_000,
}, async () => {
  const repo = await createGitRepo(path.join(cluster.dir, "repo"), { "app.txt": "v1\n" });
  const log = path.join(cluster.dir, "child.log");
  // the parent names its file by its absolute path, as models do: the child reads it in its own folder
  const roots = { parent: "", child: "" };
  const delegate = agentCall("");
  const report = { text: "" };
  const model = await startModelServer([
    { toolCalls: [command("echo made by the parent > parent.txt")] },
    {
      toolCalls: [delegate],
      expect: (request) => {
        roots.parent = rootOf(request);
        delegate.args.prompt = `copy ${roots.parent}/parent.txt and add yours`;
      },
    },
    // the child, on whichever worker Restate picked, in a checkout that has the parent's change
    {
      toolCalls: [command(`cat parent.txt >> ${log}; echo made by the child > child.txt`)],
      expect: (request) => {
        roots.child = rootOf(request);
        expect(roots.child).toMatch(/\.agent-1-1$/);
        expect(request.text).toContain(`copy ${roots.child}/parent.txt and add yours`);
        expect(request.text).not.toContain(`${roots.parent}/parent.txt`);
        report.text = `child report: ${roots.child}/child.txt written`;
      },
    },
    report,
    // the parent again: the report is the call's result, in its paths, and the child's file is in its workspace
    {
      toolCalls: [command(`cat child.txt >> ${log}`)],
      expect: (request) => expect(request.text).toContain(`child report: ${roots.parent}/child.txt written`),
    },
    { text: "all done" },
  ]);
  models.push(model);
  const id = await submit(cluster, model, repo, "delegate", ["--approval-mode", "yolo"]);
  expect(await waitForState(cluster, id, ["completed", "failed", "cancelled"])).toMatchObject({
    state: "completed",
    result: "all done",
  });
  expect(readFileSync(log, "utf8")).toBe("made by the parent\nmade by the child\n");
  const child = await status(cluster, `${id}.agent-1-1`);
  const answer = `child report: ${roots.parent}/child.txt written`;
  expect(child).toMatchObject({ state: "completed", result: answer });
  expect(workers.map((worker) => worker.id)).toContain(child.worker);
  expect(await invocations("subagent")).toContainEqual({ key: `${id}.agent-1-1`, status: "completed" });
  // the child's own lines, and the parent's line that names it
  const follow = (key: string) =>
    runGantry(["sessions", "--ingress", cluster.ingress, key, "--follow"], { timeoutMs: 60_000 });
  const childLines = await follow(`${id}.agent-1-1`);
  expect(childLines.code, childLines.stderr).toBe(0);
  expect(childLines.stdout).toContain("echo made by the child > child.txt");
  expect(JSON.parse(childLines.stdout.trim().split("\n").at(-1) ?? "")).toMatchObject({
    type: "result",
    subtype: "success",
    result: answer,
  });
  const parentLines = await follow(id);
  expect(parentLines.stdout).toContain(`"subagent_session_id":"${id}.agent-1-1"`);
  model.assertDone();
});

it("a worker killed while the child runs: the child finishes on the other, the parent completes, no side effect twice", {
  timeout: 300_000,
}, async () => {
  const repo = await createGitRepo(path.join(cluster.dir, "repo-kill"), { "app.txt": "v1\n" });
  const log = path.join(cluster.dir, "kill.log");
  const model = await startModelServer([
    { toolCalls: [agentCall("do two things")] },
    { toolCalls: [command(`echo one >> ${log}`)] },
    // in flight when its worker dies
    { toolCalls: [command(`echo two-start >> ${log}; sleep 600; echo two-end >> ${log}`)] },
    {
      text: "child: the second thing was interrupted",
      expect: (request) => expect(request.text).toContain("run_command was interrupted"),
    },
    {
      text: "parent done",
      expect: (request) => expect(request.text).toContain("child: the second thing was interrupted"),
    },
  ]);
  models.push(model);
  const id = await submit(cluster, model, repo, "delegate and survive", ["--approval-mode", "yolo"]);
  await waitFor(
    () => existsSync(log) && readFileSync(log, "utf8").includes("two-start"),
    120_000,
    () => `the child's second call never started: ${workers.map((w) => w.output()).join("\n")}`,
  );
  const child = await status(cluster, `${id}.agent-1-1`);
  const victim = workers.find((worker) => worker.id === child.worker);
  expect(victim, `the child's status names its worker: ${JSON.stringify(child)}`).toBeDefined();
  await victim?.kill("SIGKILL");
  const end = await waitForState(cluster, id, ["completed", "failed", "cancelled"], 180_000);
  expect(end).toMatchObject({ state: "completed", result: "parent done" });
  const survivor = workers.find((worker) => worker !== victim);
  expect(await status(cluster, `${id}.agent-1-1`)).toMatchObject({
    state: "completed",
    worker: survivor?.id,
  });
  expect(readFileSync(log, "utf8")).toBe("one\ntwo-start\n");
  // one invocation for the child, though its worker (and maybe its parent's) died under it
  const runs = (await invocations("subagent")).filter((run) => run.key === `${id}.agent-1-1`);
  expect(runs).toHaveLength(1);
  model.assertDone();
});

/** A child's turn that fits whichever child asks: its command first, then its report. */
function childTurn(): ScriptedTurn {
  const turn: {
    text?: string;
    toolCalls?: ReturnType<typeof command>[];
    expect: (r: RecordedRequest) => void;
  } = {
    expect: (request) => {
      const which = request.text.includes("task one") ? "one" : "two";
      if (request.text.includes(`> ${which}.txt`)) turn.text = `${which} done`;
      else turn.toolCalls = [command(`echo ${which} > ${which}.txt`)];
    },
  };
  return turn;
}

it("invoke_subagent's two agents run as two invocations, and both their changes come back to the parent", {
  timeout: 300_000,
}, async () => {
  const repo = await createGitRepo(path.join(cluster.dir, "repo-two"), { "app.txt": "v1\n" });
  const log = path.join(cluster.dir, "two.log");
  const model = await startModelServer([
    {
      toolCalls: [
        { name: "invoke_subagent", args: { Subagents: [{ Prompt: "task one" }, { Prompt: "task two" }] } },
      ],
    },
    childTurn(),
    childTurn(),
    childTurn(),
    childTurn(),
    {
      toolCalls: [command(`cat one.txt two.txt >> ${log}`)],
      expect: (request) => {
        expect(request.text).toContain("one done");
        expect(request.text).toContain("two done");
      },
    },
    { text: "both done" },
  ]);
  models.push(model);
  const id = await submit(cluster, model, repo, "delegate two", ["--approval-mode", "yolo"]);
  expect(await waitForState(cluster, id, ["completed", "failed", "cancelled"])).toMatchObject({
    state: "completed",
    result: "both done",
    subagents: [`${id}.agent-1-1`, `${id}.agent-1-2`],
  });
  expect(readFileSync(log, "utf8")).toBe("one\ntwo\n");
  model.assertDone();
});

it("a child gets its parent's approval mode: in default mode its command is denied as a local subagent's is, and invoke_subagent waits for it", {
  timeout: 300_000,
}, async () => {
  const repo = await createGitRepo(path.join(cluster.dir, "repo-ask"), { "app.txt": "v1\n" });
  const log = path.join(cluster.dir, "denied.log");
  const model = await startModelServer([
    // from the main agent invoke_subagent would run in the background; here it is waited for
    { toolCalls: [{ name: "invoke_subagent", args: { Subagents: [{ Prompt: "run the command" }] } }] },
    { toolCalls: [command(`echo ran >> ${log}`)] },
    {
      text: "child: it needs approval",
      expect: (request) => expect(request.text).toContain("A subagent cannot ask the user"),
    },
    {
      text: "parent done",
      expect: (request) => expect(request.text).toContain("0: Agent"),
    },
  ]);
  models.push(model);
  const id = await submit(cluster, model, repo, "delegate a command");
  expect(await waitForState(cluster, id, ["completed", "failed", "cancelled"])).toMatchObject({
    state: "completed",
    result: "parent done",
    subagents: [`${id}.agent-1-1`],
  });
  expect(model.requests[3]?.text).toContain("child: it needs approval");
  expect(existsSync(log)).toBe(false);
  model.assertDone();
});

it("cancelling the parent cancels its running child", { timeout: 300_000 }, async () => {
  const repo = await createGitRepo(path.join(cluster.dir, "repo-cancel"), { "app.txt": "v1\n" });
  const marks = path.join(cluster.dir, "cancel.log");
  const model = await startModelServer([
    { toolCalls: [agentCall("wait a long time")] },
    { toolCalls: [command(`echo started >> ${marks}; sleep 600; echo finished >> ${marks}`)] },
  ]);
  models.push(model);
  const id = await submit(cluster, model, repo, "delegate and wait", ["--approval-mode", "yolo"]);
  await waitFor(
    () => existsSync(marks),
    120_000,
    () => "the child's command never started",
  );
  const cancel = await runGantry(["cancel", "--ingress", cluster.ingress, id], { timeoutMs: 60_000 });
  expect(cancel.code, cancel.stderr).toBe(0);
  expect((await waitForState(cluster, id, ["cancelled", "completed", "failed"], 60_000)).state).toBe(
    "cancelled",
  );
  expect(
    (await waitForState(cluster, `${id}.agent-1-1`, ["cancelled", "completed", "failed"], 60_000)).state,
  ).toBe("cancelled");
  expect(readFileSync(marks, "utf8")).toBe("started\n");
  model.assertDone();
});

it("the subagent handler refuses a session's own key and a malformed request, at once", async () => {
  const post = (key: string, body: unknown) =>
    fetch(`${cluster.ingress}/GantrySession/${key}/subagent`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const own = await post("gs-plain", {});
  expect(own.status).toBe(400);
  expect(await own.text()).toContain("keys <session>.agent-<prompt>-<n>");
  const malformed = await post("gs-plain.agent-1-1", { request: { prompt: "" } });
  expect(malformed.status).toBe(400);
  expect(await malformed.text()).toContain("bad subagent request");
});
