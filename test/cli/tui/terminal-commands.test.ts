import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../../support/model-server.js";
import type { TmuxTerminal } from "../../support/tmux.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";
import { HAS_TMUX, openTui, startTui, TUI_TEST, tuiResources } from "./support.js";

const tui = tuiResources();

async function ask(terminal: TmuxTerminal, prompt: string, answer: string | RegExp): Promise<string> {
  await terminal.type(prompt);
  await terminal.keys("Enter");
  return terminal.waitFor(answer);
}

function sessionFiles(home: string): string[] {
  const root = path.join(home, ".gantry", "sessions");
  return readdirSync(root).flatMap((dir) => readdirSync(path.join(root, dir)));
}

describe.skipIf(!HAS_TMUX)("the terminal UI's controls", () => {
  it(
    "Shift-Tab cycles the approval mode, which holds for the next call; /mode sets it",
    TUI_TEST,
    async () => {
      tui.ws = await createTempWorkspace({ "a.txt": "old\n" });
      const file = path.join(tui.ws.root, "a.txt");
      tui.server = await startModelServer([
        { toolCalls: [{ name: "view_file", args: { AbsolutePath: file } }] },
        {
          toolCalls: [
            {
              name: "write_to_file",
              args: { TargetFile: file, Overwrite: true, CodeContent: "new\n", Description: "x" },
            },
          ],
        },
        { text: "Edited without asking." },
      ]);
      tui.term = await startTui(tui.server, tui.ws, { width: 140 });
      await tui.term.waitFor("default mode (shift+tab)");
      await tui.term.keys("BTab");
      await tui.term.waitFor("auto-edit mode (shift+tab)");
      await ask(tui.term, "rewrite a.txt", "Edited without asking.");
      expect(await tui.term.screen()).not.toContain("Permission needed");
      expect(readFileSync(file, "utf8")).toBe("new\n");
      await tui.term.keys("BTab");
      await tui.term.waitFor("plan mode (shift+tab)");
      await tui.term.keys("BTab");
      // yolo is not in the cycle of a session that did not start in it
      await tui.term.waitFor("default mode (shift+tab)");
      await ask(tui.term, "/mode yolo", "Approval mode: yolo");
      await tui.term.waitFor("yolo mode (shift+tab)");
      await ask(tui.term, "/permissions", "set in this session (/mode or Shift-Tab)");
      tui.server.assertDone();
    },
  );

  it(
    "leaves yolo out of /mode when a settings file switched it off, and keeps the mode when asked for it",
    TUI_TEST,
    async () => {
      tui.ws = await createTempWorkspace({
        ".claude/settings.json": JSON.stringify({ permissions: { disableBypassPermissionsMode: "disable" } }),
      });
      tui.server = await startModelServer([]);
      tui.term = await openTui(tui, { width: 140 });
      const refused = await ask(tui.term, "/mode yolo", "The approval mode stays default");
      expect(refused).toMatch(
        /yolo is switched off by permissions\.disableBypassPermissionsMode in \.claude\/settings\.json/,
      );
      // the trailing space keeps the completion from taking /model
      await tui.term.enter("/mode ");
      const picker = await tui.term.waitFor(/\d\. plan/);
      expect(picker).toMatch(/\d\. auto-edit/);
      expect(picker).not.toMatch(/\d\. yolo/);
      await tui.term.keys("Escape");
      await tui.term.waitFor("default mode (shift+tab)");
    },
  );

  it(
    "/cost shows tokens and money where the price is known; /model switches the model",
    TUI_TEST,
    async () => {
      tui.ws = await createTempWorkspace();
      tui.server = await startModelServer([
        { text: "Priced answer.", usage: { input: 1_000, output: 100 } },
        {
          expect: (request) => expect(request.body.model).toBe("claude-haiku-4-5"),
          text: "Cheaper answer.",
          // 800 of the 1,000 input tokens read from the prompt cache, at a tenth of the input price
          usage: { input: 1_000, output: 100, cacheRead: 800 },
        },
      ]);
      tui.term = await openTui(tui, { model: "anthropic:claude-sonnet-4-5", width: 140 });
      const footer = await ask(tui.term, "hello", "Priced answer.");
      expect(footer).toMatch(
        /anthropic:claude-sonnet-4-5 · default mode \(shift\+tab\) · 1% of 200k context · 1\.0k in · 100 out · \$0\.0045/,
      );
      const cost = await ask(tui.term, "/cost", "Cost:");
      expect(cost).toContain("Tokens this session: 1000 in · 100 out.");
      expect(cost).toContain("Cost: about $0.0045 at list prices.");
      expect(cost).toContain("Context: 1.1k of 200k tokens (1%).");
      await ask(
        tui.term,
        "/model anthropic:claude-haiku-4-5",
        "From the next turn on the model is anthropic:claude-haiku-4-5",
      );
      await tui.term.waitFor("anthropic:claude-haiku-4-5 · default mode");
      await ask(tui.term, "and now", "Cheaper answer.");
      await tui.term.waitFor("$0.0053"); // 0.0045 + (200 × $1 + 800 × $0.10 + 100 × $5) / 1M
      // "Cost:" is on the screen already: wait for what only the second /cost says
      const cached = await ask(tui.term, "/cost", "(800 from the cache) · 200 out");
      expect(cached).toContain("Tokens this session: 2000 in (800 from the cache) · 200 out.");
      expect(cached).toContain("anthropic:claude-haiku-4-5: 1000 in (800 from the cache) · 100 out");
      await ask(tui.term, "/model nonsense", "The model stays anthropic:claude-haiku-4-5");
      tui.server.assertDone();
    },
  );

  it("/compact summarises the older turns; /clear starts a new session without them", TUI_TEST, async () => {
    tui.ws = await createTempWorkspace();
    tui.server = await startModelServer([
      { text: "First answer." },
      { text: "Second answer." },
      {
        expect: (request) => expect(request.text).toContain("Summarise the conversation above"),
        text: "The user asked about BANANAS.",
      },
      {
        expect: (request) => {
          expect(request.text).toContain("The user asked about BANANAS.");
          expect(request.text).not.toContain("First answer.");
        },
        text: "Third answer.",
      },
      {
        expect: (request) => expect(request.text).not.toContain("BANANAS"),
        text: "Fresh answer.",
      },
    ]);
    tui.term = await openTui(tui);
    await ask(tui.term, "tell me about bananas", "First answer.");
    await ask(tui.term, "and more", "Second answer.");
    await ask(tui.term, "/compact", "(compacted 2 earlier messages into a summary)");
    await ask(tui.term, "go on", "Third answer.");
    await ask(tui.term, "/clear", "New session");
    await ask(tui.term, "start again", "Fresh answer.");
    expect(sessionFiles(tui.ws.home)).toHaveLength(2);
    tui.server.assertDone();
  });

  it(
    "--continue replays the earlier conversation; /resume picks another session of the workspace",
    TUI_TEST,
    async () => {
      tui.ws = await createTempWorkspace();
      tui.server = await startModelServer([
        { text: "The code word is **PELICAN**." },
        { text: "A different session." },
        {
          expect: (request) => expect(request.text).toContain("The code word is **PELICAN**."),
          text: "Still PELICAN.",
        },
      ]);
      tui.term = await openTui(tui);
      await ask(tui.term, "remember the code word", "The code word is PELICAN.");
      await tui.term.keys("C-d");
      await tui.term.waitForExit();
      await tui.term.close();

      tui.term = await startTui(tui.server, tui.ws, { args: ["--continue"] });
      const replayed = await tui.term.waitFor("── end of the earlier conversation ──");
      expect(replayed).toMatch(
        /── resumed session \S+ ──\n\n> remember the code word\nThe code word is PELICAN\./,
      );
      await tui.term.keys("C-d");
      await tui.term.waitForExit();
      await tui.term.close();

      tui.term = await openTui(tui);
      await ask(tui.term, "something else", "A different session.");
      await tui.term.enter("/resume");
      const picker = await tui.term.waitFor("Resume a session");
      expect(picker).toMatch(/› 1\. remember the code word/);
      expect(picker).not.toMatch(/\d\. something else/); // the open session is not offered
      await tui.term.keys("Enter");
      await tui.term.waitFor("── end of the earlier conversation ──");
      await ask(tui.term, "what was it?", "Still PELICAN.");
      tui.server.assertDone();
    },
  );
});
