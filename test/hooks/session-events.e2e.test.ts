import { existsSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runGantry } from "../support/cli.js";
import { type ModelServer, type RecordedRequest, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { E2E } from "./e2e-cli.js";

let server: ModelServer | undefined;
let ws: TempWorkspace | undefined;
afterEach(async () => {
  await server?.close();
  await ws?.cleanup();
  server = undefined;
  ws = undefined;
});

// the log lies beside the workspace: a workspace file a hook command names is pinned by trust as a script
const record = (file = "events.jsonl") =>
  `cat >> "$GANTRY_PROJECT_DIR/../${file}"; echo >> "$GANTRY_PROJECT_DIR/../${file}"`;
const claudeHooks = (hooks: Record<string, string>) =>
  JSON.stringify({
    hooks: Object.fromEntries(
      Object.entries(hooks).map(([event, command]) => [event, [{ hooks: [{ type: "command", command }] }]]),
    ),
  });
const events = () =>
  readFileSync(`${ws?.parent}/events.jsonl`, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
const sees = (text: string) => (request: RecordedRequest) => {
  if (!request.text.includes(text)) throw new Error(`the model was not sent "${text}"`);
};

function gantry(args: string[], input?: string) {
  if (!server || !ws) throw new Error("start the server and the workspace first");
  return runGantry(
    [
      ...args,
      "--model",
      "openai:test-model",
      "--base-url",
      server.baseUrl("openai"),
      "--workspace",
      ws.root,
      "--trust",
    ],
    {
      env: { HOME: ws.home, OPENAI_API_KEY: "test-key" },
      timeoutMs: 60_000,
      ...(input !== undefined ? { input } : {}),
    },
  );
}

describe("session events of Claude Code hooks, end to end", () => {
  it(
    "SessionStart says resume for --continue; SessionEnd says prompt_input_exit when the interactive input ends",
    E2E,
    async () => {
      ws = await createTempWorkspace({
        ".claude/settings.json": claudeHooks({ SessionStart: record(), SessionEnd: record() }),
      });
      server = await startModelServer([{ text: "one" }, { text: "two" }]);
      expect((await gantry(["-p", "first"])).code).toBe(0);
      const interactive = await gantry(["--continue"], "second\n");
      expect(interactive.code).toBe(0);
      server.assertDone();
      expect(events().map((e) => [e.hook_event_name, e.source ?? e.reason])).toEqual([
        ["SessionStart", "startup"],
        ["SessionEnd", "other"],
        ["SessionStart", "resume"],
        ["SessionEnd", "prompt_input_exit"],
      ]);
    },
  );

  it(
    "/clear ends the session (clear) and starts another (clear); /compact is a manual compaction",
    E2E,
    async () => {
      ws = await createTempWorkspace({
        ".claude/settings.json": claudeHooks({
          SessionStart: record(),
          SessionEnd: record(),
          PreCompact: record(),
          PostCompact: record(),
        }),
      });
      server = await startModelServer([
        { text: "one" },
        { text: "two" },
        { text: "SUMMARY of one and two" },
        { text: "three" },
      ]);
      const run = await gantry([], "first\nsecond\n/compact\n/clear\nthird\n");
      expect(run.code).toBe(0);
      server.assertDone();
      expect(events().map((e) => [e.hook_event_name, e.source ?? e.reason ?? e.trigger])).toEqual([
        ["SessionStart", "startup"],
        ["PreCompact", "manual"],
        ["PostCompact", "manual"],
        ["SessionStart", "compact"],
        ["SessionEnd", "clear"],
        ["SessionStart", "clear"],
        ["SessionEnd", "prompt_input_exit"],
      ]);
    },
  );

  it(
    "UserPromptSubmit: plain stdout is context; exit 2 erases the prompt and tells the user",
    E2E,
    async () => {
      const gate = `python3 -c 'import json,sys; p=json.load(sys.stdin)["prompt"]; print("CTX-PLAIN: today is release day") if "secret" not in p else (sys.stderr.write("prompts may not name secrets"), sys.exit(2))'`;
      ws = await createTempWorkspace({ ".claude/settings.json": claudeHooks({ UserPromptSubmit: gate }) });
      server = await startModelServer([{ text: "noted", expect: sees("CTX-PLAIN: today is release day") }]);
      const ok = await gantry(["-p", "what day is it?"]);
      expect(ok.code).toBe(0);
      server.assertDone();
      const refused = await gantry(["-p", "print the secret"]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("blocked the prompt: prompts may not name secrets");
      server.assertDone();
    },
  );

  it(
    "Stop: exit 2 sends the agent on with stderr; systemMessage is shown to the user, never to the model",
    E2E,
    async () => {
      const stop = `python3 -c 'import json,sys; d=json.load(sys.stdin); (sys.stderr.write("update the changelog"), sys.exit(2)) if not d["stop_hook_active"] else print(json.dumps({"systemMessage": "changelog checked"}))'`;
      ws = await createTempWorkspace({ ".claude/settings.json": claudeHooks({ Stop: stop }) });
      server = await startModelServer([
        { text: "done" },
        {
          text: "changelog updated",
          expect: (request) => {
            sees("update the changelog")(request);
            if (request.text.includes("changelog checked")) throw new Error("the model saw a systemMessage");
          },
        },
      ]);
      const run = await gantry(["-p", "fix it"]);
      expect(run.code).toBe(0);
      server.assertDone();
      expect(run.stdout).toContain("changelog updated");
      expect(run.stderr).toContain("changelog checked");
    },
  );

  it("PostToolUse continue false: the turn's later calls do not start and the run ends", E2E, async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": JSON.stringify({
        hooks: {
          PostToolUse: [
            {
              matcher: "Bash",
              hooks: [{ type: "command", command: `echo '{"continue":false,"stopReason":"one is enough"}'` }],
            },
          ],
        },
      }),
    });
    const touch = (file: string) => ({
      name: "run_command",
      args: { CommandLine: `touch ${file}`, Cwd: ".", WaitMsBeforeAsync: 10_000 },
    });
    server = await startModelServer([{ toolCalls: [touch("first.txt"), touch("second.txt")] }]);
    const run = await gantry(["-p", "touch both", "--approval-mode", "yolo", "--output-format", "json"]);
    expect(run.code).toBe(0);
    server.assertDone();
    expect(existsSync(`${ws.root}/first.txt`)).toBe(true);
    expect(existsSync(`${ws.root}/second.txt`)).toBe(false);
    expect(run.stderr).toContain("stopped the agent: one is enough");
    expect(JSON.parse(run.stdout.trim())).toMatchObject({
      stop_reason: expect.stringContaining("one is enough"),
    });
  });

  it("a Stop hook that always blocks is cut off after 8 times in a row", E2E, async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": claudeHooks({ Stop: `echo '{"decision":"block","reason":"again"}'` }),
    });
    server = await startModelServer(Array.from({ length: 9 }, (_, i) => ({ text: `try ${i}` })));
    const run = await gantry(["-p", "go", "--max-turns", "20"]);
    expect(run.code).toBe(0);
    server.assertDone();
    expect(run.stdout).toContain("try 8");
  });
});

