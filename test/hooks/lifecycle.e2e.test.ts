import { afterEach, describe, expect, it } from "vitest";
import type { RecordedRequest } from "../support/model-server.js";
import { DIALECT_CASES, type DialectCase, eventsNamed, type HookRun, runWithHooks } from "./dialect-cases.js";

/** CLI runs spawn node and load the AI SDK: slow on a busy machine. */
const E2E = { timeout: 120_000 };
let run: HookRun | undefined;
afterEach(async () => {
  await run?.server.close();
  await run?.ws.cleanup();
  run = undefined;
});

const sees = (text: string) => (request: RecordedRequest) => {
  if (!request.text.includes(text)) throw new Error(`the model was not sent "${text}"`);
};
const never = (text: string) => (request: RecordedRequest) => {
  if (request.text.includes(text)) throw new Error(`the model was sent "${text}"`);
};
const READ = { name: "view_file", args: { AbsolutePath: "notes.txt" } };
/** view_file as each harness names it in a matcher. */
const READ_TOOL: Record<string, string> = {
  claude: "Read",
  gemini: "read_file",
  qwen: "read_file",
  native: "view_file",
};
const has = (dialect: DialectCase, ...events: (keyof DialectCase["key"])[]) =>
  events.every((event) => dialect.key[event] !== undefined);

