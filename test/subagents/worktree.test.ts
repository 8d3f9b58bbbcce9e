import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  checkWorkingDir,
  collectWorktreeChanges,
  createAgentWorktree,
  findRepoRoot,
  listRegisteredWorktrees,
  removeAgentWorktree,
} from "../../src/subagents/worktree.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { initRepo } from "./support/git.js";

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

describe("agent worktrees", () => {
  it("creates a worktree outside the repository, collects its changes and removes it", async () => {
    ws = await createTempWorkspace({ "a.txt": "one\n", "b.txt": "bee\n" });
    initRepo(ws.root);
    const repo = await findRepoRoot(ws.root);
    expect(repo).toBe(ws.root);
    const base = path.join(ws.parent, "worktrees");
    const worktree = await createAgentWorktree(ws.root, "agent-1", base);
    expect(worktree.path.startsWith(base)).toBe(true);
    expect(readFileSync(path.join(worktree.path, "a.txt"), "utf8")).toBe("one\n");

    writeFileSync(path.join(worktree.path, "a.txt"), "two\n");
    writeFileSync(path.join(worktree.path, "new.txt"), "fresh\n");
    execFileSync("rm", [path.join(worktree.path, "b.txt")]);
    const changes = await collectWorktreeChanges(worktree);
    expect(changes.files.sort()).toEqual(["A\tnew.txt", "D\tb.txt", "M\ta.txt"]);
    expect(changes.patch).toContain("+two");
    expect(changes.patch).toContain("+fresh");
    // the main tree and its index are untouched
    expect(readFileSync(path.join(ws.root, "a.txt"), "utf8")).toBe("one\n");
    expect(existsSync(path.join(ws.root, "new.txt"))).toBe(false);
    expect(execFileSync("git", ["-C", ws.root, "status", "--porcelain"], { encoding: "utf8" })).toBe("");

    await removeAgentWorktree(worktree);
    expect(existsSync(worktree.path)).toBe(false);
    expect((await listRegisteredWorktrees(ws.root)).map((w) => w.path)).toEqual([ws.root]);
  });

  it("refuses a repository without a commit", async () => {
    ws = await createTempWorkspace();
    execFileSync("git", ["-C", ws.root, "init", "-q"]);
    await expect(createAgentWorktree(ws.root, "x", path.join(ws.parent, "wt"))).rejects.toThrow(
      "no commit yet",
    );
  });

  it("working_dir must be a registered worktree of the repository", async () => {
    ws = await createTempWorkspace({ "a.txt": "a" });
    initRepo(ws.root);
    const registered = path.join(ws.parent, "feature");
    execFileSync("git", ["-C", ws.root, "worktree", "add", "-q", "--detach", registered]);
    await mkdir(path.join(ws.parent, "plain"));
    expect(await checkWorkingDir(ws.root, registered)).toEqual({ ok: true, path: registered });
    expect(await checkWorkingDir(ws.root, "../feature")).toEqual({ ok: true, path: registered });
    const plain = await checkWorkingDir(ws.root, path.join(ws.parent, "plain"));
    expect(!plain.ok && plain.message).toContain("not a registered git worktree");
    const missing = await checkWorkingDir(ws.root, path.join(ws.parent, "nope"));
    expect(!missing.ok && missing.message).toContain("does not exist");
  });

  it("finds no repository outside git", async () => {
    ws = await createTempWorkspace();
    expect(await findRepoRoot(ws.root)).toBeUndefined();
  });
});
