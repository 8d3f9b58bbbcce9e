import { chmodSync, existsSync, mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAgentWorktree, removeAgentWorktree } from "../../src/subagents/worktree.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { initRepo } from "./support/git.js";

/**
 * The shared temp folder is another user's to plant in: a worktrees folder made beforehand (a link to
 * a place they read and write, or a folder anyone may write in) would let them change an agent's
 * files while it works, and so the patch that comes back to the user's repository.
 */

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

describe("agent worktrees in a planted folder", () => {
  it("does not put a worktree through a link, nor in a folder others may write in", async () => {
    ws = await createTempWorkspace({ "a.txt": "one\n" });
    initRepo(ws.root);
    const elsewhere = path.join(ws.parent, "theirs");
    mkdirSync(elsewhere);
    const linked = path.join(ws.parent, "linked-worktrees");
    symlinkSync(elsewhere, linked);
    const open = path.join(ws.parent, "open-worktrees");
    mkdirSync(open);
    chmodSync(open, 0o777);
    for (const base of [linked, open]) {
      const worktree = await createAgentWorktree(ws.root, "agent-1", base);
      try {
        expect(worktree.path.startsWith(elsewhere)).toBe(false);
        expect(worktree.path.startsWith(open)).toBe(false);
      } finally {
        await removeAgentWorktree(worktree);
      }
      // the private folder made instead goes with it
      expect(existsSync(path.dirname(worktree.path))).toBe(false);
    }
  });
});
