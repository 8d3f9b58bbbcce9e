import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdir, realpath, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { runGit } from "../workspace/git.js";

/**
 * Where a session's workspace comes from: a commit of a git repository (every worker checks out the
 * same commit into a folder of its own), or a folder on storage the workers share, used in place.
 */
export type WorkspaceSource =
  | { mode: "git"; repo: string; commit: string }
  | { mode: "shared"; root: string };

const REMOTE_URL = /^(https?|ssh|git|file):\/\/[^\s]+$/;
const SCP_LIKE = /^[\w.-]+@[\w.-]+:[^\s]+$/;

/** Why `repo` cannot name a workspace, or undefined when it can. */
export function repoProblem(repo: string): string | undefined {
  if (repo.startsWith("-")) return `--repo must be a URL or an absolute path, not "${repo}"`;
  if (REMOTE_URL.test(repo) || SCP_LIKE.test(repo)) return undefined;
  if (!path.isAbsolute(repo))
    return `--repo must be a URL (https://, ssh://, git://, file://, user@host:path) or an absolute path, not "${repo}"`;
  return undefined;
}

/** Resolves repository and ref to one commit (journaled, so a session's workers all use the same one). */
export async function resolveSource(workdir: string, repo: string, ref?: string): Promise<WorkspaceSource> {
  const problem = repoProblem(repo);
  if (problem) throw new Error(problem);
  if (ref?.startsWith("-")) throw new Error(`--ref must name a branch, tag or commit, not "${ref}"`);
  if (path.isAbsolute(repo) && !isGitRepository(repo)) {
    if (ref) throw new Error(`--ref needs a git repository, and ${repo} is a plain folder`);
    if (!isDirectory(repo)) throw new Error(`--repo ${repo} does not exist on this worker`);
    return { mode: "shared", root: await realpath(repo) };
  }
  const cache = await cachedClone(workdir, repo);
  const rev = ref ?? "HEAD";
  const commit = (
    await runGit(cache, ["rev-parse", "--verify", "--end-of-options", `${rev}^{commit}`])
  ).trim();
  return { mode: "git", repo, commit };
}

/** The session's own folder on this worker, at the source's commit (created, or the one an earlier attempt left). */
export async function checkoutWorkspace(
  workdir: string,
  sessionId: string,
  source: WorkspaceSource,
): Promise<string> {
  if (source.mode === "shared") return source.root;
  const folder = path.join(workdir, "sessions", sessionId);
  if (existsSync(path.join(folder, ".git"))) return realpath(folder);
  const cache = await cachedClone(workdir, source.repo, source.commit);
  await rm(folder, { recursive: true, force: true });
  await mkdir(path.dirname(folder), { recursive: true });
  await withLock(`${cache}.lock`, async () => {
    await runGit(cache, ["worktree", "prune"]);
    await runGit(cache, ["worktree", "add", "--detach", "--force", "--quiet", folder, source.commit]);
  });
  return realpath(folder);
}

/** Removes the session's folder (the session ended, or was cancelled). */
export async function removeWorkspace(
  workdir: string,
  sessionId: string,
  source: WorkspaceSource,
): Promise<void> {
  if (source.mode === "shared") return;
  await rm(path.join(workdir, "sessions", sessionId), { recursive: true, force: true });
  await runGit(cachePath(workdir, source.repo), ["worktree", "prune"]).catch(() => undefined);
}

/**
 * A bare clone of `repo` under the workdir, fetched again for each new session. Workers may share a
 * workdir (then a session's folder has the same path wherever it runs), so a lock folder makes them take turns.
 */
async function cachedClone(workdir: string, repo: string, needed?: string): Promise<string> {
  const cache = cachePath(workdir, repo);
  await mkdir(path.dirname(cache), { recursive: true });
  return withLock(`${cache}.lock`, async () => {
    if (existsSync(cache)) {
      // a worker picking a session up needs only its commit: fetch when it is missing
      if (needed && (await hasCommit(cache, needed))) return cache;
      await runGit(cache, [
        "fetch",
        "--quiet",
        "--prune",
        "--",
        repo,
        "+refs/heads/*:refs/heads/*",
        "+refs/tags/*:refs/tags/*",
      ]);
      return cache;
    }
    const partial = `${cache}.partial-${process.pid}`;
    await rm(partial, { recursive: true, force: true });
    await runGit(workdir, ["clone", "--bare", "--quiet", "--", repo, partial]);
    await rename(partial, cache);
    return cache;
  });
}

function cachePath(workdir: string, repo: string): string {
  return path.join(workdir, "repos", `${createHash("sha256").update(repo).digest("hex").slice(0, 16)}.git`);
}

async function hasCommit(cache: string, commit: string): Promise<boolean> {
  try {
    await runGit(cache, ["cat-file", "-e", `${commit}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

const LOCK_WAIT_MS = 120_000;

/** Runs `action` holding a lock folder; a lock whose owner process is gone is taken over. */
async function withLock<T>(lock: string, action: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await mkdir(lock);
      await writeFile(path.join(lock, "pid"), String(process.pid));
      break;
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code !== "EEXIST") throw cause;
      if (lockOwnerGone(lock)) await rm(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`${lock} is held by another worker for too long`);
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    return await action();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

function lockOwnerGone(lock: string): boolean {
  try {
    const pid = Number(readFileSync(path.join(lock, "pid"), "utf8"));
    if (!Number.isInteger(pid) || pid <= 0) return false;
    process.kill(pid, 0);
    return false;
  } catch (cause) {
    return (cause as NodeJS.ErrnoException).code === "ESRCH";
  }
}

function isGitRepository(folder: string): boolean {
  return existsSync(path.join(folder, ".git")) || existsSync(path.join(folder, "HEAD"));
}

function isDirectory(folder: string): boolean {
  try {
    return statSync(folder).isDirectory();
  } catch {
    return false;
  }
}
