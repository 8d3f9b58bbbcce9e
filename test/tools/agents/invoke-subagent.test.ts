import { afterEach, describe, expect, it } from "vitest";
import {
  assertScriptsDone,
  type Harness,
  MAIN_MARKER,
  startHarness,
} from "../../subagents/support/harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const sees = (needle: string) => (request: { text: string }) => {
  if (!request.text.includes(needle))
    throw new Error(`the request does not contain ${JSON.stringify(needle)}`);
};

describe("invoke_subagent, define_subagent, manage_subagents", () => {
  it("defines a type, invokes two subagents of it in parallel in the background, and lists them", async () => {
    harness = await startHarness([
      [
        MAIN_MARKER,
        [
          {
            toolCalls: [
              {
                name: "define_subagent",
                args: {
                  name: "counter",
                  description: "Counts things",
                  system_prompt: "COUNTER-SYSTEM: you count.",
                },
              },
            ],
          },
          {
            toolCalls: [
              {
                name: "invoke_subagent",
                args: {
                  Subagents: [
                    { Prompt: "JOB-ONE: count apples", TypeName: "counter", Role: "apple counter" },
                    { Prompt: "JOB-TWO: count pears", TypeName: "counter" },
                  ],
                },
              },
            ],
          },
          { expect: sees("started agent-2 in the background"), text: "waiting" },
          { expect: sees("3 apples"), text: "one counted" },
          { expect: sees("4 pears"), toolCalls: [{ name: "manage_subagents", args: { Action: "list" } }] },
          { expect: sees('\\"state\\": \\"completed\\"'), text: "counted" },
        ],
      ],
      [
        "JOB-ONE",
        [
          {
            expect: (r) => (
              sees("COUNTER-SYSTEM: you count.")(r), sees("Role for this task: apple counter")(r)
            ),
            delayMs: 100,
            text: "3 apples",
          },
        ],
      ],
      ["JOB-TWO", [{ delayMs: 1500, text: "4 pears" }]],
    ]);
    const result = await harness.run("Count fruit.");
    assertScriptsDone(harness);
    expect(result.text).toBe("counted");
    // read-only by default: a defined type without enable_write_tools gets no write tools
    const tools = (
      harness.servers["JOB-ONE"]?.requests[0]?.body.tools as { function: { name: string } }[]
    ).map((t) => t.function.name);
    expect(tools).toContain("view_file");
    expect(tools).not.toContain("write_to_file");
    expect(tools).not.toContain("run_command");
    expect(tools).not.toContain("agent");
  });

  it("kill names unknown ids and needs ConversationIds", async () => {
    harness = await startHarness([]);
    const missing = await harness.session.pipeline.run({
      name: "manage_subagents",
      args: { Action: "kill" },
    });
    expect(missing).toMatchObject({ error: true, errorCode: "invalid_arguments" });
    const unknown = await harness.session.pipeline.run({
      name: "manage_subagents",
      args: { Action: "kill", ConversationIds: ["agent-7"] },
    });
    expect(unknown.text).toContain("no agent agent-7");
    const none = await harness.session.pipeline.run({
      name: "manage_subagents",
      args: { Action: "kill_all" },
    });
    expect(none.text).toBe("No running agent to kill.");
  });

  it("the agent tool refuses fork-only arguments on named agents and bad combinations", async () => {
    harness = await startHarness([]);
    const run = (args: Record<string, unknown>) =>
      harness?.session.pipeline.run({
        name: "agent",
        args: { description: "Check the arguments here", prompt: "p", ...args },
      });
    expect((await run({ fork_turns: "2" }))?.text).toContain(
      'fork_turns is only valid with subagent_type "fork"',
    );
    expect((await run({ subagent_type: "fork", fork_tools: [], fork_profile: "ro" }))?.text).toContain(
      "cannot be combined",
    );
    expect((await run({ subagent_type: "fork", fork_turns: "0" }))?.text).toContain("positive integer");
    expect((await run({ subagent_type: "fork", isolation: "worktree" }))?.text).toContain("not forks");
    expect((await run({ subagent_type: "no-such-type", run_in_background: false }))?.text).toContain(
      'unknown subagent_type "no-such-type"',
    );
    expect((await run({ working_dir: harness?.ws.root }))?.text).toContain("git repository");
    // "3-5 words" is guidance for the model: one word passes validation, only an empty text fails it
    const oneWord = await harness.session.pipeline.run({
      name: "agent",
      args: { description: "Review", prompt: "p", run_in_background: false },
    });
    expect(oneWord.errorCode).not.toBe("invalid_arguments");
    const empty = await harness.session.pipeline.run({
      name: "agent",
      args: { description: "  ", prompt: "p" },
    });
    expect(empty).toMatchObject({ errorCode: "invalid_arguments" });
    expect(empty.text).toContain("must not be empty");
  });
});
