import { afterEach, describe, expect, it } from "vitest";
import {
  assertScriptsDone,
  type Harness,
  MAIN_MARKER,
  messagesOf,
  startHarness,
} from "../subagents/support/harness.js";
import type { RecordedRequest } from "../support/model-server.js";
import { everythingStdio } from "./support.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const toolNames = (request: RecordedRequest | undefined) =>
  ((request?.body.tools as { function: { name: string } }[] | undefined) ?? []).map((t) => t.function.name);

const files = {
  ".mcp.json": JSON.stringify({
    mcpServers: {
      main: everythingStdio({ includeTools: ["get-sum"] }),
      helper: everythingStdio({ subagentOnly: true }),
    },
  }),
  ".agents/agents/helper-user.md":
    "---\nname: helper-user\ndescription: Uses the helper server\ntools: view_file, mcp__helper__echo\n---\nYou use the helper.\n",
};

describe("a server for subagents only", () => {
  it("stays out of the main agent's prompt and calls, and reaches a subagent whose tools name it", async () => {
    harness = await startHarness(
      [
        [
          "You use the helper.",
          [
            { toolCalls: [{ name: "mcp__helper__echo", args: { message: "from the subagent" } }] },
            {
              expect: (r) => {
                if (!r.text.includes("from the subagent"))
                  throw new Error("the echo result did not come back");
              },
              text: "sub report",
            },
          ],
        ],
        [
          MAIN_MARKER,
          [
            {
              toolCalls: [
                {
                  name: "agent",
                  args: {
                    description: "Use the helper",
                    prompt: "SUB-TASK-1",
                    subagent_type: "helper-user",
                    run_in_background: false,
                  },
                },
              ],
            },
            { text: "done" },
          ],
        ],
      ],
      { files },
    );
    await harness.session.mcp.startMain();
    // the subagent-only server has not started: nothing of it is registered yet
    expect(harness.session.mcp.get("helper")?.state).toBe("idle");
    const result = await harness.run("go");
    assertScriptsDone(harness);
    expect(result.text).toBe("done");
    const main = toolNames(harness.servers[MAIN_MARKER]?.requests[0]);
    expect(main).toContain("mcp__main__get-sum");
    expect(main.some((name) => name.startsWith("mcp__helper__"))).toBe(false);
    const sub = toolNames(harness.servers["You use the helper."]?.requests[0]);
    expect(sub.sort()).toEqual(["mcp__helper__echo", "view_file"]);

    // the main agent cannot call it by name either
    const direct = await harness.session.pipeline.run({ name: "mcp__helper__echo", args: { message: "x" } });
    expect(direct.errorCode).toBe("denied");
    expect(direct.text).toContain("for subagents only");
  }, 90_000);

  it("reaches a fork through fork_tools patterns, after the parent's declarations", async () => {
    harness = await startHarness(
      [
        [
          "Task: FORK-MCP",
          [
            { toolCalls: [{ name: "mcp__helper__echo", args: { message: "fork echo" } }] },
            { text: "fork report" },
          ],
        ],
        [
          MAIN_MARKER,
          [
            {
              toolCalls: [
                {
                  name: "agent",
                  args: {
                    description: "Fork with the helper",
                    prompt: "FORK-MCP",
                    subagent_type: "fork",
                    fork_tools: ["mcp__helper__*"],
                    run_in_background: false,
                  },
                },
              ],
            },
            { text: "forked" },
          ],
        ],
      ],
      { files },
    );
    await harness.session.mcp.startMain();
    await harness.run("go");
    assertScriptsDone(harness);
    const mainTools = toolNames(harness.servers[MAIN_MARKER]?.requests[0]);
    const forkRequest = harness.servers["Task: FORK-MCP"]?.requests[0];
    const forkTools = toolNames(forkRequest);
    expect(forkTools.slice(0, mainTools.length)).toEqual(mainTools);
    expect(forkTools.slice(mainTools.length)).toContain("mcp__helper__echo");
    const second = harness.servers["Task: FORK-MCP"]?.requests[1] as RecordedRequest;
    const toolMessage = messagesOf(second).findLast((m) => m.role === "tool");
    expect(JSON.stringify(toolMessage?.content)).toContain("fork echo");
  }, 90_000);

  it("a general-purpose subagent (all tools) does not get it", async () => {
    harness = await startHarness(
      [
        ["Your role: subagent", [{ text: "ok" }]],
        [
          MAIN_MARKER,
          [
            {
              toolCalls: [
                {
                  name: "agent",
                  args: { description: "Do some general work", prompt: "SUB-ALL", run_in_background: false },
                },
              ],
            },
            { text: "done" },
          ],
        ],
      ],
      { files },
    );
    await harness.session.mcp.startMain();
    await harness.run("go");
    assertScriptsDone(harness);
    const sub = toolNames(harness.servers["Your role: subagent"]?.requests[0]);
    expect(sub).toContain("mcp__main__get-sum");
    expect(sub.some((name) => name.startsWith("mcp__helper__"))).toBe(false);
    expect(harness.session.mcp.get("helper")?.state).toBe("idle");
  }, 90_000);
});