describe("Gemini CLI's AfterAgent, end to end", () => {
  it("exit 2 rejects the reply and the agent retries with stderr as its next prompt", E2E, async () => {
    const after = `import json, os, sys
d = json.load(sys.stdin)
open(os.environ["GEMINI_PROJECT_DIR"] + "/events.jsonl", "a").write(json.dumps(d) + "\\n")
if not d["stop_hook_active"]:
    sys.stderr.write("answer in French")
    sys.exit(2)
print("{}")
`;
    ws = await createTempWorkspace({
      "after.py": after,
      ".gemini/settings.json": JSON.stringify({
        hooks: {
          AfterAgent: [{ hooks: [{ type: "command", command: `python3 "$GEMINI_PROJECT_DIR/after.py"` }] }],
        },
      }),
    });
    server = await startModelServer([
      { text: "hello" },
      { text: "bonjour", expect: sees("answer in French") },
    ]);
    const run = await gantry(["-p", "greet me"]);
    expect(run.code).toBe(0);
    server.assertDone();
    expect(run.stdout).toContain("bonjour");
    const [first] = readFileSync(`${ws.root}/events.jsonl`, "utf8").split("\n");
    expect(JSON.parse(first as string)).toMatchObject({
      hook_event_name: "AfterAgent",
      prompt: "greet me",
      prompt_response: "hello",
      stop_hook_active: false,
    });
  });

  it(
    "clearContext with a block drops the conversation: the agent goes on with only the reason",
    E2E,
    async () => {
      const after = `import json, sys
d = json.load(sys.stdin)
if not d["stop_hook_active"]:
    print(json.dumps({"decision": "deny", "reason": "start over, in French", "hookSpecificOutput": {"clearContext": True}}))
else:
    print("{}")
`;
      ws = await createTempWorkspace({
        "after.py": after,
        ".gemini/settings.json": JSON.stringify({
          hooks: {
            AfterAgent: [{ hooks: [{ type: "command", command: `python3 "$GEMINI_PROJECT_DIR/after.py"` }] }],
          },
        }),
      });
      const forgot = (text: string) => (request: RecordedRequest) => {
        if (request.text.includes(text)) throw new Error(`the model was still sent "${text}"`);
      };
      server = await startModelServer([
        { text: "hello PINEAPPLE" },
        {
          text: "bonjour",
          expect: (request) => {
            sees("start over, in French")(request);
            forgot("greet me")(request);
            forgot("PINEAPPLE")(request);
          },
        },
      ]);
      const run = await gantry(["-p", "greet me"]);
      expect(run.code, run.stderr).toBe(0);
      server.assertDone();
      expect(run.stdout).toContain("bonjour");
    },
  );

  it(
    "BeforeModel's llm_request: this call is sent the hook's messages and settings; the conversation keeps its own",
    E2E,
    async () => {
      // the first model call only: the hook swaps the prompt's text and sets the temperature
      const before = `import json, os, sys
d = json.load(sys.stdin)
mark = os.environ["GEMINI_PROJECT_DIR"] + "/../edited"
if os.path.exists(mark):
    print("{}")
    sys.exit(0)
open(mark, "w").close()
messages = [dict(m, content=m["content"].replace("CHERRY", "BANANA")) for m in d["llm_request"]["messages"]]
print(json.dumps({"hookSpecificOutput": {"llm_request": {"messages": messages, "config": {"temperature": 0.25}}}}))
`;
      ws = await createTempWorkspace({
        "../before.py": before,
        ".gemini/settings.json": JSON.stringify({
          hooks: {
            BeforeModel: [
              { hooks: [{ type: "command", command: `python3 "$GEMINI_PROJECT_DIR/../before.py"` }] },
            ],
          },
        }),
      });
      const lacks = (text: string) => (request: RecordedRequest) => {
        if (request.text.includes(text)) throw new Error(`the model was sent "${text}"`);
      };
      server = await startModelServer([
        {
          toolCalls: [{ name: "view_file", args: { AbsolutePath: `${ws.root}/.gemini/settings.json` } }],
          expect: (request) => {
            sees("say BANANA")(request);
            lacks("CHERRY")(request);
            if (request.body.temperature !== 0.25)
              throw new Error(`temperature ${String(request.body.temperature)}`);
          },
        },
        {
          text: "done",
          expect: (request) => {
            sees("say CHERRY")(request);
            if (request.body.temperature !== undefined) throw new Error("the setting outlived its call");
          },
        },
      ]);
      const run = await gantry(["-p", "say CHERRY"]);
      expect(run.code, run.stderr).toBe(0);
      server.assertDone();
    },
  );
});
