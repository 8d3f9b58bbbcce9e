import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { createTerminalAsker } from "../../src/policy/terminal-asker.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { policyHarness } from "./support.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;
afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
});

function terminal(answers: string[]) {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  output.on("data", (chunk: Buffer) => (shown += chunk.toString()));
  // answer each prompt as it appears, like a person at the keyboard
  output.on("data", (chunk: Buffer) => {
    if (/> $/.test(chunk.toString()) && answers.length > 0) input.write(`${answers.shift()}\n`);
  });
  const asker = createTerminalAsker({ input, output });
  return { asker, shown: () => shown };
}

describe("the terminal asker", () => {
  it("shows the tool, its arguments and the diff of an edit, and takes a numbered answer", async () => {
    ws = await createTempWorkspace({ "src/a.ts": "export const x = 1;\n" });
    const { asker, shown } = terminal(["2"]);
    session = createGantrySession({ workspace: ws.root, home: ws.home, approvalMode: "default", asker });
    await session.pipeline.run({ name: "view_file", args: { AbsolutePath: "src/a.ts" } });
    const edit = {
      name: "replace_file_content",
      args: {
        TargetFile: "src/a.ts",
        Instruction: "bump",
        Description: "bump x",
        TargetContent: "export const x = 1;",
        ReplacementContent: "export const x = 2;",
        StartLine: 1,
        EndLine: 1,
        AllowMultiple: false,
      },
    };
    const result = await session.pipeline.run(edit);
    asker.close();
    expect(result.error).toBe(false);
    const screen = shown();
    expect(screen).toContain("Permission needed: replace_file_content");
    expect(screen).toContain('"TargetContent": "export const x = 1;"');
    expect(screen).toContain("-export const x = 1;\n+export const x = 2;");
    expect(screen).toContain("[2] yes, and don't ask again this session");
    expect(session.permissions.grants.list().map((g) => g.rule.text)).toEqual(["Edit(/src/a.ts)"]);
  });

  it("passes the user's own words back to the model on a no", async () => {
    ws = await createTempWorkspace({});
    const { asker } = terminal(["use pnpm instead"]);
    const harness = policyHarness({ root: ws.root, home: ws.home, mode: "default", asker });
    const result = await harness.pipeline.run({ name: "run_command", args: { CommandLine: "npm install" } });
    asker.close();
    expect(result.text).toBe("Denied by approval mode default: the user said no: use pnpm instead");
  });

  it("puts parallel asks to the user one after the other", async () => {
    ws = await createTempWorkspace({});
    const { asker, shown } = terminal(["1", "4"]);
    const harness = policyHarness({ root: ws.root, home: ws.home, mode: "default", asker });
    const [first, second] = await Promise.all([
      harness.pipeline.run({ name: "run_command", args: { CommandLine: "make a" } }),
      harness.pipeline.run({ name: "run_command", args: { CommandLine: "make b" } }),
    ]);
    asker.close();
    expect([first?.error, second?.error]).toEqual([false, true]);
    const screen = shown();
    expect(screen.indexOf("needs approval: make b")).toBeGreaterThan(screen.indexOf("choice> "));
  });

  it("asks questions with options, single and multiple choice, or free text", async () => {
    const { asker, shown } = terminal(["2", "1, 3", "something else"]);
    const reply = await asker.askQuestions(
      [
        { question: "Which database?", options: ["sqlite", "postgres"], multiSelect: false },
        { question: "Which targets?", options: ["linux", "mac", "windows"], multiSelect: true },
        { question: "Name?", options: [], multiSelect: false },
      ],
      new AbortController().signal,
    );
    asker.close();
    expect(reply).toEqual({
      answered: true,
      answers: [["postgres"], ["linux", "windows"], ["something else"]],
    });
    expect(shown()).toContain("? Which database?\n  [1] sqlite\n  [2] postgres");
  });
});

describe("the headless asker", () => {
  it("denies with the flag or the rule that would allow the call", async () => {
    ws = await createTempWorkspace({});
    const harness = policyHarness({ root: ws.root, home: ws.home, mode: "default" });
    const result = await harness.pipeline.run({ name: "run_command", args: { CommandLine: "git status" } });
    expect(result.text).toBe(
      'Denied by approval mode default: no allow rule matches "git status" (run_command). Nobody can answer a permission question here (not an interactive terminal): run with --approval-mode yolo or add "Bash(git status)" to permissions.allow in ~/.agents/settings.json.',
    );
    const edit = await harness.pipeline.run({
      name: "write_to_file",
      args: { TargetFile: "docs/a.md", CodeContent: "x" },
    });
    expect(edit.text).toContain(
      'run with --approval-mode auto-edit or add "Edit(/docs/a.md)" to permissions.allow',
    );
  });

  it("names the ask rule to remove when an ask rule asked", async () => {
    ws = await createTempWorkspace({});
    const harness = policyHarness({
      root: ws.root,
      home: ws.home,
      mode: "auto-edit",
      settings: { permissions: { ask: ["Edit(docs/**)"] } },
    });
    const edit = await harness.pipeline.run({
      name: "write_to_file",
      args: { TargetFile: "docs/a.md", CodeContent: "x" },
    });
    expect(edit.text).toBe(
      'Denied by rule ask Edit(docs/**) (settings given to Gantry): "docs/a.md" matches it. Nobody can answer a permission question here (not an interactive terminal): run with --approval-mode yolo, or remove \"Edit(docs/**)\" from permissions.ask in settings given to Gantry.',
    );
  });

  it("plan mode denies anything but read-only tools and says what to do", async () => {
    ws = await createTempWorkspace({});
    const harness = policyHarness({
      root: ws.root,
      home: ws.home,
      mode: "plan",
      settings: { permissions: { allow: ["Bash"] } },
    });
    const result = await harness.pipeline.run({ name: "run_command", args: { CommandLine: "make" } });
    expect(result.text).toBe(
      'Denied by approval mode plan: plan mode runs read-only tools only; "make" (run_command) would change something. Run with --approval-mode default to be asked instead.',
    );
  });
});
