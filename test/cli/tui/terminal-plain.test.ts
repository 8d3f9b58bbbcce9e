import { afterEach, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../../support/model-server.js";
import type { TmuxTerminal } from "../../support/tmux.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";
import { HAS_TMUX, openTui, startTui, TUI_TEST, tuiResources } from "./support.js";

const tui = tuiResources();

describe.skipIf(!HAS_TMUX)("gantry in a terminal", () => {
  it('starts with the prompt given on the command line: gantry "<prompt>"', TUI_TEST, async () => {
    tui.ws = await createTempWorkspace();
    tui.server = await startModelServer([
      { expect: (request) => expect(request.text).toContain("fix the bug"), text: "Fixed the bug." },
    ]);
    tui.term = await startTui(tui.server, tui.ws, { args: ["fix the bug"] });
    const screen = await tui.term.waitFor("Fixed the bug.");
    expect(screen).toContain("> fix the bug\nFixed the bug.");
    // it is in the history like a typed prompt
    await tui.term.keys("Up");
    await tui.term.waitFor(/─\n> fix the bug\n─/);
    tui.server.assertDone();
  });

  it("with TERM=dumb writes plain lines: no editor box, no footer, raw text", TUI_TEST, async () => {
    tui.ws = await createTempWorkspace();
    tui.server = await startModelServer([{ text: "## Plain\nanswer", usage: { input: 9, output: 3 } }]);
    tui.term = await startTui(tui.server, tui.ws, { env: { TERM: "dumb" } });
    await tui.term.waitFor("/help for commands");
    await tui.term.enter("hello");
    const screen = await tui.term.waitFor("(1 model turn · 9 tokens in · 3 out)");
    expect(screen).toContain("## Plain\nanswer");
    expect(screen).not.toContain("────");
    expect(screen).not.toContain("mode (shift+tab)");
    expect(await tui.term.screen({ colour: true })).not.toContain("\x1b[");
    tui.server.assertDone();
  });

  it("with NO_COLOR keeps the terminal UI and leaves out every colour", TUI_TEST, async () => {
    tui.ws = await createTempWorkspace();
    tui.server = await startModelServer([{ text: "Use **bold** and `code`.\n\n```js\nconst x = 1;\n```\n" }]);
    tui.term = await openTui(tui, { env: { NO_COLOR: "1" } });
    await tui.term.enter("hi");
    await tui.term.waitFor("const x = 1;");
    const coloured = await tui.term.screen({ colour: true });
    expect(coloured).not.toMatch(/\x1b\[[0-9;]*(3[0-7]|9[0-7]|38;[0-9;]+)m/);
    expect(coloured).toMatch(/\x1b\[1mbold/); // attributes stay
    tui.server.assertDone();
  });
});
