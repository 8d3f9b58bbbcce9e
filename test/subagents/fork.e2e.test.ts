import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RecordedRequest } from "../support/model-server.js";
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

const userTexts = (request: RecordedRequest) =>
  messagesOf(request)
    .filter((m) => m.role === "user")
    .map((m) => contentText(m.content));

describe("forks", () => {
  it('fork_turns "2" sends exactly the last two real user turns, with the parent\'s system prompt and tools', async () => {
    harness = await startHarness([
      ["Task: FORK-TASK-2", [{ text: "fork report" }]],
      [
        MAIN_MARKER,
        [
          {
            toolCalls: [
              {
                id: "call_fork",
                name: "agent",
                args: {
                  description: "Fork the recent context",
                  prompt: "FORK-TASK-2",
                  subagent_type: "fork",
                  fork_turns: "2",
                  run_in_background: false,
                },
              },
            ],
          },
          { text: "forked" },
        ],
      ],
    ]);
    // an earlier conversation: turn one, turn two (with a tool call and a notification, which are not turns)
    harness.conversation.messages.push(
      { role: "user", text: "TURN-ONE" },
      { role: "assistant", text: "answer one", toolCalls: [] },
      { role: "user", text: "TURN-TWO" },
      {
        role: "assistant",
        text: "",
        toolCalls: [{ callId: "c1", name: "list_dir", args: { DirectoryPath: "." } }],
      },
      { role: "tool", results: [{ callId: "c1", name: "list_dir", text: "LISTING", error: false }] },
      { role: "user", text: "NOTIFICATION", source: "agent agent-0" },
      { role: "assistant", text: "answer two", toolCalls: [] },
    );
    const result = await harness.run("TURN-THREE");
    assertScriptsDone(harness);
    expect(result.text).toBe("forked");

    const forkRequest = harness.servers["Task: FORK-TASK-2"]?.requests[0] as RecordedRequest;
    const users = userTexts(forkRequest);
    expect(users.slice(0, 3)).toEqual(["TURN-TWO", "[agent agent-0] NOTIFICATION", "TURN-THREE"]);
    expect(users).toHaveLength(4);
    expect(users[3]).toContain("Task: FORK-TASK-2");
    expect(forkRequest.text).not.toContain("TURN-ONE");
    expect(forkRequest.text).toContain("LISTING");
    const mainRequest = harness.servers[MAIN_MARKER]?.requests[0] as RecordedRequest;
    const system = (r: RecordedRequest) =>
      contentText(messagesOf(r).find((m) => m.role === "system")?.content);
    expect(system(forkRequest)).toBe(system(mainRequest));
    expect(forkRequest.body.tools).toEqual(mainRequest.body.tools);
  });

  it("fork_tools [] refuses every tool call before it runs, and the fork reports back", async () => {
    harness = await startHarness(
      [
        [
          "Task: FORK-NO-TOOLS",
          [
            { toolCalls: [{ name: "view_file", args: { AbsolutePath: "secret-plan.txt" } }] },
            {
              expect: (r) => {
                if (!r.text.includes("not in this agent's tool list")) throw new Error("no refusal seen");
                if (r.text.includes("PLAN CONTENT")) throw new Error("the file was read");
              },
              text: "blocked: no tools allowed",
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
                    description: "Fork without any tools",
                    prompt: "FORK-NO-TOOLS",
                    subagent_type: "fork",
                    fork_tools: [],
                    run_in_background: false,
                  },
                },
              ],
            },
            {
              expect: (r) => {
                if (!r.text.includes("blocked: no tools allowed"))
                  throw new Error("the parent did not get the report");
              },
              text: "ok",
            },
          ],
        ],
      ],
      { files: { "secret-plan.txt": "PLAN CONTENT" } },
    );
    await harness.run("Fork with no tools.");
    assertScriptsDone(harness);
    const refused = harness.events.find((e) => e.agentId === "agent-1" && e.type === "tool_result");
    expect(refused?.type === "tool_result" && refused.result).toMatchObject({
      error: true,
      errorCode: "denied",
    });
  });

  it("a fork profile that escapes its folder is refused, and the model is told why", async () => {
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
                    description: "Fork with a profile",
                    prompt: "FORK-PROFILED",
                    subagent_type: "fork",
                    fork_profile: "escape",
                  },
                },
              ],
            },
            {
              expect: (r) => {
                if (!r.text.includes("resolves outside .agents/fork-profiles/"))
                  throw new Error("no refusal seen");
              },
              text: "the profile was refused",
            },
          ],
        ],
      ],
      {
        files: { "outside.md": "---\ntools: [view_file]\n---\n" },
        prepare: (ws) => {
          mkdirSync(path.join(ws.root, ".agents/fork-profiles"), { recursive: true });
          symlinkSync(
            path.join(ws.root, "outside.md"),
            path.join(ws.root, ".agents/fork-profiles/escape.md"),
          );
        },
      },
    );
    const result = await harness.run("Use the escape profile.");
    assertScriptsDone(harness);
    expect(result.text).toBe("the profile was refused");
    expect(harness.session.subagents.agents.list()).toEqual([]);
  });

  it("a fork profile's tools gate the fork and its promptHint joins the task", async () => {
    harness = await startHarness(
      [
        [
          "Task: FORK-RO",
          [
            {
              expect: (r) => {
                if (!r.text.includes("Only read, never write.")) throw new Error("promptHint missing");
              },
              toolCalls: [
                { name: "view_file", args: { AbsolutePath: "notes.txt" } },
                {
                  name: "write_to_file",
                  args: { TargetFile: "x.txt", Overwrite: false, CodeContent: "x", Description: "d" },
                },
              ],
            },
            { text: "read ok, write refused" },
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
                    description: "Read only fork run",
                    prompt: "FORK-RO",
                    subagent_type: "fork",
                    fork_profile: "ro",
                    run_in_background: false,
                  },
                },
              ],
            },
            { text: "done" },
          ],
        ],
      ],
      {
        files: {
          "notes.txt": "NOTES",
          ".agents/fork-profiles/ro.md":
            "---\ntools: [view_file]\npromptHint: Only read, never write.\n---\n",
        },
      },
    );
    await harness.run("Use the ro profile.");
    assertScriptsDone(harness);
    const results = harness.events.filter((e) => e.agentId === "agent-1" && e.type === "tool_result");
    expect(results.map((e) => e.type === "tool_result" && [e.call.name, e.result.error])).toEqual([
      ["view_file", false],
      ["write_to_file", true],
    ]);
  });
});
