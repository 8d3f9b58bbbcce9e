import { spawn } from "node:child_process";
import { appendFileSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createGantrySession } from "../../src/gantry.js";
import { sessionsDir } from "../../src/session/jsonl.js";
import { GANTRY_BIN, runGantry } from "../support/cli.js";
import { type ModelServer, type Protocol, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

const PROVIDER: Record<Protocol, string> = { openai: "openai", anthropic: "anthropic", gemini: "google" };
/** CLI runs spawn node and load the AI SDK: slow on a busy machine. */
const E2E = { timeout: 120_000 };
const KEYS = { OPENAI_API_KEY: "test-key", ANTHROPIC_API_KEY: "test-key", GEMINI_API_KEY: "test-key" };

let server: ModelServer | undefined;
let ws: TempWorkspace | undefined;
afterEach(async () => {
  await server?.close();
  await ws?.cleanup();
  server = undefined;
  ws = undefined;
});

/** Whether another issue's tool is registered yet (the e2e tests use the real built-in tools). */
let registered: Set<string>;
beforeAll(async () => {
  const probe = await createTempWorkspace();
  const session = createGantrySession({ workspace: probe.root, home: probe.home });
  registered = new Set(session.registry.all().map((tool) => tool.spec.name));
  await session.dispose();
  await probe.cleanup();
});

function gantryArgs(protocol: Protocol, prompt: string, extra: string[] = []): string[] {
  if (!server || !ws) throw new Error("start the server and the workspace first");
  return [
    "-p",
    prompt,
    "--model",
    `${PROVIDER[protocol]}:test-model`,
    "--base-url",
    server.baseUrl(protocol),
    "--workspace",
    ws.root,
    "--output-format",
    "json",
    ...extra,
  ];
}

function runAgent(
  protocol: Protocol,
  prompt: string,
  extra: string[] = [],
  env: Record<string, string> = {},
) {
  if (!ws) throw new Error("no workspace");
  return runGantry(gantryArgs(protocol, prompt, extra), {
    env: { HOME: ws.home, ...KEYS, ...env },
    timeoutMs: 60_000,
  });
}

function sessionLines(home: string): Record<string, unknown>[] {
  const root = path.join(home, ".gantry", "sessions");
  const [dir] = readdirSync(root);
  const [file] = readdirSync(path.join(root, dir as string));
  return readFileSync(path.join(root, dir as string, file as string), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe.each(["openai", "anthropic", "gemini"] as const)("gantry -p over the %s protocol", (protocol) => {
  it("reads, searches, edits a file and answers", E2E, async () => {
    ws = await createTempWorkspace({ "src/app.ts": "export const answer = 41; // TODO fix\n" });
    const file = path.join(ws.root, "src/app.ts");
    server = await startModelServer([
      {
        text: "Let me look at the code.",
        toolCalls: [
          { name: "view_file", args: { AbsolutePath: file } },
          { name: "grep_search", args: { SearchPath: ws.root, Query: "TODO" } },
        ],
      },
      {
        expect: (request) => {
          expect(request.text).toContain("export const answer = 41");
          expect(request.text).toContain("app.ts");
        },
        toolCalls: [
          {
            name: "replace_file_content",
            args: {
              TargetFile: file,
              Instruction: "fix the answer",
              Description: "answer is 42",
              TargetContent: "export const answer = 41; // TODO fix",
              ReplacementContent: "export const answer = 42;",
              StartLine: 1,
              EndLine: 1,
              AllowMultiple: false,
            },
          },
        ],
      },
      { text: "Fixed: the answer is now 42." },
    ]);
    const run = await runAgent(protocol, "Fix the TODO in src/app.ts", ["--approval-mode", "yolo"]);
    expect(run.stderr).toBe("");
    expect(run.code, run.stderr).toBe(0);
    server.assertDone();
    expect(readFileSync(file, "utf8")).toBe("export const answer = 42;\n");
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ type: "result", subtype: "success", is_error: false, num_turns: 3 });
    expect(result.result).toBe("Fixed: the answer is now 42.");
    expect(result.usage.input_tokens).toBeGreaterThan(0);
    // the third request carries the edit's result back to the model
    expect(server.requests[2]?.text).toContain("replace_file_content");
    // the system prompt declares the tools; the tools travel as declarations too
    expect(server.requests[0]?.text).toContain("You are Gantry");
    const lines = sessionLines(ws.home);
    expect(lines[0]).toMatchObject({ type: "session", id: result.session_id });
    expect(lines.filter((l) => l.type === "tool_result")).toHaveLength(3);
    expect(lines.at(-1)).toMatchObject({ type: "done", reason: "completed" });
  });

  it("recovers from a denied tool call: the error goes back to the model, which adapts", E2E, async () => {
    ws = await createTempWorkspace({ "notes.txt": "inside the workspace\n" });
    const outside = path.join(ws.parent, "outside.txt");
    server = await startModelServer([
      { toolCalls: [{ name: "view_file", args: { AbsolutePath: outside } }] },
      {
        expect: (request) => expect(request.text).toMatch(/outside/i),
        toolCalls: [{ name: "view_file", args: { AbsolutePath: path.join(ws.root, "notes.txt") } }],
      },
      {
        expect: (request) => expect(request.text).toContain("inside the workspace"),
        text: "That file is outside the workspace; notes.txt says: inside the workspace.",
      },
    ]);
    const run = await runAgent(protocol, "Read ../outside.txt");
    expect(run.code, run.stderr).toBe(0);
    server.assertDone();
    expect(JSON.parse(run.stdout).result).toContain("notes.txt says");
    const results = sessionLines(ws.home).filter((l) => l.type === "tool_result");
    expect(results[0]).toMatchObject({ result: { error: true } });
    expect(results[1]).toMatchObject({ result: { error: false } });
  });

  it(
    "recovers from a permission denial: the reason goes back to the model, which takes another way",
    E2E,
    async () => {
      ws = await createTempWorkspace({ "notes.txt": "keep me\n" });
      const notes = path.join(ws.root, "notes.txt");
      server = await startModelServer([
        {
          toolCalls: [
            {
              name: "write_to_file",
              args: { TargetFile: notes, Overwrite: true, CodeContent: "changed\n", Description: "rewrite" },
            },
          ],
        },
        {
          expect: (request) => expect(request.text).toContain("Denied by approval mode default"),
          toolCalls: [{ name: "view_file", args: { AbsolutePath: notes } }],
        },
        {
          expect: (request) => expect(request.text).toContain("keep me"),
          text: "I may not write files here; notes.txt still says: keep me.",
        },
      ]);
      const run = await runAgent(protocol, "Rewrite notes.txt");
      expect(run.code, run.stderr).toBe(0);
      server.assertDone();
      expect(readFileSync(notes, "utf8")).toBe("keep me\n");
      const results = sessionLines(ws.home).filter((l) => l.type === "tool_result");
      expect(results[0]).toMatchObject({ result: { error: true, errorCode: "denied" } });
      expect(results[1]).toMatchObject({ result: { error: false } });
    },
  );

  it("sends an image view_file returned as an image, never as base64 text", E2E, async () => {
    ws = await createTempWorkspace();
    const png = Buffer.from(
      "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5f0000000049454e44ae426082",
      "hex",
    );
    const base64 = png.toString("base64");
    await ws.write("pic.png", png);
    server = await startModelServer([
      { toolCalls: [{ name: "view_file", args: { AbsolutePath: path.join(ws.root, "pic.png") } }] },
      { text: "A one-pixel picture." },
    ]);
    const run = await runAgent(protocol, "Look at pic.png");
    expect(run.code, run.stderr).toBe(0);
    server.assertDone();
    const body = server.requests[1]?.body as Record<string, unknown>;
    const text = JSON.stringify(body);
    if (protocol === "openai") {
      // chat completions carry text only in a tool message: the picture follows as a user message
      const messages = body.messages as { role: string; content: unknown }[];
      const tool = messages.find((m) => m.role === "tool");
      expect(typeof tool?.content).toBe("string");
      expect(tool?.content).not.toContain(base64);
      expect(tool?.content).toContain("the image follows in the next message");
      const after = messages[messages.indexOf(tool as (typeof messages)[number]) + 1];
      expect(after).toMatchObject({
        role: "user",
        content: expect.arrayContaining([
          { type: "image_url", image_url: { url: `data:image/png;base64,${base64}` } },
        ]),
      });
    } else if (protocol === "anthropic") {
      expect(text).toContain(JSON.stringify({ type: "base64", media_type: "image/png", data: base64 }));
    } else {
      expect(text).toContain(JSON.stringify({ mimeType: "image/png", data: base64 }));
    }
  });

  it("retries a rate limit and a server error, then succeeds", E2E, async () => {
    ws = await createTempWorkspace();
    server = await startModelServer([
      { error: { status: 429, message: "slow down", retryAfterSeconds: 0 } },
      { error: { status: 503, message: "overloaded" } },
      { text: "Hello after retries." },
    ]);
    const run = await runAgent(protocol, "Say hello", [], { GANTRY_RETRY_BASE_MS: "10" });
    expect(run.stderr).not.toContain("scripted model server");
    expect(run.code, run.stderr).toBe(0);
    server.assertDone();
    expect(JSON.parse(run.stdout).result).toBe("Hello after retries.");
    expect(run.stderr).toMatch(/rate limited.*slow down.*retrying/);
    expect(run.stderr).toMatch(/503.*overloaded.*retrying/);
  });

  it("stops at once with a clear message on an authentication error", E2E, async () => {
    ws = await createTempWorkspace();
    server = await startModelServer([{ error: { status: 401, message: "invalid x-api-key" } }]);
    const run = await runAgent(protocol, "Say hello", [], { GANTRY_RETRY_BASE_MS: "10" });
    expect(run.code, run.stderr).toBe(1);
    server.assertDone();
    expect(server.requests).toHaveLength(1);
    expect(run.stderr).toMatch(/credentials.*401.*invalid x-api-key.*API key/);
    expect(JSON.parse(run.stdout)).toMatchObject({ is_error: true, subtype: "error_during_execution" });
  });

  it("aborts mid-tool on SIGINT and leaves a consistent session", E2E, async () => {
    ws = await createTempWorkspace();
    const slowCall = registered.has("run_command")
      ? { name: "run_command", args: { CommandLine: "sleep 30", Cwd: ws.root, WaitMsBeforeAsync: 60_000 } }
      : undefined;
    server = await startModelServer(slowCall ? [{ toolCalls: [slowCall] }] : [{ hang: true }]);
    const child = spawn(
      process.execPath,
      [
        GANTRY_BIN,
        ...gantryArgs(protocol, "Run something slow", [
          "--output-format",
          "stream-json",
          "--approval-mode",
          "yolo",
        ]),
      ],
      { env: { ...process.env, HOME: ws.home, ...KEYS }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let interrupted = false;
    const started = Date.now();
    const code = await new Promise<number | null>((resolve) => {
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
        // "usage" closes the model's turn: the tool starts right after it
        const ready = slowCall ? stdout.includes('"type":"usage"') : stdout.includes('"type":"turn_start"');
        if (ready && !interrupted) {
          interrupted = true;
          setTimeout(() => child.kill("SIGINT"), 500);
        }
      });
      child.on("close", resolve);
    });
    expect(code).toBe(130);
    expect(Date.now() - started).toBeLessThan(15_000);
    const lines = sessionLines(ws.home);
    const calls = lines
      .filter((l) => l.type === "tool_call")
      .map((l) => (l.call as { callId: string }).callId);
    const results = lines.filter((l) => l.type === "tool_result");
    expect(results.map((l) => (l.call as { callId: string }).callId)).toEqual(calls);
    if (slowCall) {
      expect(results[0]).toMatchObject({ result: { error: true, errorCode: "aborted" } });
      const toolMessage = lines.find(
        (l) => l.type === "message" && (l.message as { role: string }).role === "tool",
      );
      expect(toolMessage).toBeDefined();
    }
    expect(lines.at(-1)).toMatchObject({ type: "done", reason: "aborted" });
  });

  it("resumes a saved session: the next run sends the earlier conversation", E2E, async () => {
    ws = await createTempWorkspace();
    server = await startModelServer([{ text: "Noted: the code word is PELICAN." }]);
    const first = await runAgent(protocol, "Remember the code word PELICAN");
    expect(first.stderr).toBe("");
    expect(first.code, first.stderr).toBe(0);
    const sessionId = JSON.parse(first.stdout).session_id as string;
    // a crash mid-write left a torn last line: it is reported, skipped, and the rest resumes
    const sessionFile = path.join(sessionsDir(ws.home, realpathSync(ws.root)), `${sessionId}.jsonl`);
    appendFileSync(sessionFile, '{"type":"message","mess');
    const tornLine = readFileSync(sessionFile, "utf8").split("\n").length;

    server.script({
      expect: (request) => {
        expect(request.text).toContain("Remember the code word PELICAN");
        expect(request.text).toContain("Noted: the code word is PELICAN.");
      },
      text: "The code word was PELICAN.",
    });
    const second = await runAgent(protocol, "What was the code word?", ["--resume", sessionId]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/^gantry: .* line \d+: not JSON .*; skipped\n$/);
    expect(second.stderr.startsWith(`gantry: ${sessionFile} line ${tornLine}: not JSON`)).toBe(true);
    expect(JSON.parse(second.stdout)).toMatchObject({
      session_id: sessionId,
      result: "The code word was PELICAN.",
    });

    server.script({
      expect: (request) => expect(request.text).toContain("What was the code word?"),
      text: "Still PELICAN.",
    });
    const third = await runAgent(protocol, "And now?", ["--continue"]);
    expect(third.code, third.stderr).toBe(0);
    expect(JSON.parse(third.stdout).session_id).toBe(sessionId);
    server.assertDone();
  });
});

describe("gantry -p", () => {
  it("tells Claude-style hooks the session's id and its transcript file", E2E, async () => {
    ws = await createTempWorkspace({ "notes.txt": "hello\n" });
    await ws.write(
      ".claude/settings.json",
      JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: "Read",
              hooks: [
                {
                  type: "command",
                  // and the command lines of the processes above the hook's shell (/proc/self is the
                  // host's view even inside the hook's PID namespace)
                  command:
                    'cat > "$CLAUDE_PROJECT_DIR/hook-input.json"; p=$(cut -d" " -f4 /proc/self/stat); for i in 1 2 3 4; do tr "\\0" " " < /proc/$p/cmdline; echo; p=$(cut -d" " -f4 /proc/$p/stat); done > "$CLAUDE_PROJECT_DIR/hook-ancestry.txt"',
                },
              ],
            },
          ],
        },
      }),
    );
    server = await startModelServer([
      { toolCalls: [{ name: "view_file", args: { AbsolutePath: path.join(ws.root, "notes.txt") } }] },
      { text: "read it" },
    ]);
    const run = await runAgent("openai", "Read notes.txt", [], { GANTRY_TRUST_WORKSPACE: "1" });
    expect(run.code, run.stderr).toBe(0);
    const sessionId = JSON.parse(run.stdout).session_id as string;
    const input = JSON.parse(readFileSync(path.join(ws.root, "hook-input.json"), "utf8"));
    const transcript = path.join(sessionsDir(ws.home, realpathSync(ws.root)), `${sessionId}.jsonl`);
    // Claude Code's own transcript format, in a view beside the session file (test/hooks/transcript-views*)
    const view = path.join(transcript.slice(0, -".jsonl".length) + ".views", "claude.jsonl");
    expect(input).toMatchObject({ session_id: sessionId, transcript_path: view, tool_name: "Read" });
    expect(JSON.parse(readFileSync(input.transcript_path, "utf8").split("\n")[0] as string)).toMatchObject({
      type: "user",
      sessionId,
      message: { role: "user", content: "Read notes.txt" },
    });
    // the hook runner started it (the bundle runs the library build's script), not the session's process
    expect(readFileSync(path.join(ws.root, "hook-ancestry.txt"), "utf8")).toMatch(
      /dist\/hooks\/hook-runner-process\.js/,
    );
  });

  it("says exactly how to configure a model when none is set", E2E, async () => {
    ws = await createTempWorkspace();
    const run = await runGantry(["-p", "hi", "--workspace", ws.root], {
      env: { HOME: ws.home },
      timeoutMs: 60_000,
    });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain("No model is configured");
    expect(run.stderr).toContain("--model anthropic:");
    expect(run.stderr).toContain('"model"');
  });

  it("reads the prompt from stdin with -p - and prints the answer as text", E2E, async () => {
    ws = await createTempWorkspace();
    server = await startModelServer([
      { expect: (request) => expect(request.text).toContain("prompt from stdin"), text: "plain answer" },
    ]);
    const run = await runGantry(
      [
        "-p",
        "-",
        "--model",
        "openai-compatible:local",
        "--base-url",
        server.baseUrl("openai"),
        "--workspace",
        ws.root,
      ],
      { env: { HOME: ws.home }, input: "a prompt from stdin", timeoutMs: 60_000 },
    );
    expect(run.stderr).toBe("");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("plain answer\n");
    server.assertDone();
  });

  it("takes the model and base URL from a trusted workspace's .agents/settings.json", E2E, async () => {
    ws = await createTempWorkspace();
    server = await startModelServer([{ text: "from settings" }]);
    await ws.write(
      ".agents/settings.json",
      JSON.stringify({ model: "openai-compatible:local", baseUrl: server.baseUrl("openai") }),
    );
    const run = await runGantry(["-p", "hi", "--workspace", ws.root, "--trust"], {
      env: { HOME: ws.home },
      timeoutMs: 60_000,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("from settings\n");
    expect(server.requests[0]?.body.model).toBe("local");
  });

  it("streams one JSON event per line with stream-json and stops at --max-turns", E2E, async () => {
    ws = await createTempWorkspace({ "a.txt": "A" });
    const call = { name: "view_file", args: { AbsolutePath: path.join(ws.root, "a.txt") } };
    server = await startModelServer([{ toolCalls: [call] }, { toolCalls: [call] }]);
    const run = await runAgent("openai", "loop forever", [
      "--output-format",
      "stream-json",
      "--max-turns",
      "2",
    ]);
    expect(run.code, run.stderr).toBe(1);
    server.assertDone();
    const events = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events[0]).toMatchObject({ type: "system", subtype: "init" });
    expect(events[0].tools).toContain("view_file");
    expect(events.filter((e) => e.type === "turn_start")).toHaveLength(2);
    expect(events.every((e) => e.type === "system" || e.type === "result" || e.agentId === "main")).toBe(
      true,
    );
    // conversation messages come as Claude Code prints them: assistant tool_use, then user tool_result
    const sessionId = events[0].session_id;
    const toolUse = events.find((e) => e.type === "assistant");
    expect(toolUse).toMatchObject({
      session_id: sessionId,
      parent_tool_use_id: null,
      message: { role: "assistant", content: [{ type: "tool_use", name: "view_file", input: call.args }] },
    });
    const toolUseId = toolUse.message.content[0].id;
    expect(
      events.find((e) => e.type === "user" && e.message.content[0].type === "tool_result"),
    ).toMatchObject({
      session_id: sessionId,
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: toolUseId, is_error: false }] },
    });
    expect(events.filter((e) => e.type === "message")).toEqual([]);
    expect(events.at(-1)).toMatchObject({
      type: "result",
      subtype: "error_max_turns",
      is_error: true,
      num_turns: 2,
    });
  });

  it(
    "compacts the conversation when it nears the window set in settings, and saves the compaction",
    E2E,
    async () => {
      ws = await createTempWorkspace({ "a.txt": "A-CONTENT" });
      await ws.write(".agents/settings.json", JSON.stringify({ contextWindow: 300 }));
      const view = { name: "view_file", args: { AbsolutePath: path.join(ws.root, "a.txt") } };
      server = await startModelServer([
        { toolCalls: [view] },
        { toolCalls: [view] },
        { toolCalls: [view], usage: { input: 290, output: 5 } },
        {
          expect: (request) => expect(request.text).toContain("Summarise the conversation"),
          text: "SUMMARY: a.txt read three times; nothing left to do.",
        },
        {
          expect: (request) => {
            expect(request.text).toContain("SUMMARY: a.txt read three times");
            expect(request.text).toContain("keep reading a.txt");
          },
          text: "Done reading.",
        },
      ]);
      const run = await runAgent("openai", "keep reading a.txt", ["--trust"]);
      expect(run.code, run.stderr).toBe(0);
      server.assertDone();
      const lines = sessionLines(ws.home);
      // the first turn (prompt, call, result) goes into the summary; the last two turns stay
      expect(lines.find((l) => l.type === "compaction")).toMatchObject({ replacedCount: 3 });
      const { loadSession } = await import("../../src/session/jsonl.js");
      const root = path.join(ws.home, ".gantry", "sessions");
      const dir = path.join(root, readdirSync(root)[0] as string);
      const loaded = loadSession(path.join(dir, readdirSync(dir)[0] as string));
      expect(loaded.conversation.messages[0]).toMatchObject({ role: "summary" });
    },
  );

  it(
    "denies an edit nobody can approve in the default approval mode; the model is told why",
    E2E,
    async () => {
      ws = await createTempWorkspace({ "a.txt": "old\n" });
      const file = path.join(ws.root, "a.txt");
      server = await startModelServer([
        { toolCalls: [{ name: "view_file", args: { AbsolutePath: file } }] },
        {
          toolCalls: [
            {
              name: "write_to_file",
              args: { TargetFile: file, Overwrite: true, CodeContent: "new\n", Description: "rewrite" },
            },
          ],
        },
        { expect: (request) => expect(request.text).toMatch(/Denied/), text: "I may not edit files here." },
      ]);
      const run = await runAgent("openai", "rewrite a.txt");
      expect(run.code, run.stderr).toBe(0);
      server.assertDone();
      expect(readFileSync(file, "utf8")).toBe("old\n");
      const denied = sessionLines(ws.home).filter((l) => l.type === "tool_result")[1];
      expect(denied).toMatchObject({ result: { error: true, errorCode: "denied" } });
    },
  );

  it("rejects a bad --output-format, --max-turns or --approval-mode with a usage error", E2E, async () => {
    ws = await createTempWorkspace();
    for (const bad of [
      ["--output-format", "xml"],
      ["--max-turns", "0"],
      ["--approval-mode", "sometimes"],
    ]) {
      const run = await runGantry(["-p", "hi", "--workspace", ws.root, ...bad], {
        env: { HOME: ws.home },
        timeoutMs: 60_000,
      });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(bad[0]);
    }
  });
});