describe.each(DIALECT_CASES.map((dialect) => [dialect.id, dialect] as const))(
  "%s hooks through gantry -p",
  (_id, dialect) => {
    it("SessionStart: its context reaches the model; SessionEnd fires when the run ends", E2E, async () => {
      run = await runWithHooks({
        dialect,
        rules: {
          session_start: [{ answer: dialect.context("session_start", "CTX-START: the build uses pnpm") }],
          session_end: [{ answer: {} }],
        },
        turns: [{ text: "done", expect: sees("CTX-START: the build uses pnpm") }],
      });
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      run.server.assertDone();
      expect(eventsNamed(run, dialect, "session_start")).toEqual([
        expect.objectContaining({ source: "startup" }),
      ]);
      expect(eventsNamed(run, dialect, "session_end")).toEqual([
        expect.objectContaining({ reason: "other" }),
      ]);
    });

    it(
      "UserPromptSubmit: a block refuses the prompt; the model is never asked and the user reads why",
      E2E,
      async () => {
        run = await runWithHooks({
          dialect,
          prompt: "deploy with key sk-live-123",
          rules: {
            user_prompt_submit: [{ answer: dialect.block("user_prompt_submit", "no keys in prompts") }],
          },
          turns: [],
        });
        expect(run.code).toBe(1);
        expect(run.requests()).toEqual([]);
        expect(run.stderr).toContain("blocked the prompt: no keys in prompts");
        expect(run.result()).toMatchObject({
          is_error: true,
          stop_reason: expect.stringContaining("no keys"),
        });
        expect(eventsNamed(run, dialect, "user_prompt_submit")).toEqual([
          expect.objectContaining({ prompt: "deploy with key sk-live-123" }),
        ]);
      },
    );

    it("UserPromptSubmit: its context reaches the model beside the prompt", E2E, async () => {
      run = await runWithHooks({
        dialect,
        prompt: "what branch am I on?",
        rules: {
          user_prompt_submit: [{ answer: dialect.context("user_prompt_submit", "CTX-BRANCH: main") }],
        },
        turns: [
          {
            text: "main",
            expect: (request) => {
              sees("what branch am I on?")(request);
              sees("CTX-BRANCH: main")(request);
            },
          },
        ],
      });
      expect(run.code).toBe(0);
      run.server.assertDone();
    });

    it("UserPromptSubmit: continue false ends the run before the model is asked", E2E, async () => {
      run = await runWithHooks({
        dialect,
        rules: { user_prompt_submit: [{ answer: dialect.stop("maintenance window") }] },
        turns: [],
      });
      expect(run.code).toBe(0);
      expect(run.requests()).toEqual([]);
      expect(run.result()).toMatchObject({
        is_error: false,
        stop_reason: expect.stringContaining("maintenance window"),
      });
      expect(run.stderr).toContain("maintenance window");
    });

    it("Stop: a block sends the agent on with the reason, once (stop_hook_active)", E2E, async () => {
      run = await runWithHooks({
        dialect,
        rules: { stop: [{ answer: dialect.block("stop", "RUN THE TESTS before you stop"), once: true }] },
        turns: [
          { text: "done early" },
          { text: "tests ran, done", expect: sees("RUN THE TESTS before you stop") },
        ],
      });
      expect(run.code).toBe(0);
      run.server.assertDone();
      expect(run.result()).toMatchObject({ result: "tests ran, done" });
      expect(eventsNamed(run, dialect, "stop").map((e) => e.stop_hook_active)).toEqual([false, true]);
    });

    it("PreToolUse: a deny's reason is what the model reads; the call does not run", E2E, async () => {
      run = await runWithHooks({
        dialect,
        files: { "notes.txt": "NOTE-CONTENT\n" },
        rules: {
          pre_tool_execution: [
            {
              matcher: READ_TOOL[dialect.id],
              answer: dialect.block("pre_tool_execution", "read README instead"),
            },
          ],
        },
        turns: [
          { toolCalls: [READ] },
          {
            text: "ok",
            expect: (request) => {
              sees("read README instead")(request);
              never("NOTE-CONTENT")(request);
            },
          },
        ],
      });
      expect(run.code).toBe(0);
      run.server.assertDone();
    });

    it(
      "PreToolUse: continue false ends the run after the call; the model is not asked again",
      E2E,
      async () => {
        run = await runWithHooks({
          dialect,
          files: { "notes.txt": "NOTE-CONTENT\n" },
          rules: {
            pre_tool_execution: [{ matcher: READ_TOOL[dialect.id], answer: dialect.stop("budget spent") }],
          },
          turns: [{ toolCalls: [READ] }],
        });
        expect(run.code).toBe(0);
        run.server.assertDone();
        expect(run.result()).toMatchObject({ stop_reason: expect.stringContaining("budget spent") });
      },
    );

    it("PostToolUse: its context follows the result to the model", E2E, async () => {
      run = await runWithHooks({
        dialect,
        files: { "notes.txt": "NOTE-CONTENT\n" },
        rules: {
          post_tool_execution: [
            {
              matcher: READ_TOOL[dialect.id],
              answer: dialect.context("post_tool_execution", "CTX-AFTER: notes are stale"),
            },
          ],
        },
        turns: [
          { toolCalls: [READ] },
          {
            text: "ok",
            expect: (request) => {
              sees("NOTE-CONTENT")(request);
              sees("CTX-AFTER: notes are stale")(request);
            },
          },
        ],
      });
      expect(run.code).toBe(0);
      run.server.assertDone();
    });

    it(
      "PostToolUse deny/block: Gemini hides the result, Claude and Qwen add the reason, native ignores it",
      E2E,
      async () => {
        const visible = dialect.id !== "gemini";
        run = await runWithHooks({
          dialect,
          files: { "notes.txt": "TOP-SECRET-CONTENT\n" },
          rules: {
            post_tool_execution: [
              {
                matcher: READ_TOOL[dialect.id],
                answer: dialect.block("post_tool_execution", "REDACTED BY HOOK"),
              },
            ],
          },
          turns: [
            { toolCalls: [READ] },
            {
              text: "ok",
              expect: (request) => {
                (visible ? sees : never)("TOP-SECRET-CONTENT")(request);
                (dialect.id === "native" ? never : sees)("REDACTED BY HOOK")(request);
              },
            },
          ],
        });
        expect(run.code).toBe(0);
        run.server.assertDone();
      },
    );

    it.runIf(has(dialect, "permission_request"))(
      "PermissionRequest: a hook's allow answers the question headless; its deny's message reaches the model",
      E2E,
      async () => {
        const echo = (word: string) => ({
          name: "run_command",
          args: { CommandLine: `echo ${word}`, Cwd: ".", WaitMsBeforeAsync: 10_000 },
        });
        run = await runWithHooks({
          dialect,
          rules: {
            permission_request: [
              {
                matcher:
                  dialect.id === "native"
                    ? "run_command"
                    : dialect.id === "qwen"
                      ? "run_shell_command"
                      : "Bash",
                answer: dialect.allow("permission_request"),
              },
            ],
          },
          // the command's output (after the exit line, a JSON-escaped newline), not only its command line
          turns: [
            { toolCalls: [echo("PERMITTED-BY-HOOK")] },
            { text: "ok", expect: sees("\\nPERMITTED-BY-HOOK") },
          ],
        });
        expect(run.code).toBe(0);
        run.server.assertDone();
        expect(eventsNamed(run, dialect, "permission_request")[0]).toMatchObject(
          dialect.id === "native"
            ? { tool_call: { name: "run_command" } }
            : { tool_input: { command: "echo PERMITTED-BY-HOOK" } },
        );
        await run.server.close();
        await run.ws.cleanup();
        run = await runWithHooks({
          dialect,
          rules: {
            permission_request: [{ answer: dialect.block("permission_request", "ask the on-call first") }],
          },
          turns: [{ toolCalls: [echo("NEVER")] }, { text: "ok", expect: sees("ask the on-call first") }],
        });
        expect(run.code).toBe(0);
        run.server.assertDone();
      },
    );

    it.runIf(has(dialect, "subagent_start", "subagent_stop"))(
      "SubagentStart adds context to the subagent; SubagentStop sends it on once, with its id and type",
      E2E,
      async () => {
        run = await runWithHooks({
          dialect,
          rules: {
            subagent_start: [{ answer: dialect.context("subagent_start", "CTX-SUB: stay read-only") }],
            subagent_stop: [
              { answer: dialect.block("subagent_stop", "CHECK THE EDGE CASES too"), once: true },
            ],
          },
          turns: [
            {
              toolCalls: [
                {
                  name: "agent",
                  args: { description: "check", prompt: "SUBTASK: look around", run_in_background: false },
                },
              ],
            },
            { text: "sub report 1", expect: sees("CTX-SUB: stay read-only") },
            { text: "sub report 2", expect: sees("CHECK THE EDGE CASES too") },
            { text: "all done", expect: sees("sub report 2") },
          ],
        });
        expect(run.code).toBe(0);
        run.server.assertDone();
        expect(eventsNamed(run, dialect, "subagent_start")).toEqual([
          expect.objectContaining(
            dialect.id === "native"
              ? { agent_id: "agent-1", agent_type: "general-purpose" }
              : { agent_id: "agent-1", agent_type: "general-purpose" },
          ),
        ]);
        expect(
          eventsNamed(run, dialect, "subagent_stop").map((e) => [e.agent_id, e.stop_hook_active]),
        ).toEqual([
          ["agent-1", false],
          ["agent-1", true],
        ]);
      },
    );

    it(
      "PreCompact, PostCompact and SessionStart (compact) see a compaction; PreCompact's context steers the summary",
      E2E,
      async () => {
        const compactRules = {
          pre_compact: [{ answer: dialect.context("pre_compact", "KEEP THE TODO LIST") }],
          ...(has(dialect, "post_compact") ? { post_compact: [{ answer: {} }] } : {}),
          session_start: [
            { matcher: "compact", answer: dialect.context("session_start", "CTX-AFTER-COMPACT") },
          ],
        };
        run = await runWithHooks({
          dialect,
          files: {
            "notes.txt": `${"a long note line\n".repeat(40)}`,
            ".agents/settings.json": '{"contextWindow": 60}',
          },
          rules: compactRules,
          turns: [
            { toolCalls: [READ] },
            { toolCalls: [READ] },
            { toolCalls: [READ] },
            {
              text: "SUMMARY-TEXT of the work",
              expect: (r) => dialect.id === "gemini" || sees("KEEP THE TODO LIST")(r),
            },
            {
              text: "done",
              expect: (request) => {
                sees("SUMMARY-TEXT")(request);
                (dialect.id === "gemini" ? never : sees)("CTX-AFTER-COMPACT")(request);
              },
            },
          ],
        });
        expect(run.code).toBe(0);
        run.server.assertDone();
        expect(eventsNamed(run, dialect, "pre_compact")).toEqual([
          expect.objectContaining({ trigger: "auto" }),
        ]);
        if (has(dialect, "post_compact")) {
          const [post] = eventsNamed(run, dialect, "post_compact");
          expect(JSON.stringify(post)).toContain("SUMMARY-TEXT");
        }
      },
    );
  },
);
