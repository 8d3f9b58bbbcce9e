import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../../support/model-server.js";
import type { TmuxTerminal } from "../../support/tmux.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";
import { HAS_TMUX, openTui, TUI_TEST, tuiResources } from "./support.js";

const tui = tuiResources();

const rewrite = (file: string, content: string) => ({
  name: "write_to_file",
  args: { TargetFile: file, Overwrite: true, CodeContent: content, Description: "rewrite" },
});

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe.skipIf(!HAS_TMUX)("the approval dialog", () => {
  it(
    "summarises the call, shows the diff once and coloured, and takes an arrow-key choice",
    TUI_TEST,
    async () => {
      tui.ws = await createTempWorkspace({ "a.txt": "old\n" });
      const file = path.join(tui.ws.root, "a.txt");
      tui.server = await startModelServer([
        { toolCalls: [{ name: "view_file", args: { AbsolutePath: file } }] },
        { toolCalls: [rewrite(file, "new\n")] },
        { toolCalls: [rewrite(file, "newer\n")] },
        { text: "Wrote it twice." },
      ]);
      tui.term = await openTui(tui);
      await tui.term.enter("rewrite a.txt");
      const dialog = await tui.term.waitFor("Permission needed: write_to_file");
      expect(dialog).toContain("Overwrite a.txt (2 lines): rewrite");
      expect(dialog).toContain("Waiting for your approval");
      expect(dialog).not.toContain('"CodeContent"'); // no argument JSON
      expect(count(dialog, "+new")).toBe(1);
      expect(dialog).toMatch(/--- a\/a\.txt\n +\+\+\+ b\/a\.txt\n +@@ -1,1 \+1,1 @@\n +-old\n +\+new/);
      expect(dialog).toMatch(
        /› 1\. Yes, once\n {3}2\. Yes, and don't ask again this session Edit\(\/a\.txt\)/,
      );
      const coloured = await tui.term.screen({ colour: true });
      expect(coloured).toMatch(/\x1b\[32m +\+new/);
      expect(coloured).toMatch(/\x1b\[31m +-old/);
      await tui.term.keys("Down");
      await tui.term.waitFor("› 2. Yes, and don't ask again this session");
      await tui.term.keys("Enter");
      // "this session" covers the second write: no second dialog
      const done = await tui.term.waitFor("Wrote it twice.");
      expect(count(done, "Permission needed")).toBe(0);
      // after the edit its diff is in the scrollback once, in the same format
      expect(done).toMatch(
        /Edit write_to_file a\.txt\n {4}--- a\/a\.txt\n {4}\+\+\+ b\/a\.txt\n {4}@@ -1,1 \+1,1 @@\n {4}-old\n {4}\+new/,
      );
      expect(readFileSync(file, "utf8")).toBe("newer\n");
      tui.server.assertDone();
    },
  );

  it("sends the user's words back when they type what to do instead", TUI_TEST, async () => {
    tui.ws = await createTempWorkspace({ "a.txt": "old\n" });
    const file = path.join(tui.ws.root, "a.txt");
    tui.server = await startModelServer([
      { toolCalls: [rewrite(file, "new\n")] },
      {
        expect: (request) => expect(request.text).toContain("the user said no: append a line instead"),
        text: "I will append instead.",
      },
    ]);
    tui.term = await openTui(tui);
    await tui.term.enter("rewrite a.txt");
    await tui.term.waitFor("Permission needed: write_to_file");
    await tui.term.type("append a line instead");
    const typing = await tui.term.waitFor("✎ append a line instead");
    expect(typing).toContain("› 5. No, and tell it what to do instead");
    await tui.term.keys("Enter");
    await tui.term.waitFor("I will append instead.");
    expect(readFileSync(file, "utf8")).toBe("old\n");
    tui.server.assertDone();
  });

  it(
    '"always" saves the rule for this folder in the home, and the next session runs the call unasked',
    TUI_TEST,
    async () => {
      tui.ws = await createTempWorkspace({ "a.txt": "old\n" });
      const file = path.join(tui.ws.root, "a.txt");
      const view = { name: "view_file", args: { AbsolutePath: file } };
      tui.server = await startModelServer([
        { toolCalls: [view] },
        { toolCalls: [rewrite(file, "new\n")] },
        { text: "Done." },
        { toolCalls: [view] },
        { toolCalls: [rewrite(file, "newer\n")] },
        { text: "Done again." },
      ]);
      tui.term = await openTui(tui);
      await tui.term.enter("rewrite a.txt");
      await tui.term.waitFor("Yes, always (saved to ~/.agents/folder-permissions.json)");
      await tui.term.keys("3");
      await tui.term.waitFor("Done.");
      expect(readFileSync(file, "utf8")).toBe("new\n");
      const saved = JSON.parse(
        readFileSync(path.join(tui.ws.home, ".agents/folder-permissions.json"), "utf8"),
      );
      expect(saved.folders[tui.ws.root].permissions.allow).toEqual(["Edit(/a.txt)"]);
      await tui.term.keys("C-d");
      expect(await tui.term.waitForExit()).toBe(0);
      expect(readdirSync(path.join(tui.ws.home, ".gantry", "sessions"))).toHaveLength(1);
      await tui.term.close();

      tui.term = await openTui(tui);
      await tui.term.enter("once more");
      const screen = await tui.term.waitFor("Done again.");
      expect(screen).not.toContain("Permission needed");
      expect(readFileSync(file, "utf8")).toBe("newer\n");
      tui.server.assertDone();
    },
  );

  it("puts ask_question to the user as a dialog and sends the chosen option back", TUI_TEST, async () => {
    tui.ws = await createTempWorkspace();
    const question = { question: "Which database?", options: ["Postgres", "SQLite"], is_multi_select: false };
    tui.server = await startModelServer([
      { toolCalls: [{ name: "ask_question", args: { questions: [question] } }] },
      {
        expect: (request) => expect(request.text).toContain("SQLite"),
        text: "SQLite it is.",
      },
    ]);
    tui.term = await openTui(tui);
    await tui.term.enter("set up storage");
    const dialog = await tui.term.waitFor("Which database?");
    expect(dialog).toMatch(/› 1\. Postgres\n {3}2\. SQLite\n {3}3\. Type your own answer/);
    await tui.term.keys("Down", "Enter");
    await tui.term.waitFor("SQLite it is.");
    tui.server.assertDone();
  });
});
