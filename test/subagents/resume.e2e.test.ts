import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { gitOut, initRepo } from "./support/git.js";
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

describe("send_message revives agents", () => {
  it("a working_dir agent revived by the main agent runs in the foreground again: its report is the tool result", async () => {
    let feature = "";
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
                    description: "Work in the feature tree",
                    prompt: "TASK-WDR",
                    working_dir: "../feature",
                  },
                },
              ],
            },
            {
              expect: sees("WDR-FIRST"),
              toolCalls: [
                { name: "send_message", args: { task_id: "agent-1", message: "WDR-AGAIN: one more" } },
              ],
            },
            // foreground: the revived agent's report comes back as send_message's result, not as a notification
            { expect: sees("WDR-SECOND: wrote more"), text: "done" },
          ],
        ],
        [
          "TASK-WDR",
          [
            { text: "WDR-FIRST: looked around" },
            {
              expect: sees("WDR-AGAIN: one more"),
              toolCalls: [
                {
                  name: "write_to_file",
                  args: {
                    TargetFile: "more.txt",
                    Overwrite: false,
                    CodeContent: "more\n",
                    Description: "add",
                  },
                },
              ],
            },
            { text: "WDR-SECOND: wrote more" },
          ],
        ],
      ],
      {
        files: { "a.txt": "a\n" },
        prepare: (ws) => {
          initRepo(ws.root);
          feature = `${ws.parent}/feature`;
          gitOut(ws.root, "worktree", "add", "-q", "--detach", feature);
        },
      },
    );
    const result = await harness.run("Work in the feature worktree, then ask for more.");
    assertScriptsDone(harness);
    expect(result).toMatchObject({ reason: "completed", text: "done" });
    expect(readFileSync(`${feature}/more.txt`, "utf8")).toBe("more\n");
    expect(harness.session.subagents.agents.get("agent-1")).toMatchObject({
      background: false,
      workingDir: feature,
      state: "completed",
      result: "WDR-SECOND: wrote more",
    });
    const notifications = harness.conversation.messages.filter(
      (m) => m.role === "user" && m.source === "agent agent-1",
    );
    expect(notifications).toEqual([]);
  });

  it("send_message resumes an agent paused at its turn limit, with its conversation so far", async () => {
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
                    description: "Look at the notes",
                    prompt: "TASK-P: read notes",
                    run_in_background: false,
                  },
                },
              ],
            },
            {
              expect: (r) => (sees("agent-1 paused")(r), sees("send_message continues it")(r)),
              toolCalls: [
                { name: "send_message", args: { task_id: "agent-1", message: "CONTINUE-P: go on" } },
              ],
            },
            { expect: sees("resumed with your message"), text: "waiting for it" },
            { expect: sees("P-DONE: three notes"), text: "all done" },
          ],
        ],
        [
          "TASK-P",
          [
            { toolCalls: [{ name: "view_file", args: { AbsolutePath: "notes.txt" } }] },
            // the resumed run sees the file it read before pausing, then the message
            {
              expect: (r) => (sees("note-one")(r), sees("CONTINUE-P: go on")(r)),
              text: "P-DONE: three notes",
            },
          ],
        ],
      ],
      {
        files: {
          "notes.txt": "note-one\nnote-two\nnote-three\n",
          ".agents/settings.json": JSON.stringify({ subagents: { maxTurns: 1 } }),
        },
      },
    );
    const result = await harness.run("Read the notes with a helper.");
    assertScriptsDone(harness);
    expect(result).toMatchObject({ reason: "completed", text: "all done" });
    expect(harness.session.subagents.agents.get("agent-1")).toMatchObject({
      state: "completed",
      result: "P-DONE: three notes",
    });
  });
});
