import { existsSync } from "node:fs";
import { copyFile, lstat, mkdir, mkdtemp, realpath, rm, rmdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomHex } from "../session/random-ids.js";
import { runGit as git } from "../workspace/git.js";
import { PROTECTED_AGENT_CONFIG } from "../workspace/protected.js";

/** The top folder of the repository `dir` belongs to, or undefined outside git. */
export async function findRepoRoot(dir: string): Promise<string | undefined> {
  try {
    return await realpath((await git(dir, ["rev-parse", "--show-toplevel"])).trim());
  } catch {
    return undefined;
  }
}

export interface RegisteredWorktree {
  path: string;
  head?: string;
  branch?: string;
}

/** `git worktree list --porcelain`, paths made real so they compare with realpath'd input. */
export async function listRegisteredWorktrees(repoRoot: string): Promise<RegisteredWorktree[]> {
  const out = await git(repoRoot, ["worktree", "list", "--porcelain"]);
  const worktrees: RegisteredWorktree[] = [];
  for (const block of out.split(/\n\n+/)) {
    const fields = new Map(
      block
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => [line.split(" ")[0] as string, line.slice(line.indexOf(" ") + 1)]),
    );
    const dir = fields.get("worktree");
    if (dir === undefined) continue;
    const real = await realpath(dir).catch(() => dir);
    worktrees.push({ path: real, head: fields.get("HEAD"), branch: fields.get("branch") });
  }
  return worktrees;
}

/**
 * `working_dir` must name an existing, registered worktree of this repository (seed 003); `argument`
 * is the caller's name for it in messages (invoke_subagent calls it Workspace).
 */
export async function checkWorkingDir(
  repoRoot: string,
  dir: string,
  argument = "working_dir",
): Promise<{ ok: true; path: string } | { ok: false; message: string }> {
  let real: string;
  try {
    real = await realpath(path.resolve(repoRoot, dir));
  } catch {
    return { ok: false, message: `${argument} "${dir}" does not exist` };
  }
  const registered = await listRegisteredWorktrees(repoRoot);
  // the list is only what `.git/worktrees/*/gitdir` says, and a repository from an archive ships its own
  // `.git`: the folder must be a worktree of this repository by its own `.git` too, not the user's home
  if (!registered.some((w) => w.path === real) || !(await sharesRepository(real, repoRoot))) {
    return {
      ok: false,
      message: `${argument} "${dir}" is not a registered git worktree of ${repoRoot} (see git worktree list)`,
    };
  }
  return { ok: true, path: real };
}

/** Whether `dir` is a checkout of the same repository as `repoRoot` (one common git folder). */
async function sharesRepository(dir: string, repoRoot: string): Promise<boolean> {
  const commonDir = async (at: string) => {
    const out = await git(at, ["rev-parse", "--path-format=absolute", "--git-common-dir"]);
    return realpath(out.trim());
  };
  try {
    const [theirs, ours] = await Promise.all([commonDir(dir), commonDir(repoRoot)]);
    return theirs === ours && (await findRepoRoot(dir)) === dir;
  } catch {
    return false;
  }
}

export interface AgentWorktree {
  path: string;
  repoRoot: string;
  /** The commit it was created at. */
  base: string;
}

export interface WorktreeChanges {
  /** `git diff --name-status` lines against the base commit: `M\tsrc/a.ts`, `A\tnew.ts`. */
  files: string[];
  patch: string;
}

/** The folder Gantry's worktrees live in: outside the repository, so the parent's searches never see them. */
export function worktreeBaseFolder(): string {
  return path.join(tmpdir(), "gantry-worktrees");
}

/** A detached worktree at HEAD for one agent; uncommitted changes of the main tree are not in it. */
export async function createAgentWorktree(
  repoRoot: string,
  agentId: string,
  baseFolder = worktreeBaseFolder(),
): Promise<AgentWorktree> {
  let base: string;
  try {
    base = (await git(repoRoot, ["rev-parse", "--verify", "HEAD"])).trim();
  } catch {
    throw new Error(`the repository ${repoRoot} has no commit yet; a worktree needs one`);
  }
  const dir = path.join(
    await privateFolder(baseFolder),
    `${path.basename(repoRoot)}-${agentId}-${randomHex(3)}`,
  );
  await git(repoRoot, ["worktree", "add", "--detach", dir, base]);
  return { path: dir, repoRoot, base };
}

/**
 * `folder` when it is a real folder of this user that no one else may write in; else a fresh private
 * one beside the temp folder's: in a shared temp folder another user may have made it first (a link to
 * their own folder, or one open to all) to change an agent's files, and so the patch it brings back.
 */
const PRIVATE_FOLDER_PREFIX = "gantry-worktrees-";

async function privateFolder(folder: string): Promise<string> {
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const info = await lstat(folder);
  const ours = info.isDirectory() && info.uid === process.getuid?.() && (info.mode & 0o022) === 0;
  return ours ? realpath(folder) : mkdtemp(path.join(tmpdir(), PRIVATE_FOLDER_PREFIX));
}

/** Every change in the worktree (tracked, new and deleted files) as one patch against its base. */
export async function collectWorktreeChanges(
  worktree: AgentWorktree,
  exclude: readonly string[] = [],
): Promise<WorktreeChanges> {
  const pathspec = ["--", ".", ...exclude.map((rel) => `:(exclude)${rel}`)];
  // the worktree has its own index, so staging here never touches the main checkout
  await git(worktree.path, ["add", "-A", ...pathspec]);
  // a patch to apply: never what a diff driver or textconv of the user's configuration shows
  const diff = ["diff", "--cached", "--no-ext-diff", "--no-textconv", "--no-color"];
  const names = await git(worktree.path, [...diff, "--name-status", worktree.base, ...pathspec]);
  const patch = await git(worktree.path, [...diff, "--binary", worktree.base, ...pathspec]);
  return { files: names.split("\n").filter((line) => line !== ""), patch };
}

/** Removes the worktree and its registration; falls back to deleting the folder and pruning. */
export async function removeAgentWorktree(worktree: AgentWorktree): Promise<void> {
  try {
    await git(worktree.repoRoot, ["worktree", "remove", "--force", "--force", worktree.path]);
  } catch {
    await rm(worktree.path, { recursive: true, force: true });
    await git(worktree.repoRoot, ["worktree", "prune"]).catch(() => undefined);
  }
  // the private folder privateFolder made for it goes too once empty (rmdir leaves a used one alone)
  const folder = path.dirname(worktree.path);
  if (path.basename(folder).startsWith(PRIVATE_FOLDER_PREFIX)) await rmdir(folder).catch(() => undefined);
}

/**
 * Copies the parent workspace's hook and rule files over the worktree's (which hold only what was
 * committed), so an agent in a worktree is held to exactly its parent's policy. Returns what it copied.
 */
export async function mirrorGoverningConfig(fromRoot: string, toRoot: string): Promise<string[]> {
  const copied: string[] = [];
  for (const rel of PROTECTED_AGENT_CONFIG) {
    if (!existsSync(path.join(fromRoot, rel))) continue;
    await mkdir(path.dirname(path.join(toRoot, rel)), { recursive: true });
    await copyFile(path.join(fromRoot, rel), path.join(toRoot, rel));
    copied.push(rel);
  }
  return copied;
}
