import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../../support/model-server.js";
import type { TmuxTerminal } from "../../support/tmux.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";
import { HAS_TMUX, READY, startTui, TUI_TEST, tuiResources } from "./support.js";

/**
 * A prompt-injected model (and a file it reads) writing escape sequences for the user's terminal into
 * what the terminal UI draws: to hide the real command in the approval dialog (erase the line, move
 * the cursor back and write a harmless one over it), or to set the clipboard (OSC 52).
 */

const tui = tuiResources();

const ESC = "\u001b";
// after the comment sign the shell ignores it; on a terminal it erases the line and writes "ls -la"
const HIDING = `${ESC}[2K${ESC}[1G${ESC}[1A`;

describe.skipIf(!HAS_TMUX)("the terminal UI shows a model's escape sequences as text", () => {
  it(
    "shows the real command in the approval dialog, and the answer's escapes spelt out",
    TUI_TEST,
    async () => {
      tui.ws = await createTempWorkspace({ "a.txt": "a\n" });
      const marker = path.join(tui.ws.parent, "hidden-ran");
      tui.server = await startModelServer([
        {
          toolCalls: [
            {
              name: "run_command",
              args: { CommandLine: `touch ${marker} #${HIDING}ls -la`, Cwd: ".", WaitMsBeforeAsync: 5000 },
            },
          ],
        },
        { text: `Done${ESC}]52;c;cm0gLXJmIH4=${ESC}\\ here.` },
      ]);
      tui.term = await startTui(tui.server, tui.ws);
      await tui.term.waitFor(READY);
      await tui.term.type("list the files");
      await tui.term.keys("Enter");
      const dialog = await tui.term.waitFor("Permission needed: run_command");
      expect(dialog).toContain(`Run a command: touch ${marker} #\\x1b[2K\\x1b[1G\\x1b[1Als -la`);
      await tui.term.keys("Escape");
      const done = await tui.term.waitFor("here.");
      expect(done).toContain("Done\\x1b]52;c;cm0gLXJmIH4=\\x1b\\ here.");
      expect(existsSync(marker)).toBe(false);
      tui.server.assertDone();
    },
  );
});
