import { afterEach, describe, expect, it } from "vitest";
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

/** A reviewer that may read and start agents, nothing else. */
const REVIEWER = "---\nname: reviewer\ndescription: reads code\ntools: view_file, agent\n---\nReview.\n";
/**
 * The child's prompt as its own request carries it (`"` escaped once); the reviewer's request carries
 * it inside the agent call's JSON arguments (escaped twice), so only the child's requests match.
 */
const CHILD_PROMPT = 'TASK"CHILD';
const CHILD_MARKER = 'TASK\\"CHILD';
const WRITE = {
  name: "write_to_file",
  args: { TargetFile: "planted.txt", Overwrite: false, CodeContent: "x", Description: "d" },
};

describe("a subagent never hands its child a tool it lacks itself", () => {
  for (const [how, args] of [
    ["a general-purpose agent", { description: "Child that writes files", prompt: CHILD_PROMPT }],
    ["a fork", { description: "Fork that writes files", prompt: CHILD_PROMPT, subagent_type: "fork" }],
  ] as const) {
    it(`a read-only reviewer starting ${how} cannot write through it`, async () => {
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
                      description: "Review the code now",
                      prompt: "TASK-REVIEW",
                      subagent_type: "reviewer",
                      run_in_background: false,
                    },
                  },
                ],
              },
              { expect: sees("review done"), text: "all done" },
            ],
          ],
          // before the reviewer's: a fork's history holds the reviewer's marker too
          [
            CHILD_MARKER,
            [{ toolCalls: [WRITE] }, { expect: sees("not in this agent's tool list"), text: "child done" }],
          ],
          [
            "TASK-REVIEW",
            [{ toolCalls: [{ name: "agent", args }] }, { expect: sees("child done"), text: "review done" }],
          ],
        ],
        { files: { ".agents/agents/reviewer.md": REVIEWER } },
      );
      await harness.run("Review.");
      assertScriptsDone(harness);
      expect(harness.session.subagents.agents.list().map((r) => [r.id, r.parentId, r.state])).toEqual([
        ["agent-1", "main", "completed"],
        ["agent-2", "agent-1", "completed"],
      ]);
      const { existsSync } = await import("node:fs");
      expect(existsSync(`${harness.ws.root}/planted.txt`)).toBe(false);
    });
  }
});
