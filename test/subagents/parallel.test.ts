import { afterEach, describe, expect, it } from "vitest";
import {
  assertScriptsDone,
  contentText,
  type Harness,
  MAIN_MARKER,
  messagesOf,
  startHarness,
} from "./support/harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("agent tool: foreground subagents in parallel", () => {
  it("runs two subagents at once; their tool calls interleave and each report returns to its own call", async () => {
    harness = await startHarness(
      [
        [
          MAIN_MARKER,
          [
            {
              toolCalls: [
                {
                  id: "call_alpha",
                  name: "agent",
                  args: {
                    description: "Read the alpha file",
                    prompt: "TASK-ALPHA: read alpha.txt",
                    run_in_background: false,
                  },
                },
                {
                  id: "call_beta",
                  name: "agent",
                  args: {
                    description: "Read the beta file",
                    prompt: "TASK-BETA: read beta.txt",
                    run_in_background: false,
                  },
                },
              ],
            },
            {
              expect: (request) => {
                const tools = messagesOf(request).filter((m) => m.role === "tool");
                const byCall = Object.fromEntries(tools.map((m) => [m.tool_call_id, contentText(m.content)]));
                if (!byCall.call_alpha?.includes("alpha says hello"))
                  throw new Error(`call_alpha got ${byCall.call_alpha}`);
                if (!byCall.call_beta?.includes("beta says hi"))
                  throw new Error(`call_beta got ${byCall.call_beta}`);
              },
              text: "Both agents reported.",
            },
          ],
        ],
        [
          "TASK-ALPHA",
          [
            { toolCalls: [{ name: "view_file", args: { AbsolutePath: "alpha.txt" } }] },
            {
              delayMs: 400,
              expect: (request) => {
                if (!request.text.includes("ALPHA CONTENT")) throw new Error("alpha did not see its file");
              },
              text: "alpha says hello",
            },
          ],
        ],
        [
          "TASK-BETA",
          [
            { delayMs: 150, toolCalls: [{ name: "view_file", args: { AbsolutePath: "beta.txt" } }] },
            { text: "beta says hi" },
          ],
        ],
      ],
      { files: { "alpha.txt": "ALPHA CONTENT\n", "beta.txt": "BETA CONTENT\n" } },
    );
    const result = await harness.run("Read both files with two agents.");
    assertScriptsDone(harness);
    expect(result).toMatchObject({ reason: "completed", text: "Both agents reported." });

    const agentIds = [...new Set(harness.events.map((e) => e.agentId).filter((id) => id !== "main"))].sort();
    expect(agentIds).toEqual(["agent-1", "agent-2"]);
    // interleaving: both subagents called a tool before either finished
    const order = harness.events
      .filter((e) => e.agentId !== "main" && (e.type === "tool_result" || e.type === "done"))
      .map((e) => `${e.agentId}:${e.type}`);
    expect(order.indexOf("agent-2:tool_result")).toBeLessThan(order.indexOf("agent-1:done"));
    expect(order.indexOf("agent-1:tool_result")).toBeLessThan(order.indexOf("agent-2:done"));
    const parentResults = harness.events.filter((e) => e.agentId === "main" && e.type === "tool_result");
    expect(
      parentResults.map((e) => e.type === "tool_result" && [e.call.callId, e.result.metadata.taskId]),
    ).toEqual([
      ["call_alpha", "agent-1"],
      ["call_beta", "agent-2"],
    ]);
  });
});
