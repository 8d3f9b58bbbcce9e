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
} from "../support/restate.js";
import { KEYS, submit, waitForState, workerPaths } from "./support.js";

let cluster: RestateCluster;
let port: number;
let worker: Worker;
const servers: ModelServer[] = [];

beforeAll(async () => {
  cluster = await startRestate();
  port = await freePort();
  worker = await startWorker(cluster, port, { ...(await workerPaths(cluster, "w")), env: KEYS });
}, 120_000);

afterAll(async () => {
  await worker?.kill();
  for (const server of servers) await server.close();
  await cluster?.stop();
});

const approve = (id: string, ...words: string[]) =>
  runGantry(["approve", "--ingress", cluster.ingress, id, ...words], { timeoutMs: 60_000 });

/** A UserPromptSubmit hook that counts its runs and adds context for the model. */
const promptHook = (marks: string) =>
  JSON.stringify({
    prompt: {
      user_prompt_submit: [
        {
          matcher: "",
          hooks: [
            {
              type: "command",
              command: `echo fired >> ${marks}; echo '{"additionalContext":"hook context 7"}'`,
            },
          ],
        },
      ],
    },
  });

it("a permission ask waits with no worker running, and the answer given after a restart lets the call run once", {
  timeout: 300_000,
}, async () => {
  const marks = path.join(cluster.dir, "prompt-hook.log");
  const repo = await createGitRepo(path.join(cluster.dir, "repo-ask"), {
    "a.txt": "a\n",
    ".agents/hooks.json": promptHook(marks),
  });
  const log = path.join(cluster.dir, "approved.log");
  const model = await startModelServer([
    {
      toolCalls: [
        {
          name: "run_command",
          args: { CommandLine: `echo approved >> ${log}`, Cwd: ".", WaitMsBeforeAsync: 10_000 },
        },
      ],
    },
    { text: "ran it", expect: (request) => expect(request.text).toContain("approved") },
  ]);
  servers.push(model);
  // the default approval mode asks before a command; a durable session waits for the answer
  const id = await submit(cluster, model, repo, "run the command", ["--trust"]);
  const waiting = await waitForState(cluster, id, ["waiting", "failed", "completed"]);
  expect(waiting.state).toBe("waiting");
  const [ask] = waiting.asks;
  expect(ask?.pending).toMatchObject({ kind: "permission", request: { tool: "run_command" } });
  await worker.kill("SIGKILL");
  expect(existsSync(log)).toBe(false);
  worker = await startWorker(cluster, port, { ...(await workerPaths(cluster, "w")), env: KEYS });
  const wrong = await approve(id, ask?.askId ?? "", "maybe");
  expect(wrong.code).toBe(1);
  expect(wrong.stderr).toMatch(/yes, session .* or no/);
  const answered = await approve(id, ask?.askId ?? "", "yes");
  expect(answered.code, answered.stderr).toBe(0);
  const end = await waitForState(cluster, id, ["completed", "failed"]);
  expect(end).toMatchObject({ state: "completed", result: "ran it", asks: [] });
  expect(readFileSync(log, "utf8")).toBe("approved\n");
  // the replay on the restarted worker took the prompt hook's answer from the journal
  expect(readFileSync(marks, "utf8")).toBe("fired\n");
  model.assertDone();
});

it("ask_question is answered through gantry approve, and a no reaches the model with the reason", {
  timeout: 300_000,
}, async () => {
  const repo = await createGitRepo(path.join(cluster.dir, "repo-question"), { "b.txt": "b\n" });
  const model = await startModelServer([
    {
      toolCalls: [
        {
          name: "ask_question",
          args: { questions: [{ question: "Which colour?", options: ["red", "blue"] }] },
        },
      ],
    },
    {
      toolCalls: [{ name: "delete_file", args: { TargetFile: "b.txt" } }],
      expect: (request) => expect(request.text).toContain("A: blue"),
    },
    { text: "kept the file", expect: (request) => expect(request.text).toContain("keep it") },
  ]);
  servers.push(model);
  const id = await submit(cluster, model, repo, "ask me");
  const question = await waitForState(cluster, id, ["waiting", "failed"]);
  expect(question.asks[0]?.pending.kind).toBe("questions");
  expect((await approve(id, question.asks[0]?.askId ?? "", "blue")).code).toBe(0);
  const permission = await waitForState(cluster, id, ["waiting", "failed"]);
  const askId = permission.asks.find((ask) => ask.pending.kind === "permission")?.askId ?? "";
  expect((await approve(id, askId, "no", "keep", "it")).code).toBe(0);
  const end = await waitForState(cluster, id, ["completed", "failed"]);
  expect(end).toMatchObject({ state: "completed", result: "kept the file" });
  const follow = await runGantry(["sessions", "--ingress", cluster.ingress, id], { timeoutMs: 60_000 });
  const types = follow.stdout
    .trim()
    .split("\n")
    .map((line) => (JSON.parse(line) as { type: string }).type);
  expect(types.filter((type) => type === "ask")).toHaveLength(2);
  expect(types.filter((type) => type === "ask_answered")).toHaveLength(2);
  model.assertDone();
});
