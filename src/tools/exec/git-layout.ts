import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** Where git keeps a repository's files, found as git finds them: the sandbox masks and protects them. */

/**
 * The configuration files of the repository a `.git` entry stands for: a `.git` folder's `config`,
 * `config.worktree`, its worktrees' and its submodules' configs; for a `.git` file (a linked worktree
 * or a submodule) the folder it points to and that folder's common folder.
 */
export function repositoryConfigFiles(dotGit: string): string[] {
  const gitDir = gitDirOf(dotGit);
  if (gitDir === undefined) return [];
  const files = [path.join(gitDir, "config.worktree")];
  for (const dir of new Set([gitDir, commonDirOf(gitDir)])) {
    files.push(path.join(dir, "config"));
    for (const name of safeList(path.join(dir, "worktrees")))
      files.push(path.join(dir, "worktrees", name, "config.worktree"));
    files.push(...moduleConfigs(path.join(dir, "modules"), 4));
  }
  return [...new Set(files)];
}

/** The `.git` of the repository holding `folder` (the folder itself or the nearest one above it), as git finds it. */
export function enclosingGitEntry(folder: string): string | undefined {
  for (let dir = folder; ; dir = path.dirname(dir)) {
    const entry = path.join(dir, ".git");
    if (existsSync(entry)) return entry;
    if (path.dirname(dir) === dir) return undefined;
  }
}

function gitDirOf(dotGit: string): string | undefined {
  try {
    if (statSync(dotGit).isDirectory()) return dotGit;
    const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, "utf8"))?.[1];
    return pointer ? path.resolve(path.dirname(dotGit), pointer) : undefined;
  } catch {
    return undefined;
  }
}

function commonDirOf(gitDir: string): string {
  try {
    const common = readFileSync(path.join(gitDir, "commondir"), "utf8").trim();
    return common ? path.resolve(gitDir, common) : gitDir;
  } catch {
    return gitDir;
  }
}

/** Submodules keep their git folders under `modules/<name>/` (a name may hold slashes; nested modules go deeper). */
function moduleConfigs(folder: string, depth: number): string[] {
  if (depth === 0) return [];
  return safeList(folder).flatMap((name) => {
    const dir = path.join(folder, name);
    return [path.join(dir, "config"), ...moduleConfigs(dir, depth - 1)];
  });
}

function safeList(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

/**
 * What git reads as settings or runs as code in a git folder: a command that changed one would run its
 * code outside the sandbox at the user's next `git status` (a `core.fsmonitor`, a hook, a `commondir`
 * pointing at a config it wrote).
 */
const GIT_CONTROL_NAMES = ["config", "config.worktree", "commondir", "hooks"];
const WORKTREE_CONTROL_NAMES = ["config.worktree", "commondir", "gitdir"];

/**
 * The files and folders of the repository a `.git` entry stands for that a sandboxed command may not
 * write: `GIT_CONTROL_NAMES` in its git folder, its common folder and each submodule's git folder, the
 * pointers of its linked worktrees, and the `.git` entry itself when it is a file (a pointer git follows).
 * Absent ones are left out, except `hooks` (the runtime's stand-in blocks creating it) and `commondir`
 * (which git dies reading as a stand-in: pinCommonDirs puts a neutral one there first).
 */
export function repositoryControlPaths(dotGit: string): string[] {
  const paths = isFile(dotGit) ? [dotGit] : [];
  const gitDir = gitDirOf(dotGit);
  if (gitDir === undefined) return paths;
  const keep = (file: string) => existsSync(file) || ["hooks", "commondir"].includes(path.basename(file));
  for (const dir of new Set([gitDir, commonDirOf(gitDir)])) {
    if (!isGitFolder(dir)) continue;
    for (const each of [dir, ...moduleGitFolders(path.join(dir, "modules"), 4)])
      paths.push(...GIT_CONTROL_NAMES.map((name) => path.join(each, name)).filter(keep));
    for (const name of safeList(path.join(dir, "worktrees")))
      paths.push(
        ...WORKTREE_CONTROL_NAMES.map((file) => path.join(dir, "worktrees", name, file)).filter(existsSync),
      );
  }
  return [...new Set(paths)];
}

/** Submodules' git folders below `modules/` (a name may hold slashes; nested submodules go deeper). */
function moduleGitFolders(folder: string, depth: number): string[] {
  if (depth === 0) return [];
  return safeList(folder).flatMap((name) => {
    const dir = path.join(folder, name);
    if (!isGitFolder(dir)) return moduleGitFolders(dir, depth - 1);
    return [dir, ...moduleGitFolders(path.join(dir, "modules"), depth - 1)];
  });
}

function isGitFolder(dir: string): boolean {
  return existsSync(path.join(dir, "HEAD"));
}

function isFile(entry: string): boolean {
  try {
    return statSync(entry).isFile();
  } catch {
    return false;
  }
}

/** `repositoryControlPaths` of the repository holding `root` and of the `.git` entries found below it. */
export function gitControlPaths(root: string, nestedGitEntries: readonly string[]): string[] {
  const entries = [enclosingGitEntry(root), ...nestedGitEntries];
  return [...new Set(entries.flatMap((entry) => (entry ? repositoryControlPaths(entry) : [])))];
}
