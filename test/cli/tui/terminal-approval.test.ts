import { readdirSync, readFileSync } from "node:fs";
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
      ws = await createTempWorkspace({ "a.txt": "old\n" });
      const file = path.join(ws.root, "a.txt");
      server = await startModelServer([
        { toolCalls: [{ name: "view_file", args: { AbsolutePath: file } }] },
        { toolCalls: [rewrite(file, "new\n")] },
        { toolCalls: [rewrite(file, "newer\n")] },
        { text: "Wrote it twice." },
      ]);
      term = await startTui(server, ws);
      await term.waitFor(READY);
      await term.type("rewrite a.txt");
      await term.keys("Enter");
      const dialog = await term.waitFor("Permission needed: write_to_file");
      expect(dialog).toContain("Overwrite a.txt (2 lines): rewrite");
      expect(dialog).toContain("Waiting for your approval");
      expect(dialog).not.toContain('"CodeContent"'); // no argument JSON
      expect(count(dialog, "+new")).toBe(1);
      expect(dialog).toMatch(/--- a\/a\.txt\n +\+\+\+ b\/a\.txt\n +@@ -1,1 \+1,1 @@\n +-old\n +\+new/);
      expect(dialog).toMatch(
        /› 1\. Yes, once\n {3}2\. Yes, and don't ask again this session Edit\(\/a\.txt\)/,
      );
      const coloured = await term.screen({ colour: true });
      expect(coloured).toMatch(/\x1b\[32m +\+new/);
      expect(coloured).toMatch(/\x1b\[31m +-old/);
      await term.keys("Down");
      await term.waitFor("› 2. Yes, and don't ask again this session");
      await term.keys("Enter");
      // "this session" covers the second write: no second dialog
      const done = await term.waitFor("Wrote it twice.");
      expect(count(done, "Permission needed")).toBe(0);
      // after the edit its diff is in the scrollback once, in the same format
      expect(done).toMatch(
        /Edit write_to_file a\.txt\n {4}--- a\/a\.txt\n {4}\+\+\+ b\/a\.txt\n {4}@@ -1,1 \+1,1 @@\n {4}-old\n {4}\+new/,
      );
      expect(readFileSync(file, "utf8")).toBe("newer\n");
      server.assertDone();
    },
  );

  it("sends the user's words back when they type what to do instead", TUI_TEST, async () => {
    ws = await createTempWorkspace({ "a.txt": "old\n" });
    const file = path.join(ws.root, "a.txt");
    server = await startModelServer([
      { toolCalls: [rewrite(file, "new\n")] },
      {
        expect: (request) => expect(request.text).toContain("the user said no: append a line instead"),
        text: "I will append instead.",
      },
    ]);
    term = await startTui(server, ws);
    await term.waitFor(READY);
    await term.type("rewrite a.txt");
    await term.keys("Enter");
    await term.waitFor("Permission needed: write_to_file");
    await term.type("append a line instead");
    const typing = await term.waitFor("✎ append a line instead");
    expect(typing).toContain("› 5. No, and tell it what to do instead");
    await term.keys("Enter");
    await term.waitFor("I will append instead.");
    expect(readFileSync(file, "utf8")).toBe("old\n");
    server.assertDone();
  });

  it(
    '"always" saves the rule for this folder in the home, and the next session runs the call unasked',
    TUI_TEST,
    async () => {
      ws = await createTempWorkspace({ "a.txt": "old\n" });
      const file = path.join(ws.root, "a.txt");
      const view = { name: "view_file", args: { AbsolutePath: file } };
      server = await startModelServer([
        { toolCalls: [view] },
        { toolCalls: [rewrite(file, "new\n")] },
        { text: "Done." },
        { toolCalls: [view] },
        { toolCalls: [rewrite(file, "newer\n")] },
        { text: "Done again." },
      ]);
      term = await startTui(server, ws);
      await term.waitFor(READY);
      await term.type("rewrite a.txt");
      await term.keys("Enter");
      await term.waitFor("Yes, always (saved to ~/.agents/folder-permissions.json)");
      await term.keys("3");
      await term.waitFor("Done.");
      expect(readFileSync(file, "utf8")).toBe("new\n");
      const saved = JSON.parse(readFileSync(path.join(ws.home, ".agents/folder-permissions.json"), "utf8"));
      expect(saved.folders[ws.root].permissions.allow).toEqual(["Edit(/a.txt)"]);
      await term.keys("C-d");
      expect(await term.waitForExit()).toBe(0);
      expect(readdirSync(path.join(ws.home, ".gantry", "sessions"))).toHaveLength(1);
      await term.close();

      term = await startTui(server, ws);
      await term.waitFor(READY);
      await term.type("once more");
      await term.keys("Enter");
      const screen = await term.waitFor("Done again.");
      expect(screen).not.toContain("Permission needed");
      expect(readFileSync(file, "utf8")).toBe("newer\n");
      server.assertDone();
    },
  );

  it("puts ask_question to the user as a dialog and sends the chosen option back", TUI_TEST, async () => {
    ws = await createTempWorkspace();
    const question = { question: "Which database?", options: ["Postgres", "SQLite"], is_multi_select: false };
    server = await startModelServer([
      { toolCalls: [{ name: "ask_question", args: { questions: [question] } }] },
      {
        expect: (request) => expect(request.text).toContain("SQLite"),
        text: "SQLite it is.",
      },
    ]);
    term = await startTui(server, ws);
    await term.waitFor(READY);
    await term.type("set up storage");
    await term.keys("Enter");
    const dialog = await term.waitFor("Which database?");
    expect(dialog).toMatch(/› 1\. Postgres\n {3}2\. SQLite\n {3}3\. Type your own answer/);
    await term.keys("Down", "Enter");
    await term.waitFor("SQLite it is.");
    server.assertDone();
  });
});
