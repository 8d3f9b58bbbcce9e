import { afterEach, expect, it } from "vitest";
import type { Settings } from "../../src/config/settings.js";
import { createDurableAgents, type SubagentChannel } from "../../src/durable/agent-calls.js";
import type { AskChannel } from "../../src/durable/asks.js";
import { createDurableAsker } from "../../src/durable/asks.js";
import type { Journal } from "../../src/durable/journal.js";
import type { WorkspaceSync } from "../../src/durable/session-sync.js";
import { journaledPipeline } from "../../src/durable/steps.js";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import type { SpawnRequest } from "../../src/subagents/spawn.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace | undefined;
let session: GantrySession | undefined;
afterEach(async () => {
  await session?.dispose();
  await ws?.cleanup();
  session = undefined;
  ws = undefined;
});

const journal: Journal = { step: async (_name, action) => JSON.parse(JSON.stringify(await action())) };
const noAsks: AskChannel = { ask: async () => ({ kind: "permission", choice: "deny", message: "no" }) };
const snapshot = { grants: [], reads: [] };

/** The pipeline of a durable session whose agents a channel answers, and the requests the channel got. */
async function durableAgents(brought: string[] = [], settings?: Settings) {
  ws = await createTempWorkspace({ "notes.md": "hello\n" });
  session = createGantrySession({
    workspace: ws.root,
    home: ws.home,
    ...(settings ? { settings } : {}),
    approvalMode: "default",
    asker: createDurableAsker(),
    remoteAgents: createDurableAgents(),
  });
  const started: SpawnRequest[] = [];
  const agents: SubagentChannel = {
    async call(requests) {
      started.push(...requests);
      return requests.map((request, i) => ({
        result: {
          ok: true,
          outcome: { id: `s.agent-1-${i + 1}`, state: "completed", text: `did: ${request.prompt}`, turns: 1 },
        },
        sent: snapshot,
        snapshot: { ...snapshot, patch: "the child's changes" },
      }));
    },
  };
  const workspace: WorkspaceSync = {
    prepare: async () => undefined,
    snapshot: async () => snapshot,
    note: () => undefined,
    current: () => snapshot,
    bringBack: async (_sent, end) => {
      brought.push(end.patch ?? "");
      return undefined;
    },
  };
  const pipeline = journaledPipeline({
    pipeline: session.pipeline,
    journal,
    asks: noAsks,
    workspace,
    workerId: "w1",
    agents,
  });
  return { pipeline, started };
}

const agentCall = (args: Record<string, unknown>) => ({
  name: "agent",
  callId: "c1",
  args: { description: "a task", prompt: "look around", ...args },
});

it("an agent call in a durable session starts its agent through the channel, in the foreground, and its report is the result", async () => {
  const brought: string[] = [];
  const { pipeline, started } = await durableAgents(brought);
  const result = await pipeline.run(agentCall({}));
  expect(result.error, result.text).toBeFalsy();
  expect(result.text).toContain("Agent s.agent-1-1 completed:\ndid: look around");
  expect(started).toMatchObject([{ prompt: "look around", type: "general-purpose", background: false }]);
  expect(brought).toEqual(["the child's changes"]);
});

it("invoke_subagent from the main agent waits for all its agents, in the order asked, and says so", async () => {
  const { pipeline, started } = await durableAgents();
  const declared = pipeline.registry.declarations().map((d) => `${d.name}: ${d.description}`);
  expect(declared.find((line) => line.startsWith("invoke_subagent:"))).toContain("waits for them");
  expect(declared.find((line) => line.startsWith("agent:"))).toContain("foreground only");
  const result = await pipeline.run({
    name: "invoke_subagent",
    callId: "c2",
    args: { Subagents: [{ Prompt: "first" }, { Prompt: "second" }] },
  });
  expect(result.text).toContain("0: Agent s.agent-1-1 completed:\ndid: first");
  expect(result.text).toContain("1: Agent s.agent-1-2 completed:\ndid: second");
  expect(started.map((request) => request.prompt)).toEqual(["first", "second"]);
});

it.each([
  [{ run_in_background: true }, "background agents need a live process"],
  [{ subagent_type: "fork" }, "a fork continues the parent's conversation"],
  [{ isolation: "worktree" }, "isolation and working_dir name folders of one machine"],
])(
  "an agent a durable session cannot run elsewhere (%o) is refused with why, and nothing starts",
  async (args, why) => {
    const { pipeline, started } = await durableAgents();
    const result = await pipeline.run(agentCall(args));
    expect(result.error).toBe(true);
    expect(result.text).toContain(why);
    expect(started).toEqual([]);
  },
);

it("the user's subagent limits hold in a durable session: with subagents.maxDepth 0 no agent starts", async () => {
  const { pipeline, started } = await durableAgents([], { subagents: { maxDepth: 0 } });
  const result = await pipeline.run(agentCall({}));
  expect(result.errorCode).toBe("denied");
  expect(result.text).toContain("subagents may nest 0 deep");
  expect(started).toEqual([]);
});

it("an unknown subagent type is refused before any invocation starts, naming the known ones", async () => {
  const { pipeline, started } = await durableAgents();
  const result = await pipeline.run(agentCall({ subagent_type: "nobody" }));
  expect(result.text).toContain('unknown subagent_type "nobody"; known types: fork, general-purpose');
  expect(started).toEqual([]);
});
