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

/** landingPlaces, once per folder and input in one call's checks. */
export function landingPlacesOnce(
  landings: Map<string, Promise<(string | undefined)[]>> | undefined,
  folder: string,
  input: string,
): Promise<(string | undefined)[]> {
  if (!landings) return landingPlaces(folder, input);
  const key = `${folder}\0${input}`;
  let found = landings.get(key);
  if (!found) {
    found = landingPlaces(folder, input);
    landings.set(key, found);
  }
  return found;
}

/** The places `input` may land from `folder`: bash's `cd` is logical (`cd link/..` is the folder itself). */
export async function landingPlaces(folder: string, input: string): Promise<(string | undefined)[]> {
  const logicalFolder = path.resolve(folder);
  // a folder with no `..` in it is the same folder both ways: resolved once
  if (logicalFolder === folder) return [await physicalPath(folder, input)];
  const [physical, logical] = await Promise.all([
    physicalPath(folder, input),
    physicalPath(logicalFolder, input),
  ]);
  return physical === logical ? [physical] : [physical, logical];
}

/** A file that is not a folder (a symlink counts as what it points at): nothing lies below it. */
export async function isExistingFile(abs: string): Promise<boolean> {
  try {
    return !(await stat(abs)).isDirectory();
  } catch {
    return false;
  }
}

export async function isExistingFolder(abs: string): Promise<boolean> {
  try {
    return (await lstat(abs)).isDirectory();
  } catch {
    return false;
  }
}

/** Where protected files live: the workspace's patterns, and more paths (hook scripts, the user's config folders). */
export interface ProtectedPlaces {
  root: string;
  extra: readonly string[];
}

/** The protected file a write or delete of `named` (landing at `resolved`) would change, if any. */
export function protectedFileAt(places: ProtectedPlaces, named: string, resolved: string) {
  return protectedTargetOf(places.root, named, resolved, places.extra);
}

/** A folder protected files live in, named for messages. */
interface ProtectedFolder {
  shown: string;
  named: string;
  /** Everything below it is protected (`.agents/agents/**`, a user config folder), not only some names. */
  subtree: boolean;
  /** The workspace-relative folder of a pattern, for the names in it that are protected. */
  patternFolder?: string;
}

function protectedFolders(places: ProtectedPlaces): ProtectedFolder[] {
  const folders: ProtectedFolder[] = PROTECTED_AGENT_CONFIG_PATTERNS.map((pattern) => {
    const subtree = pattern.endsWith("/**");
    const folder = subtree ? pattern.slice(0, -3) : path.posix.dirname(pattern);
    return { shown: pattern, named: path.join(places.root, folder), subtree, patternFolder: folder };
  });
  for (const extra of places.extra) folders.push({ shown: extra, named: extra, subtree: true });
  return folders;
}

/** The protected file inside a folder that a recursive write or delete (`rm -r`, `cp -r x dir`) would reach. */
export async function protectedFileInside(
  places: ProtectedPlaces,
  folder: { named: string; resolved: string },
  onlyNames?: readonly string[],
): Promise<string | undefined> {
  const itself = await protectedFileAt(places, folder.named, folder.resolved);
  if (itself !== undefined) return itself;
  const names =
    onlyNames && onlyNames.length > 0
      ? onlyNames.map((glob) => picomatch(glob, { dot: true, nocase: true }))
      : undefined;
  for (const place of protectedFolders(places)) {
    const real = await realpath(place.named).catch(() => undefined);
    const reached = [place.named, real].some(
      (abs) => abs !== undefined && (isInside(folder.named, abs) || isInside(folder.resolved, abs)),
    );
    if (!reached) continue;
    // with a name filter (`find -name '*.tmp' -delete`) only files of a matching name are reached
    if (!names) return place.shown;
    const hit = await matchingBelow(place, (name) => names.every((test) => test(name)));
    if (hit !== undefined) return shownPath(places.root, hit);
  }
  return undefined;
}

/** A path as messages show it: workspace-relative inside the workspace, else absolute. */
export function shownPath(root: string, abs: string): string {
  if (!path.isAbsolute(abs)) return abs;
  const rel = path.relative(root, abs);
  return rel.startsWith("..") || path.isAbsolute(rel) ? abs : rel.split(path.sep).join("/");
}

/** Entries below a protected folder to look at for a name filter before assuming one matches. */
const MAX_ENTRIES_LOOKED_AT = 2_000;

/** A protected file in `place` whose name passes `matches`: its protected names, or all below a subtree. */
async function matchingBelow(place: ProtectedFolder, matches: (name: string) => boolean) {
  if (!place.subtree) {
    const entries = await readdir(place.named).catch(() => [] as string[]);
    const hit = entries.find(
      (entry) => isProtectedAgentConfig(`${place.patternFolder}/${entry}`) && matches(entry),
    );
    return hit === undefined ? undefined : `${place.patternFolder}/${hit}`;
  }
  const pending = [place.named];
  let looked = 0;
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      // past the limit, some entry may match: the folder counts as reached
      if (++looked > MAX_ENTRIES_LOOKED_AT) return place.shown;
      if (entry.isDirectory()) pending.push(path.join(folder, entry.name));
      else if (matches(entry.name)) return path.join(folder, entry.name);
    }
  }
  return undefined;
}

/** Whether a file-name pattern (`*.json`) in `folder` could match a protected file, now or once created. */
export async function patternMayHitProtected(
  places: ProtectedPlaces,
  folder: string,
  pattern: string,
): Promise<string | undefined> {
  const test = picomatch(pattern, { dot: false });
  const candidates = [
    ...PROTECTED_AGENT_CONFIG_PATTERNS.map((shown) => ({ shown, abs: path.join(places.root, shown) })),
    ...places.extra.map((extra) => ({ shown: extra, abs: extra })),
  ];
  for (const { shown, abs } of candidates) {
    // a pattern inside a protected folder can only match what it protects
    if (places.extra.includes(abs) && isInside(abs, folder)) return shown;
    const rel = path.relative(folder, abs).split(path.sep).join("/");
    if (rel.startsWith("..") || path.isAbsolute(rel)) continue;
    // the protected pattern's `*` stands for any name: a file-name pattern that can match it may hit one
    const probe = rel.replaceAll("*", "x");
    const prefixes = rel.split("/").map((_, index, all) => all.slice(0, index + 1).join("/"));
    if (test(probe) || test(rel) || prefixes.some((prefix) => test(prefix))) return shown;
  }
  return undefined;
}

/**
 * The protected file an existing file is a hard link to: writing through one name (`>` truncates in
 * place) changes every name of the file.
 */
export async function protectedHardLink(
  places: ProtectedPlaces,
  resolved: string,
): Promise<string | undefined> {
  const target = await stat(resolved).catch(() => undefined);
  if (!target || target.nlink < 2) return undefined;
  const candidates = [...places.extra];
  for (const pattern of PROTECTED_AGENT_CONFIG_PATTERNS) {
    const folderRel = pattern.endsWith("/**") ? pattern.slice(0, -3) : path.posix.dirname(pattern);
    const entries = await readdir(path.join(places.root, folderRel)).catch(() => [] as string[]);
    for (const entry of entries) {
      if (isProtectedAgentConfig(`${folderRel}/${entry}`))
        candidates.push(path.join(places.root, folderRel, entry));
    }
  }
  for (const candidate of candidates) {
    const info = await stat(candidate).catch(() => undefined);
    if (info?.isFile() && info.ino === target.ino && info.dev === target.dev) {
      return path.relative(places.root, candidate).startsWith("..")
        ? candidate
        : path.relative(places.root, candidate);
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
