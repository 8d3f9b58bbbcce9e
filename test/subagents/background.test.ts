import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { createConversation } from "../../src/agent/conversation.js";
import { createGantrySession } from "../../src/gantry.js";
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

describe("background agents", () => {
  it("a background agent's completion notification starts another parent turn", async () => {
    harness = await startHarness([
      [
        MAIN_MARKER,
        [
          {
            toolCalls: [
              {
                name: "agent",
                args: { description: "Summarise the notes file", prompt: "TASK-BG: summarise" },
              },
            ],
          },
          { expect: sees("Started background agent agent-1"), text: "Waiting for the agent." },
          { expect: sees("BG-REPORT: three notes"), text: "The agent reported three notes." },
        ],
      ],
      ["TASK-BG", [{ delayMs: 200, text: "BG-REPORT: three notes" }]],
    ]);
    const result = await harness.run("Summarise in the background.");
    assertScriptsDone(harness);
    expect(result).toMatchObject({ reason: "completed", text: "The agent reported three notes." });
    const notification = harness.conversation.messages.find(
      (m) => m.role === "user" && m.source === "agent agent-1",
    );
    expect(notification?.role === "user" && notification.text).toContain(
      'Background agent agent-1 ("Summarise the notes file") completed',
    );
    expect(harness.session.inbox.pendingHolds).toBe(0);
  });

  it("send_message reaches a running agent at its next tool round and revives a finished one", async () => {
    harness = await startHarness(
      [
        [
          MAIN_MARKER,
          [
            {
              toolCalls: [
                {
                  name: "agent",
                  args: { description: "Count the words here", prompt: "TASK-R: count words" },
                },
              ],
            },
            {
              toolCalls: [
                { name: "send_message", args: { task_id: "agent-1", message: "EXTRA: count lines too" } },
              ],
            },
            { expect: sees("Delivered to running agent agent-1"), text: "Told it." },
            {
              expect: sees("R-FIRST: 2 words, 1 line"),
              toolCalls: [
                {
                  name: "send_message",
                  args: { Recipient: "agent-1", Message: "FOLLOW-UP: and characters?" },
                },
              ],
            },
            { expect: sees("resumed with your message"), text: "Asked again." },
            { expect: sees("R-SECOND: 9 characters"), text: "All answered." },
          ],
        ],
        [
          "TASK-R",
          [
            { delayMs: 300, toolCalls: [{ name: "view_file", args: { AbsolutePath: "words.txt" } }] },
            { expect: sees("EXTRA: count lines too"), text: "R-FIRST: 2 words, 1 line" },
            // revived from its transcript: the whole earlier conversation comes back
            {
              expect: (r) => (sees("R-FIRST")(r), sees("FOLLOW-UP: and characters?")(r)),
              text: "R-SECOND: 9 characters",
            },
          ],
        ],
      ],
      { files: { "words.txt": "two words" } },
    );
    const result = await harness.run("Count words with a helper.");
    assertScriptsDone(harness);
    expect(result).toMatchObject({ reason: "completed", text: "All answered." });
    const record = harness.session.subagents.agents.get("agent-1");
    expect(record).toMatchObject({ state: "completed", result: "R-SECOND: 9 characters" });
  });

  it("send_message returns resume_blocked_reason for an agent that cannot be revived", async () => {
    harness = await startHarness([
      [
        MAIN_MARKER,
        [
          {
            toolCalls: [
              {
                name: "agent",
                args: { description: "Do a quick job", prompt: "TASK-U: quick", run_in_background: false },
              },
            ],
          },
          { text: "done" },
        ],
      ],
      ["TASK-U", [{ text: "U finished" }]],
    ]);
    await harness.run("Start a quick agent.");
    const record = harness.session.subagents.agents.get("agent-1");
    expect(record?.state).toBe("completed");
    rmSync(record?.transcriptFile as string);
    const blocked = await harness.session.pipeline.run({
      name: "send_message",
      args: { task_id: "agent-1", message: "more" },
    });
    expect(blocked).toMatchObject({ error: true, errorCode: "unavailable" });
    expect(blocked.metadata.resume_blocked_reason).toBe("its saved transcript is missing");
    const listed = await harness.session.pipeline.run({ name: "list_agents", args: {} });
    expect(listed.metadata.agents).toEqual([
      expect.objectContaining({
        task_id: "agent-1",
        state: "completed",
        resume_blocked_reason: "its saved transcript is missing",
      }),
    ]);
    const unknown = await harness.session.pipeline.run({
      name: "send_message",
      args: { task_id: "agent-9", message: "x" },
    });
    expect(unknown).toMatchObject({ error: true, errorCode: "not_found" });
    assertScriptsDone(harness);
  });

  it("after the parent session resumes, its earlier agents are listed again and can be revived", async () => {
    harness = await startHarness([
      [
        MAIN_MARKER,
        [
          {
            toolCalls: [
              {
                name: "agent",
                args: {
                  description: "Remember a number now",
                  prompt: "TASK-MEM: remember 42",
                  run_in_background: false,
                },
              },
            ],
          },
          { text: "remembered" },
        ],
      ],
      [
        "TASK-MEM",
        [
          { text: "I will remember 42" },
          { expect: (r) => (sees("remember 42")(r), sees("which number?")(r)), text: "It was 42" },
        ],
      ],
    ]);
    await harness.run("Remember something.");
    // a new session of the same workspace, bound to the same transcript folder (gantry --resume)
    const resumed = createGantrySession({ workspace: harness.ws.root, home: harness.ws.home });
    try {
      resumed.subagents.bind({
        model: harness.model,
        mainConversation: createConversation(),
        transcriptDir: harness.transcriptDir,
      });
      const listed = await resumed.pipeline.run({ name: "list_agents", args: {} });
      expect(listed.metadata.agents).toEqual([
        expect.objectContaining({ task_id: "agent-1", state: "completed" }),
      ]);
      const sent = await resumed.pipeline.run({
        name: "send_message",
        args: { task_id: "agent-1", message: "which number?" },
      });
      expect(sent.text).toContain("resumed");
      await resumed.subagents.agents.get("agent-1")?.settled;
      const [notification] = resumed.inbox.drain("main");
      expect(notification?.text).toContain("It was 42");
      assertScriptsDone(harness);
    } finally {
      await resumed.dispose();
    }
  });
});
