import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../../support/model-server.js";
import type { TmuxTerminal } from "../../support/tmux.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";
import { HAS_TMUX, openTui, TUI_TEST, tuiResources } from "./support.js";

const tui = tuiResources();

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
    tui.ws = await createTempWorkspace();
    tui.server = await startModelServer([
      { text: ANSWER, delayMs: 2_500, usage: { input: 1_500, output: 60 } },
    ]);
    tui.term = await openTui(tui, { env: { NO_COLOR: "" } });
    await tui.term.enter("explain the plan");
    const thinking = await tui.term.waitFor(/⠋|⠙|⠹|⠸|⠼|⠴|⠦|⠧|⠇|⠏/);
    expect(thinking).toMatch(/Thinking · \d+s · esc to interrupt/);
    const screen = await tui.term.waitFor("const answer");
    // no Markdown syntax left: headings, emphasis, fences and table pipes are drawn
    expect(screen).toContain("\nPlan\n");
    expect(screen).not.toContain("##");
    expect(screen).not.toContain("**");
    expect(screen).not.toContain("```");
    expect(screen).toContain("Use bold words and inline code, see the docs (https://example.com/docs).");
    expect(screen).toContain("• first item\n• second item");
    expect(screen).toMatch(/name │ size\n─+┼─+\na\.ts │ +12/);
    expect(screen).toContain("  const answer: number = 42;");
    const coloured = await tui.term.screen({ colour: true });
    expect(coloured).toMatch(/\x1b\[1m[^\n]*bold/); // bold
    expect(coloured).toMatch(/\x1b\[35mconst/); // a keyword coloured by the highlighter
    // the footer: model, mode, share of the context window, tokens
    expect(screen).toMatch(
      /openai:test-model · default mode \(shift\+tab\) · 1% of 128k context · 1\.5k in · 60 out/,
    );
    tui.server.assertDone();
  });

  it("a running command's live output, then its exit code, time and tail", TUI_TEST, async () => {
    tui.ws = await createTempWorkspace();
    const command = "echo first-line; sleep 2; echo second-line; echo third-line";
    tui.server = await startModelServer([
      {
        toolCalls: [
          {
            name: "run_command",
            args: { CommandLine: command, Cwd: tui.ws.root, WaitMsBeforeAsync: 20_000 },
          },
        ],
      },
      { text: "Ran it." },
    ]);
    tui.term = await openTui(tui, { args: ["--approval-mode", "yolo"] });
    await tui.term.enter("run it");
    const live = await tui.term.waitFor("│ first-line");
    expect(live).toContain("Running echo first-line; sleep 2;");
    expect(live).not.toContain("│ second-line");
    const done = await tui.term.waitFor("Ran it.");
    expect(done).toMatch(
      /Command run_command echo first-line.*\n {4}✓ exit 0 · \d+\.\ds\n {4}│ first-line\n {4}│ second-line\n {4}│ third-line/,
    );
    tui.server.assertDone();
  });

  it(
    "reads and searches collapsed with their names, Ctrl-O for their whole output, failures in full",
    TUI_TEST,
    async () => {
      tui.ws = await createTempWorkspace({ "src/a.ts": "alpha\n", "src/b.ts": "beta\n" });
      const missing = path.join(tui.ws.root, "src/missing.ts");
      tui.server = await startModelServer([
        {
          toolCalls: [
            { name: "view_file", args: { AbsolutePath: path.join(tui.ws.root, "src/a.ts") } },
            { name: "view_file", args: { AbsolutePath: path.join(tui.ws.root, "src/b.ts") } },
            { name: "grep_search", args: { SearchPath: tui.ws.root, Query: "alpha" } },
            { name: "view_file", args: { AbsolutePath: missing } },
          ],
        },
        { text: "Looked." },
      ]);
      tui.term = await openTui(tui, { width: 160 });
      await tui.term.enter("look around");
      const screen = await tui.term.waitFor("Looked.");
      expect(screen).toContain(
        'Read src/a.ts, src/b.ts, src/missing.ts · Search "alpha" in . (ctrl+o to expand)',
      );
      // the failure's whole first line, fix hint included
      expect(screen).toMatch(/view_file failed: .*missing\.ts.*does not exist.*\n/);
      expect(screen).not.toContain("alpha\n  ");
      await tui.term.keys("C-o");
      const expanded = await tui.term.waitFor("── Search grep_search");
      expect(expanded).toMatch(/── Read view_file src\/a\.ts ──\n +1 +alpha/);
      expect(expanded).toMatch(/── Read view_file src\/b\.ts ──\n +1 +beta/);
      expect(expanded).toMatch(/── Search grep_search "alpha" in \. ──\n {2}src\/a\.ts:1: alpha/);
      tui.server.assertDone();
    },
  );

  it("background commands in the footer while they run", TUI_TEST, async () => {
    tui.ws = await createTempWorkspace();
    tui.server = await startModelServer([
      {
        toolCalls: [
          { name: "run_command", args: { CommandLine: "sleep 4", Cwd: tui.ws.root, WaitMsBeforeAsync: 200 } },
        ],
      },
      { text: "It runs in the background." },
    ]);
    tui.term = await openTui(tui, { args: ["--approval-mode", "yolo"], width: 140 });
    await tui.term.enter("start the server");
    const running = await tui.term.waitFor("It runs in the background.");
    expect(running).toContain("↳ still running as background task t1");
    await tui.term.waitFor(/0 out · 1 background task\n/);
    // the footer follows the task: when it ends, the count goes
    await tui.term.waitFor(/0 out\n/, { timeoutMs: 15_000 });
    tui.server.assertDone();
  });
});
