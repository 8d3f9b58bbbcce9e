import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../../support/model-server.js";
import type { TmuxTerminal } from "../../support/tmux.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";
import { HAS_TMUX, READY, startTui, TUI_TEST } from "./support.js";

let server: ModelServer | undefined;
let ws: TempWorkspace | undefined;
let term: TmuxTerminal | undefined;
afterEach(async () => {
  await term?.close();
  await server?.close();
  await ws?.cleanup();
  term = server = ws = undefined;
});

const ANSWER = [
  "## Plan",
  "",
  "Use **bold** words and `inline code`, see [the docs](https://example.com/docs).",
  "",
  "- first item",
  "- second item",
  "",
  "| name | size |",
  "|------|-----:|",
  "| a.ts | 12 |",
  "",
  "```ts",
  "const answer: number = 42;",
  "```",
  "",
].join("\n");

describe.skipIf(!HAS_TMUX)("the terminal UI shows", () => {
  it("a spinner while the model thinks, then the answer rendered as Markdown", TUI_TEST, async () => {
    ws = await createTempWorkspace();
    server = await startModelServer([{ text: ANSWER, delayMs: 2_500, usage: { input: 1_500, output: 60 } }]);
    term = await startTui(server, ws, { env: { NO_COLOR: "" } });
    await term.waitFor(READY);
    await term.type("explain the plan");
    await term.keys("Enter");
    const thinking = await term.waitFor(/⠋|⠙|⠹|⠸|⠼|⠴|⠦|⠧|⠇|⠏/);
    expect(thinking).toMatch(/Thinking · \d+s · esc to interrupt/);
    const screen = await term.waitFor("const answer");
    // no Markdown syntax left: headings, emphasis, fences and table pipes are drawn
    expect(screen).toContain("\nPlan\n");
    expect(screen).not.toContain("##");
    expect(screen).not.toContain("**");
    expect(screen).not.toContain("```");
    expect(screen).toContain("Use bold words and inline code, see the docs (https://example.com/docs).");
    expect(screen).toContain("• first item\n• second item");
    expect(screen).toMatch(/name │ size\n─+┼─+\na\.ts │ +12/);
    expect(screen).toContain("  const answer: number = 42;");
    const coloured = await term.screen({ colour: true });
    expect(coloured).toMatch(/\x1b\[1m[^\n]*bold/); // bold
    expect(coloured).toMatch(/\x1b\[35mconst/); // a keyword coloured by the highlighter
    // the footer: model, mode, share of the context window, tokens
    expect(screen).toMatch(
      /openai:test-model · default mode \(shift\+tab\) · 1% of 128k context · 1\.5k in · 60 out/,
    );
    server.assertDone();
  });

  it("a running command's live output, then its exit code, time and tail", TUI_TEST, async () => {
    ws = await createTempWorkspace();
    const command = "echo first-line; sleep 2; echo second-line; echo third-line";
    server = await startModelServer([
      {
        toolCalls: [
          { name: "run_command", args: { CommandLine: command, Cwd: ws.root, WaitMsBeforeAsync: 20_000 } },
        ],
      },
      { text: "Ran it." },
    ]);
    term = await startTui(server, ws, { args: ["--approval-mode", "yolo"] });
    await term.waitFor(READY);
    await term.type("run it");
    await term.keys("Enter");
    const live = await term.waitFor("│ first-line");
    expect(live).toContain("Running echo first-line; sleep 2;");
    expect(live).not.toContain("│ second-line");
    const done = await term.waitFor("Ran it.");
    expect(done).toMatch(
      /Command run_command echo first-line.*\n {4}✓ exit 0 · \d+\.\ds\n {4}│ first-line\n {4}│ second-line\n {4}│ third-line/,
    );
    server.assertDone();
  });

  it(
    "reads and searches collapsed with their names, Ctrl-O for their whole output, failures in full",
    TUI_TEST,
    async () => {
      ws = await createTempWorkspace({ "src/a.ts": "alpha\n", "src/b.ts": "beta\n" });
      const missing = path.join(ws.root, "src/missing.ts");
      server = await startModelServer([
        {
          toolCalls: [
            { name: "view_file", args: { AbsolutePath: path.join(ws.root, "src/a.ts") } },
            { name: "view_file", args: { AbsolutePath: path.join(ws.root, "src/b.ts") } },
            { name: "grep_search", args: { SearchPath: ws.root, Query: "alpha" } },
            { name: "view_file", args: { AbsolutePath: missing } },
          ],
        },
        { text: "Looked." },
      ]);
      term = await startTui(server, ws, { width: 160 });
      await term.waitFor(READY);
      await term.type("look around");
      await term.keys("Enter");
      const screen = await term.waitFor("Looked.");
      expect(screen).toContain(
        'Read src/a.ts, src/b.ts, src/missing.ts · Search "alpha" in . (ctrl+o to expand)',
      );
      // the failure's whole first line, fix hint included
      expect(screen).toMatch(/view_file failed: .*missing\.ts.*does not exist.*\n/);
      expect(screen).not.toContain("alpha\n  ");
      await term.keys("C-o");
      const expanded = await term.waitFor("── Search grep_search");
      expect(expanded).toMatch(/── Read view_file src\/a\.ts ──\n +1 +alpha/);
      expect(expanded).toMatch(/── Read view_file src\/b\.ts ──\n +1 +beta/);
      expect(expanded).toMatch(/── Search grep_search "alpha" in \. ──\n {2}src\/a\.ts:1: alpha/);
      server.assertDone();
    },
  );

  it("background commands in the footer while they run", TUI_TEST, async () => {
    ws = await createTempWorkspace();
    server = await startModelServer([
      {
        toolCalls: [
          { name: "run_command", args: { CommandLine: "sleep 4", Cwd: ws.root, WaitMsBeforeAsync: 200 } },
        ],
      },
      { text: "It runs in the background." },
    ]);
    term = await startTui(server, ws, { args: ["--approval-mode", "yolo"], width: 140 });
    await term.waitFor(READY);
    await term.type("start the server");
    await term.keys("Enter");
    const running = await term.waitFor("It runs in the background.");
    expect(running).toContain("↳ still running as background task t1");
    await term.waitFor(/0 out · 1 background task\n/);
    // the footer follows the task: when it ends, the count goes
    await term.waitFor(/0 out\n/, { timeoutMs: 15_000 });
    server.assertDone();
  });
});
