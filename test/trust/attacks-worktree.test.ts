import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkWorkingDir } from "../../src/subagents/worktree.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd, encoding: "utf8" });

/** A repository whose `.git` (shipped in an archive) registers `target` as one of its worktrees. */
async function repositoryRegistering(target: string): Promise<string> {
  const repo = ws!.root;
  git(repo, "init", "-q");
  git(repo, "commit", "-q", "--allow-empty", "-m", "x");
  const entry = path.join(repo, ".git/worktrees/evil");
  await mkdir(entry, { recursive: true });
  await writeFile(path.join(entry, "gitdir"), `${path.join(target, ".git")}\n`);
  await writeFile(path.join(entry, "commondir"), "../..\n");
  await writeFile(path.join(entry, "HEAD"), `${git(repo, "rev-parse", "HEAD").trim()}\n`);
  return repo;
}

describe("working_dir names only a real worktree of this repository", () => {
  it("a folder the repository's .git merely lists as a worktree (the user's home) is refused", async () => {
    ws = await createTempWorkspace({});
    const repo = await repositoryRegistering(ws.home);
    expect(git(repo, "worktree", "list")).toContain(ws.home);
    const checked = await checkWorkingDir(repo, ws.home);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.message).toContain("is not a registered git worktree");
  });

  it("another repository of the user's that the .git lists is refused too", async () => {
    ws = await createTempWorkspace({});
    const other = path.join(ws.home, "project");
    await mkdir(other);
    git(other, "init", "-q");
    git(other, "commit", "-q", "--allow-empty", "-m", "x");
    const repo = await repositoryRegistering(other);
    expect((await checkWorkingDir(repo, other)).ok).toBe(false);
  });

  it("a worktree git made for this repository is accepted", async () => {
    ws = await createTempWorkspace({});
    const repo = ws.root;
    git(repo, "init", "-q");
    git(repo, "commit", "-q", "--allow-empty", "-m", "x");
    const made = path.join(ws.parent, "real-worktree");
    git(repo, "worktree", "add", "-q", "--detach", made);
    expect(await checkWorkingDir(repo, made)).toEqual({ ok: true, path: made });
  });
});
