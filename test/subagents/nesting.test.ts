import { readdirSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { initRepo } from "./support/git.js";
import { assertScriptsDone, type Harness, MAIN_MARKER, startHarness } from "./support/harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const sees = (needle: string) => (request: { text: string }) => {
  if (!request.text.includes(needle))
    throw new Error(`the request does not contain ${JSON.stringify(needle)}`);
};

/** A hook that denies every write_to_file call, as the parent's configuration. */
const DENY_WRITES_HOOK = JSON.stringify({
  guard: {
    enabled: true,
    pre_tool_execution: [
      {
        matcher: "write_to_file",
        hooks: [{ type: "command", command: `echo '{"decision":"deny","reason":"no writes here"}'` }],
      },
    ],
  },
});

describe("nested agents and inherited safety", () => {
  it("nested agents run in the foreground, may not ask for background, and stop at the depth limit", async () => {
    harness = await startHarness([
      [
        MAIN_MARKER,
        [
          {
            toolCalls: [
              {
                name: "agent",
                args: {
                  description: "Outer research task here",
                  prompt: "TASK-OUTER",
                  run_in_background: false,
                },
              },
            ],
          },
          { expect: sees("outer done: inner said deep"), text: "all done" },
        ],
      ],
      [
        "TASK-OUTER",
        [
          {
            toolCalls: [
              {
                name: "agent",
                args: { description: "Inner background job", prompt: "TASK-NEVER", run_in_background: true },
              },
            ],
          },
          {
            expect: sees("a nested agent cannot run in the background"),
            toolCalls: [
              { name: "agent", args: { description: "Inner foreground job", prompt: "TASK-INNER" } },
            ],
          },
          { expect: sees("inner said deep"), text: "outer done: inner said deep" },
        ],
      ],
      [
        "TASK-INNER",
        [
          {
            toolCalls: [
              { name: "agent", args: { description: "Too deep to start", prompt: "TASK-TOO-DEEP" } },
            ],
          },
          { expect: sees("not in this agent's tool list"), text: "inner said deep" },
        ],
      ],
    ]);
    const result = await harness.run("Nest agents.");
    assertScriptsDone(harness);
    expect(result.text).toBe("all done");
    const records = harness.session.subagents.agents
      .list()
      .map((r) => [r.id, r.parentId, r.depth, r.background, r.state]);
    expect(records).toEqual([
      ["agent-1", "main", 1, false, "completed"],
      ["agent-2", "agent-1", 2, false, "completed"],
    ]);
  });

  it("killing a parent agent kills the foreground agent it started, and that agent's command", async () => {
    harness = await startHarness([
      [
        MAIN_MARKER,
        [
          {
            toolCalls: [{ name: "agent", args: { description: "Parent of a child", prompt: "TASK-PARENT" } }],
          },
          {
            delayMs: 1500,
            toolCalls: [{ name: "manage_subagents", args: { Action: "kill", ConversationIds: ["agent-1"] } }],
          },
          { expect: sees("Killed agent-1, agent-2"), text: "stopped" },
        ],
      ],
      [
        "TASK-PARENT",
        [
          {
            toolCalls: [
              { name: "agent", args: { description: "Child running a command", prompt: "TASK-CHILD" } },
            ],
          },
        ],
      ],
      [
        "TASK-CHILD",
        [
          {
            toolCalls: [
              {
                name: "run_command",
                args: { CommandLine: "sleep 33.75", Cwd: ".", WaitMsBeforeAsync: 60000 },
              },
            ],
          },
        ],
      ],
    ]);
    await harness.run("Start a parent and kill it.");
    assertScriptsDone(harness);
    const states = harness.session.subagents.agents.list().map((r) => [r.id, r.parentId, r.state]);
    expect(states).toEqual([
      ["agent-1", "main", "killed"],
      ["agent-2", "agent-1", "killed"],
    ]);
    const sleeping = readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("33.75");
        } catch {
          return false;
        }
      });
    expect(sleeping).toEqual([]);
  });

  it("a subagent is held to the parent's hooks, also in a worktree whose committed config lacks them", async () => {
    const write = {
      name: "write_to_file",
      args: { TargetFile: "out.txt", Overwrite: false, CodeContent: "x", Description: "d" },
    };
    harness = await startHarness(
      [
        [
          MAIN_MARKER,
          [
            {
              toolCalls: [
                {
                  name: "agent",
                  args: {
                    description: "Write in the workspace",
                    prompt: "TASK-W1",
                    run_in_background: false,
                  },
                },
                {
                  name: "agent",
                  args: {
                    description: "Write in a worktree",
                    prompt: "TASK-W2",
                    isolation: "worktree",
                    run_in_background: false,
                  },
                },
              ],
            },
            { text: "done" },
          ],
        ],
        ["TASK-W1", [{ toolCalls: [write] }, { expect: sees("no writes here"), text: "denied" }]],
        ["TASK-W2", [{ toolCalls: [write] }, { expect: sees("no writes here"), text: "denied too" }]],
      ],
      {
        files: { "a.txt": "a\n" },
        prepare: async (ws) => {
          initRepo(ws.root);
          await ws.write(".agents/hooks.json", DENY_WRITES_HOOK); // not committed: the worktree gets the parent's copy
        },
      },
    );
    await harness.run("Try to write through two agents.");
    assertScriptsDone(harness);
    const denied = harness.events.filter((e) => e.agentId !== "main" && e.type === "tool_result");
    expect(denied.map((e) => e.type === "tool_result" && [e.agentId, e.result.errorCode])).toEqual(
      expect.arrayContaining([
        ["agent-1", "denied"],
        ["agent-2", "denied"],
      ]),
    );
  });
});
