import { existsSync } from "node:fs";
import path from "node:path";
import { readIfPresent } from "../config/read-if-present.js";
import { runGit } from "../workspace/git.js";
import { namesInPatch, strippedNames } from "./patch-names.js";
import type { PatchSource, TreeChange, TreePart } from "./shell-tree-writes.js";

/** A file or folder a tree change may change, absolute. */
export interface ChangedPath {
  abs: string;
  /** A folder with all it holds (an untracked folder git clean removes whole). */
  folder: boolean;
}

export type TreeResolution =
  | { paths: ChangedPath[] }
  /** Which files it changes only running tells: judged by every file below `top`. */
  | { unknown: string; top: string };

/** More changed paths than this are not judged one by one: the tree counts as changed whole. */
const MAX_PATHS = 20_000;
/** A patch larger than this is not read. */
const MAX_PATCH_BYTES = 16 * 1024 * 1024;

/**
 * The files a tree change (src/policy/shell-tree-writes.ts) would change, run from `shellFolder`: asked
 * of git through Gantry's guarded runGit (no repository-defined command runs), read from the patch.
 * `written` are the files the same command line writes: a patch among them is judged unknown, since
 * what it will hold only running tells.
 */
export async function changedByTree(
  change: TreeChange,
  shellFolder: string,
  written: ReadonlySet<string>,
): Promise<TreeResolution> {
  const cwd = path.resolve(shellFolder, change.folder);
  const needsGit = change.parts.some((part) => part.kind !== "patch" || part.git);
  const top = needsGit || change.unknown ? await gitTop(cwd) : undefined;
  if (change.unknown) return { unknown: change.unknown, top: top ?? cwd };
  const paths: ChangedPath[] = [];
  for (const part of change.parts) {
    const found = await partPaths(part, { cwd, top, shellFolder, written }).catch((cause: Error) => ({
      // git refuses the question (a pathspec outside the repository): it may refuse the command, or not
      unknown: `git cannot tell which: ${cause.message.split("\n")[0]}`,
    }));
    if ("unknown" in found) return { unknown: found.unknown, top: top ?? cwd };
    paths.push(...found.paths);
    if (paths.length > MAX_PATHS)
      return { unknown: `it changes more than ${MAX_PATHS} files`, top: top ?? cwd };
  }
  return { paths };
}

interface Where {
  cwd: string;
  /** The repository's top; undefined outside one (git fails there, but for git apply). */
  top: string | undefined;
  shellFolder: string;
  written: ReadonlySet<string>;
}

type Found = { paths: ChangedPath[] } | { unknown: string };

