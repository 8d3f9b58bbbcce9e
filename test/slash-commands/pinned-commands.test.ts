import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runGantry } from "../support/cli.js";
import { E2E, gantryOn, sees, serverAndWorkspace } from "../support/e2e.js";
import { startModelServer } from "../support/model-server.js";
import { createTempWorkspace } from "../support/workspace.js";

// A workspace command's shell lines (`` !`cmd` ``, `!{cmd}`) run once its folder is trusted, and only
// as the decision approved them: a command file changed or added since (a pull, the agent's own edit:
// the command folders are not protected) runs no shell line until the folder is trusted again, as a
// hook script would not. Its prompt text is no more than any file the agent reads, and still goes.

const t = serverAndWorkspace();

/** `gantry <args>` on a folder whose trust is what `gantry trust` recorded (no --trust). */
const gantry = (args: string[]) => gantryOn(t.server, t.ws, args, { trust: false });
const trustFolder = async () => {
  const run = await runGantry(["trust", t.ws?.root ?? ""], { env: { HOME: t.ws?.home } });
  expect(run.code, run.stderr).toBe(0);
};

describe("a trusted folder's commands are pinned", () => {
  it("a shell line as approved runs", E2E, async () => {
    t.ws = await createTempWorkspace({ ".claude/commands/branch.md": "Branch: !`echo main-branch`" });
    await trustFolder();
    t.server = await startModelServer([{ text: "ok", expect: sees("Branch: main-branch") }]);
    const run = await gantry(["-p", "/branch", "--approval-mode", "yolo"]);
    expect(run.code, run.stderr).toBe(0);
    t.server.assertDone();
  });

  for (const [what, file, body] of [
    ["changed since", ".claude/commands/branch.md", "Branch: !`touch changed-ran`"],
    ["added since", ".gemini/commands/branch.toml", 'prompt = "Branch: !{touch changed-ran}"'],
  ] as const) {
    it(`a command file ${what} the folder was trusted runs no shell line, even in yolo`, E2E, async () => {
      // the changed one is there, harmless, when the folder is trusted; the added one is not
      t.ws = await createTempWorkspace(
        what === "changed since"
          ? { [file]: "Branch: !`echo main`" }
          : { ".claude/commands/other.md": "Other" },
      );
      await trustFolder();
      await t.ws.write(file, body);
      t.server = await startModelServer([]);
      const run = await gantry(["-p", "/branch", "--approval-mode", "yolo"]);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain(
        `/branch: its shell lines come from ${file}, which was ${what} you trusted this folder`,
      );
      expect(run.stderr).toContain("gantry trust");
      expect(existsSync(path.join(t.ws.root, "changed-ran"))).toBe(false);
      expect(t.server.requests).toHaveLength(0);

      await trustFolder();
      t.server = await startModelServer([{ text: "ok" }]);
      const again = await gantry(["-p", "/branch", "--approval-mode", "yolo"]);
      expect(again.code, again.stderr).toBe(0);
      expect(existsSync(path.join(t.ws.root, "changed-ran"))).toBe(true);
    });
  }

  it("a changed command without shell lines still sends its prompt", E2E, async () => {
    t.ws = await createTempWorkspace({ ".claude/commands/hi.md": "Hello" });
    await trustFolder();
    await t.ws.write(".claude/commands/hi.md", "Hello again");
    t.server = await startModelServer([{ text: "ok", expect: sees("Hello again") }]);
    const run = await gantry(["-p", "/hi"]);
    expect(run.code, run.stderr).toBe(0);
    t.server.assertDone();
  });
});
