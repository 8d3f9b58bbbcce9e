import { lstat, readdir, realpath, stat } from "node:fs/promises";
import path from "node:path";
import picomatch from "picomatch";
import { isInside } from "../workspace/paths.js";
import {
  isProtectedAgentConfig,
  PROTECTED_AGENT_CONFIG_PATTERNS,
  protectedTargetOf,
} from "../workspace/protected.js";

/**
 * Where a path a command names really lands, as the kernel resolves it: component by component, a
 * symlink replaced by its target and `..` going to the real parent (so `link/../x` leaves the folder
 * `link` points into). Undefined through a dangling link, whose target decides where a write lands.
 */
export async function physicalPath(folder: string, input: string): Promise<string | undefined> {
  let current = path.isAbsolute(input) ? "/" : await realpath(folder).catch(() => undefined);
  if (current === undefined) return undefined;
  const parts = input.split("/").filter((part) => part !== "" && part !== ".");
  for (const [index, part] of parts.entries()) {
    if (part === "..") {
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, part);
    try {
      current = await realpath(next);
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code;
      if ((code !== "ENOENT" && code !== "ENOTDIR") || (await isSymlink(next))) return undefined;
      // the rest does not exist yet; a `..` past a missing folder fails when the command runs
      return path.join(next, ...parts.slice(index + 1));
    }
  }
  return current;
}

/** The places `input` may land from `folder`: bash's `cd` is logical (`cd link/..` is the folder itself). */
export async function landingPlaces(folder: string, input: string): Promise<(string | undefined)[]> {
  const physical = await physicalPath(folder, input);
  const logical = await physicalPath(path.resolve(folder), input);
  return physical === logical ? [physical] : [physical, logical];
}

export async function isExistingFolder(abs: string): Promise<boolean> {
  try {
    return (await lstat(abs)).isDirectory();
  } catch {
    return false;
  }
}

/** The protected file inside a folder that a recursive write or delete (`rm -r`, `cp -r x dir`) would reach. */
export async function protectedFileInside(
  root: string,
  folder: { named: string; resolved: string },
  onlyNames?: readonly string[],
): Promise<string | undefined> {
  const itself = await protectedTargetOf(root, folder.named, folder.resolved);
  if (itself !== undefined) return itself;
  const names =
    onlyNames && onlyNames.length > 0
      ? onlyNames.map((glob) => picomatch(glob, { dot: true, nocase: true }))
      : undefined;
  for (const pattern of PROTECTED_AGENT_CONFIG_PATTERNS) {
    const folderRel = path.posix.dirname(pattern);
    const named = path.join(root, folderRel);
    const real = await realpath(named).catch(() => undefined);
    const reached = [named, real].some(
      (place) => place !== undefined && (isInside(folder.named, place) || isInside(folder.resolved, place)),
    );
    if (!reached) continue;
    // with a name filter (`find -name '*.tmp' -delete`) only files of a matching name are reached
    if (!names) return pattern;
    const entries = await readdir(named).catch(() => [] as string[]);
    const hit = entries.find(
      (entry) => isProtectedAgentConfig(`${folderRel}/${entry}`) && names.every((test) => test(entry)),
    );
    if (hit !== undefined) return `${folderRel}/${hit}`;
  }
  return undefined;
}

/** Whether a file-name pattern (`*.json`) in `folder` could match a protected file, now or once created. */
export async function patternMayHitProtected(
  root: string,
  folder: string,
  pattern: string,
): Promise<string | undefined> {
  const test = picomatch(pattern, { dot: false });
  for (const protectedPattern of PROTECTED_AGENT_CONFIG_PATTERNS) {
    const named = path.join(root, protectedPattern);
    const rel = path.relative(folder, named).split(path.sep).join("/");
    if (rel.startsWith("..") || path.isAbsolute(rel)) continue;
    // the protected pattern's `*` stands for any name: a file-name pattern that can match it may hit one
    const probe = rel.replaceAll("*", "x");
    const prefixes = rel.split("/").map((_, index, all) => all.slice(0, index + 1).join("/"));
    if (test(probe) || test(rel) || prefixes.some((prefix) => test(prefix))) return protectedPattern;
  }
  return undefined;
}

/**
 * The protected file an existing file is a hard link to: writing through one name (`>` truncates in
 * place) changes every name of the file.
 */
export async function protectedHardLink(root: string, resolved: string): Promise<string | undefined> {
  const target = await stat(resolved).catch(() => undefined);
  if (!target || target.nlink < 2) return undefined;
  for (const pattern of PROTECTED_AGENT_CONFIG_PATTERNS) {
    const folderRel = path.posix.dirname(pattern);
    const entries = await readdir(path.join(root, folderRel)).catch(() => [] as string[]);
    for (const entry of entries) {
      const rel = `${folderRel}/${entry}`;
      if (!isProtectedAgentConfig(rel)) continue;
      const info = await stat(path.join(root, rel)).catch(() => undefined);
      if (info && info.ino === target.ino && info.dev === target.dev) return rel;
    }
  }
  return undefined;
}

/** For a relative path whose folder is unknown: whether its name could be a protected file's. */
export function nameMayBeProtected(relative: string): boolean {
  if (isProtectedAgentConfig(relative)) return true;
  const name = path.posix.basename(relative);
  return PROTECTED_AGENT_CONFIG_PATTERNS.some((pattern) =>
    isProtectedAgentConfig(`${path.posix.dirname(pattern)}/${name}`),
  );
}

async function isSymlink(candidate: string): Promise<boolean> {
  try {
    return (await lstat(candidate)).isSymbolicLink();
  } catch {
    return false;
  }
}