async function partPaths(part: TreePart, where: Where): Promise<Found> {
  if (part.kind === "patch") return patchPaths(part, where);
  const { cwd, top } = where;
  // outside a repository git refuses these: nothing changes
  if (top === undefined) return { paths: [] };
  const inTop = (names: string[]): Found => ({
    paths: names.map((name) => ({ abs: path.join(top, name), folder: name.endsWith("/") })),
  });
  const specs = (pathspecs: string[]) => ["--", ...pathspecs];
  switch (part.kind) {
    case "local": {
      if (!(await commitOf(cwd, "HEAD")))
        return inTop(await names(cwd, ["ls-files", "--full-name", ...specs(part.pathspecs)]));
      const [staged, unstaged] = await Promise.all([
        names(cwd, ["diff", "--name-only", "--no-renames", "HEAD", ...specs(part.pathspecs)]),
        names(cwd, ["diff", "--name-only", "--no-renames", ...specs(part.pathspecs)]),
      ]);
      return inTop([...staged, ...unstaged]);
    }
    case "between": {
      const commit = await revision(cwd, part.rev);
      if (!commit) {
        if (part.ifExists) return { paths: [] };
        if (part.maybePath && (/[*?[]/.test(part.rev) || existsSync(path.resolve(cwd, part.rev))))
          return { paths: [] };
        return { unknown: `"${part.rev}" is no revision git knows yet` };
      }
      if (!(await commitOf(cwd, "HEAD")))
        return inTop(
          await names(cwd, ["ls-tree", "-r", "--name-only", "--full-name", commit, ...specs(part.pathspecs)]),
        );
      return inTop(
        await names(cwd, ["diff", "--name-only", "--no-renames", "HEAD", commit, ...specs(part.pathspecs)]),
      );
    }
    case "commit": {
      const commit = await revision(cwd, part.rev);
      if (!commit) return { unknown: `"${part.rev}" is no revision git knows yet` };
      return inTop(
        await names(cwd, [
          "diff-tree",
          "-r",
          "--name-only",
          "--no-commit-id",
          "--root",
          "-m",
          "--no-renames",
          commit,
        ]),
      );
    }
    case "untracked": {
      const which =
        part.ignored === "no"
          ? ["--exclude-standard"]
          : part.ignored === "only"
            ? ["--ignored", "--exclude-standard"]
            : [];
      return inTop(
        await names(cwd, [
          "ls-files",
          "--full-name",
          "--others",
          "--directory",
          ...which,
          ...specs(part.pathspecs),
        ]),
      );
    }
    case "tracked":
      return inTop(await names(cwd, ["ls-files", "--full-name", ...specs(part.pathspecs)]));
    case "stash": {
      const stash = await commitOf(cwd, part.ref);
      // no such stash: git stash pop fails (or pops the one an earlier `git stash` in the line made, judged there)
      if (!stash) return { paths: [] };
      const untracked = await commitOf(cwd, `${stash}^3`);
      const [tracked, added] = await Promise.all([
        names(cwd, ["diff", "--name-only", "--no-renames", `${stash}^1`, stash]),
        untracked
          ? names(cwd, ["ls-tree", "-r", "--name-only", "--full-tree", untracked])
          : Promise.resolve([]),
      ]);
      return inTop([...tracked, ...added]);
    }
  }
}

/** The repository's top folder from `cwd`; undefined outside one (or where `cwd` does not exist). */
async function gitTop(cwd: string): Promise<string | undefined> {
  try {
    return (await runGit(cwd, ["rev-parse", "--show-toplevel"])).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The commit a revision names, or undefined. */
async function commitOf(cwd: string, rev: string): Promise<string | undefined> {
  try {
    return (
      await runGit(cwd, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${rev}^{commit}`])
    ).trim();
  } catch {
    return undefined;
  }
}

/** A revision, or the one remote branch of that name git checkout and switch would make it from. */
async function revision(cwd: string, rev: string): Promise<string | undefined> {
  const commit = await commitOf(cwd, rev);
  if (commit || rev.startsWith("-")) return commit;
  const remote = await names(
    cwd,
    ["for-each-ref", "--format=%(refname)", `refs/remotes/*/${rev}`],
    "\n",
  ).catch(() => []);
  return remote.length === 1 ? commitOf(cwd, remote[0] as string) : undefined;
}

/** A git listing's names: NUL-separated with `-z` (added here), newline-separated otherwise. */
async function names(cwd: string, args: string[], separator = "\0"): Promise<string[]> {
  const withZ = separator === "\0" ? [args[0] as string, "-z", ...args.slice(1)] : args;
  const output = await runGit(cwd, withZ);
  return output.split(separator).filter((name) => name !== "");
}

async function patchPaths(part: Extract<TreePart, { kind: "patch" }>, where: Where): Promise<Found> {
  const text = patchText(part.source, where);
  if (typeof text !== "string") return text;
  // git apply works from the repository's top (outside one, from where it runs); patch from its folder
  const base = part.git ? (where.top ?? where.cwd) : where.cwd;
  const paths = namesInPatch(text).flatMap((name) =>
    strippedNames(name, part.strip).map((stripped) => ({
      abs: path.resolve(base, part.prefix, stripped),
      folder: false,
    })),
  );
  return { paths };
}

function patchText(source: PatchSource, where: Where): string | Found {
  if ("unknown" in source) return { unknown: source.unknown };
  if ("text" in source) return source.text;
  const file = path.resolve(source.fromShell ? where.shellFolder : where.cwd, source.file);
  if (where.written.has(file))
    return { unknown: `the patch ${source.file} is written by the same command line` };
  try {
    // no such patch: the command fails and changes nothing
    return readIfPresent(file, { maxBytes: MAX_PATCH_BYTES })?.toString("utf8") ?? { paths: [] };
  } catch (cause) {
    return { unknown: `the patch cannot be read (${(cause as Error).message})` };
  }
}
