import { readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runGantry } from "../support/cli.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { type ModelRouter, startModelRouter } from "./support/model-router.js";

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe("gantry -p with subagents", () => {
  it("stream-json shows each subagent's events tagged with its id, and waits for a background agent", async () => {
    const ws: TempWorkspace = await createTempWorkspace({ "notes.txt": "NOTE ONE\n" });
    const main: ModelServer = await startModelServer([
      {
        toolCalls: [
          {
            name: "agent",
            args: { description: "Read the notes file", prompt: "TASK-HEADLESS: read notes.txt" },
          },
        ],
      },
      { text: "Waiting for the helper." },
      {
        expect: (r) => {
          if (!r.text.includes("HELPER-REPORT")) throw new Error("no notification");
        },
        text: "The helper read one note.",
      },
    ]);
    const helper: ModelServer = await startModelServer([
      { toolCalls: [{ name: "view_file", args: { AbsolutePath: "notes.txt" } }] },
      { text: "HELPER-REPORT: one note" },
    ]);
    const router: ModelRouter = await startModelRouter([
      // the main agent's requests all carry its prompt; the helper's never do
      { marker: "Use a helper", server: main },
      { marker: "TASK-HEADLESS", server: helper },
    ]);
    cleanup.push(ws.cleanup, main.close, helper.close, router.close);

    const run = await runGantry(
      [
        "-p",
        "Use a helper",
        "--model",
        "openai:test-model",
        "--base-url",
        router.baseUrl("openai"),
        "--workspace",
        ws.root,
        "--output-format",
        "stream-json",
      ],
      { env: { HOME: ws.home, OPENAI_API_KEY: "test-key" } },
    );
    expect(run.stderr).toBe("");
    expect(router.unrouted).toEqual([]);
    main.assertDone();
    helper.assertDone();
    expect(run.code).toBe(0);
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const helperEvents = lines.filter((e) => e.agentId === "agent-1").map((e) => e.type);
    expect(helperEvents).toEqual(expect.arrayContaining(["turn_start", "tool_call", "tool_result", "done"]));
    expect(lines.filter((e) => e.agentId === "agent-1" && e.type === "tool_call")).toEqual([
      expect.objectContaining({ call: expect.objectContaining({ name: "view_file" }) }),
    ]);
    expect(lines.at(-1)).toMatchObject({ type: "result", result: "The helper read one note." });

    // the subagent's transcript lies beside the parent session
    const sessions = path.join(ws.home, ".gantry", "sessions");
    const [folder] = readdirSync(sessions);
    const entries = readdirSync(path.join(sessions, folder as string));
    const agentsDir = entries.find((name) => name.endsWith(".agents"));
    expect(agentsDir).toBeDefined();
    expect(readdirSync(path.join(sessions, folder as string, agentsDir as string))).toEqual([
      "agent-1.jsonl",
    ]);
  });
});
