import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
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

/** `gantry` with no command, its typed lines given on stdin (not a terminal: no prompts, no colour). */
function runInteractive(protocol: Protocol, input: string, extra: string[] = []) {
  return runWith(protocol, extra, input);
}

function runWith(protocol: Protocol, extra: string[], input = "") {
  if (!server || !ws) throw new Error("start the server and the workspace first");
  const args = ["--model", `${PROVIDER[protocol]}:test-model`, "--base-url", server.baseUrl(protocol)];
  return runGantry([...args, "--workspace", ws.root, ...extra], {
    input,
    env: { HOME: ws.home, ...KEYS },
    timeoutMs: 60_000,
  });
}

function sessionFiles(home: string): string[] {
  const root = path.join(home, ".gantry", "sessions");
  return readdirSync(root).flatMap((dir) =>
    readdirSync(path.join(root, dir)).map((file) => path.join(root, dir, file)),
  );
}

describe.each(["openai", "anthropic"] as const)("gantry interactive over the %s protocol", (protocol) => {
  it("runs each line as a turn of one session, saved for --continue", E2E, async () => {
    ws = await createTempWorkspace();
    server = await startModelServer([
      { text: "Noted: the code word is PELICAN.", usage: { input: 11, output: 5 } },
      {
        expect: (request) => {
          expect(request.text).toContain("Remember the code word PELICAN");
          expect(request.text).toContain("Noted: the code word is PELICAN.");
        },
        text: "The code word is PELICAN.",
      },
    ]);
    const run = await runInteractive(protocol, "Remember the code word PELICAN\nWhat was the code word?\n");
    expect(run.stderr).toBe("");
    expect(run.code, run.stderr).toBe(0);
    server.assertDone();
    expect(server.requests).toHaveLength(2);
    expect(run.stdout).toContain("> Remember the code word PELICAN\nNoted: the code word is PELICAN.\n");
    expect(run.stdout).toContain("> What was the code word?\nThe code word is PELICAN.\n");
    expect(run.stdout).toContain("(1 model turn · 11 tokens in · 5 out)");

    const [file] = sessionFiles(ws.home);
    const saved = readFileSync(file as string, "utf8");
    expect(saved).toContain("What was the code word?");
    expect(saved).toContain("The code word is PELICAN.");

    server.script({
      expect: (request) => expect(request.text).toContain("What was the code word?"),
      text: "Still PELICAN.",
    });
    const next = await runWith(protocol, ["-p", "And now?", "--continue"]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toBe("Still PELICAN.\n");
    expect(sessionFiles(ws.home)).toHaveLength(1);
    server.assertDone();
  });
});

describe("gantry interactive", () => {
  it("collapses reads and searches into one line and shows the edit's diff", E2E, async () => {
    ws = await createTempWorkspace({
      "src/app.ts": "export const answer = 41; // TODO fix\n",
      "src/b.ts": "b\n",
    });
    const file = path.join(ws.root, "src/app.ts");
    server = await startModelServer([
      {
        text: "Let me look.",
        toolCalls: [
          { name: "view_file", args: { AbsolutePath: file } },
          { name: "view_file", args: { AbsolutePath: path.join(ws.root, "src/b.ts") } },
          { name: "grep_search", args: { SearchPath: ws.root, Query: "TODO" } },
        ],
      },
      { toolCalls: [{ name: "replace_file_content", args: fixArgs(file) }] },
      { text: "Fixed." },
    ]);
    const run = await runInteractive("openai", "Fix the TODO\n", ["--approval-mode", "yolo"]);
    expect(run.code, run.stderr).toBe(0);
    server.assertDone();
    expect(readFileSync(file, "utf8")).toBe("export const answer = 42;\n");
    expect(run.stdout).toContain(
      [
        "Let me look.",
        '  Read src/app.ts, src/b.ts · Search "TODO" in .',
        "  Edit replace_file_content src/app.ts",
        "    --- a/src/app.ts",
        "    +++ b/src/app.ts",
        "    @@ -1,1 +1,1 @@",
        "    -export const answer = 41; // TODO fix",
        "    +export const answer = 42;",
        "Fixed.",
      ].join("\n"),
    );
    // stdout is a pipe: no colour codes
    expect(run.stdout).not.toContain("\x1b[");
  });

  it("denies what needs approval when stdin is not a terminal, and says so briefly", E2E, async () => {
    ws = await createTempWorkspace({ "src/app.ts": "export const answer = 41; // TODO fix\n" });
    const file = path.join(ws.root, "src/app.ts");
    server = await startModelServer([
      {
        toolCalls: [
          {
            name: "write_to_file",
            args: { TargetFile: file, Overwrite: true, CodeContent: "x", Description: "x" },
          },
        ],
      },
      { text: "I could not write it." },
    ]);
    const run = await runInteractive("openai", "Overwrite it\n");
    expect(run.code, run.stderr).toBe(0);
    server.assertDone();
    expect(readFileSync(file, "utf8")).toBe("export const answer = 41; // TODO fix\n");
    expect(run.stdout).toMatch(/\n {2}write_to_file failed: .+\n/);
    expect(run.stdout).toContain("I could not write it.");
  });

  it("answers /tools, /permissions and /help itself, and /exit ends before later lines", E2E, async () => {
    ws = await createTempWorkspace();
    server = await startModelServer([]);
    const run = await runInteractive("openai", "/tools\n/permissions\n/help\n/bogus\n/exit\nnever sent\n", [
      "--approval-mode",
      "plan",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests).toHaveLength(0);
    expect(run.stdout).toMatch(/\n {2}view_file +Read +read_only\n/);
    expect(run.stdout).toMatch(/\n {2}run_command +Command +execute\n/);
    expect(run.stdout).toContain("Approval mode: plan");
    expect(run.stdout).toMatch(/\/permissions +the approval mode/);
    expect(run.stdout).toMatch(/\/reload-hooks +read the hook files again/);
    expect(run.stdout).toContain("unknown command /bogus; /help lists the commands");
    expect(run.stdout).not.toContain("never sent");
  });

  it("keeps the hooks it started with until /reload-hooks, then applies the changed file", E2E, async () => {
    ws = await createTempWorkspace({ "a.txt": "alpha\n" });
    const view = { name: "view_file", args: { AbsolutePath: path.join(ws.root, "a.txt") } };
    server = await startModelServer([
      { toolCalls: [view] },
      { text: "First read done." },
      { toolCalls: [view] },
      { text: "Second read done." },
      { toolCalls: [view] },
      {
        expect: (request) => expect(request.text).toContain("reads are closed now"),
        text: "Third read was refused.",
      },
    ]);
    const child = spawnInteractive(server, ws, ["--trust"]);
    child.stdin.write("Read a.txt\n");
    await waitFor(() => child.output().includes("First read done."));
    // the agent (or anyone) changing the hook file mid-session changes nothing by itself
    await ws.write(
      ".agents/hooks.json",
      JSON.stringify({
        gate: {
          pre_tool_execution: [
            {
              matcher: "view_file",
              hooks: [
                { type: "command", command: `echo '{"decision":"deny","reason":"reads are closed now"}'` },
              ],
            },
          ],
        },
      }),
    );
    child.stdin.write("Read it again\n");
    await waitFor(() => child.output().includes("Second read done."));
    child.stdin.write("/reload-hooks\n");
    await waitFor(() => child.output().includes("hooks reloaded: 1 enabled group (gate)"));
    child.stdin.write("And once more\n");
    await waitFor(() => child.output().includes("Third read was refused."));
    child.stdin.end();
    expect(await child.exited).toBe(0);
    server.assertDone();
  });

  it("stops a turn on Ctrl-C and takes the next line", E2E, async () => {
    ws = await createTempWorkspace();
    server = await startModelServer([
      { text: "Thinking very hard", stall: true },
      {
        expect: (request) => expect(request.text).toContain("Second question"),
        text: "Second answer.",
      },
    ]);
    const live = server;
    const child = spawnInteractive(live, ws);
    child.stdin.write("First question\n");
    await waitFor(() => child.output().includes("Thinking very hard"));
    child.kill("SIGINT");
    await waitFor(() => child.output().includes("(interrupted)"));
    child.stdin.end("Second question\n");
    expect(await child.exited).toBe(0);
    expect(child.output()).toContain("Second answer.");
    live.assertDone();
  });

  it("starts a turn of its own when a schedule fires while the prompt waits", E2E, async () => {
    ws = await createTempWorkspace();
    server = await startModelServer([
      { toolCalls: [{ name: "schedule", args: { Prompt: "Check the build now", DurationSeconds: 0.5 } }] },
      { text: "Scheduled." },
      {
        expect: (request) => expect(request.text).toContain("Check the build now"),
        text: "The build is green.",
      },
    ]);
    const live = server;
    const child = spawnInteractive(live, ws, ["--approval-mode", "yolo"]);
    child.stdin.write("Remind me to check the build\n");
    await waitFor(() => child.output().includes("The build is green."));
    child.stdin.end();
    expect(await child.exited).toBe(0);
    live.assertDone();
  });

  it('gantry "<prompt>" starts with that prompt, then takes the lines from stdin', E2E, async () => {
    ws = await createTempWorkspace();
    server = await startModelServer([
      { expect: (request) => expect(request.text).toContain("fix the bug"), text: "Fixed." },
      { expect: (request) => expect(request.text).toContain("and test it"), text: "Tested." },
    ]);
    const run = await runWith("openai", ["fix the bug"], "and test it\n");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("> fix the bug\nFixed.\n");
    expect(run.stdout).toContain("> and test it\nTested.\n");
    server.assertDone();
  });

  it("takes a near-miss of a command for a typo, not for a prompt", E2E, async () => {
    ws = await createTempWorkspace();
    server = await startModelServer([]);
    const run = await runWith("openai", ["tols"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown command "tols" (did you mean "tools"?)');
    expect(server.requests).toHaveLength(0);
  });

  it("shows the earlier conversation when it continues one", E2E, async () => {
    ws = await createTempWorkspace();
    server = await startModelServer([{ text: "Noted PELICAN." }]);
    expect((await runInteractive("openai", "Remember PELICAN\n")).code).toBe(0);
    const next = await runInteractive("openai", "", ["--continue"]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain("> Remember PELICAN\nNoted PELICAN.\n(end of the earlier conversation)");
    server.assertDone();
  });

  it("says how to configure a model when none is set", E2E, async () => {
    ws = await createTempWorkspace();
    const run = await runGantry(["--workspace", ws.root], { env: { HOME: ws.home }, input: "hi\n" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("No model is configured");
  });
});

function fixArgs(file: string) {
  return {
    TargetFile: file,
    Instruction: "fix the answer",
    Description: "answer is 42",
    TargetContent: "export const answer = 41; // TODO fix",
    ReplacementContent: "export const answer = 42;",
    StartLine: 1,
    EndLine: 1,
    AllowMultiple: false,
  };
}

async function waitFor(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A live `gantry` whose stdin the test writes to over time (Ctrl-C, notifications while idle). */
function spawnInteractive(live: ModelServer, workspace: TempWorkspace, extra: string[] = []) {
  const args = [
    "--model",
    "openai:test-model",
    "--base-url",
    live.baseUrl("openai"),
    "--workspace",
    workspace.root,
  ];
  const child = spawn(process.execPath, [GANTRY_BIN, ...args, ...extra], {
    env: { ...process.env, HOME: workspace.home, ...KEYS },
  });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const exited = new Promise<number | null>((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve(code);
    }),
  );
  return {
    stdin: child.stdin,
    kill: (signal: NodeJS.Signals) => child.kill(signal),
    output: () => stdout,
    exited,
  };
}
