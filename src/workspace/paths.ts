import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  realpathSync,
  type Stats,
} from "node:fs";
import path from "node:path";
import type { ToolErrorCode } from "../tools/contract.js";
import { lstatOf, type OpenFile, openFile, realPath } from "./open-file.js";

/** A path proven to lie inside the workspace at the time it was resolved. */
export interface ResolvedPath {
  /** Absolute path with every existing component's symlinks resolved. */
  abs: string;
  /** Relative to the workspace root, "/"-separated; "" is the root itself. */
  rel: string;
  exists: boolean;
}

export interface PathError {
  code: ToolErrorCode;
  message: string;
}

export type PathResult = { ok: true; path: ResolvedPath } | { ok: false; error: PathError };

const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** Linux's PATH_MAX less its NUL: no system call takes a longer path, so a longer one is refused before any work. */
export const MAX_PATH_BYTES = 4095;
/** Linux's NAME_MAX: the longest name of one file or folder. */
export const MAX_NAME_BYTES = 255;
/**
 * Folders below the file system root a path may run through. Far deeper than any real project tree,
 * and it bounds the work a path costs: each level is one mkdir and one realpath for a new file.
 */
export const MAX_PATH_SEGMENTS = 256;

/** True when `candidate` is `root` or below it; a sibling such as `ws_evil` next to `ws` is outside. */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return (
    relative === "" ||
    (!relative.startsWith(`..${path.sep}`) && relative !== ".." && !path.isAbsolute(relative))
  );
}

export function toRelative(root: string, abs: string): string {
  return path.relative(root, abs).split(path.sep).join("/");
}

/**
 * Resolves `input` (relative to `realRoot`, or absolute) through `..` and every symlink, including
 * those of folders above a file that does not exist yet, and proves the result lies in the workspace.
 */
export async function resolveInsideWorkspace(realRoot: string, input: string): Promise<PathResult> {
  if (input.trim() === "") return fail("invalid_path", "The path is empty.");
  if (CONTROL_CHARACTERS.test(input)) {
    return fail("invalid_path", "The path contains a NUL byte or a control character.");
  }
  const requested = path.resolve(realRoot, input);
  const bounds = pathBoundsProblem(input, requested);
  if (bounds) return fail("invalid_path", bounds);
  const missing: string[] = [];
  let existing = requested;
  for (;;) {
    try {
      const real = await realPath(existing);
      const abs = missing.length > 0 ? path.join(real, ...missing.reverse()) : real;
      if (!isInside(realRoot, abs)) return outside(input);
      return { ok: true, path: { abs, rel: toRelative(realRoot, abs), exists: missing.length === 0 } };
    } catch (cause) {
      // a path that names a place outside and cannot be resolved is reported as outside: that is what it asks for
      if (!isInside(realRoot, requested)) return outside(input);
      const code = (cause as NodeJS.ErrnoException).code;
      if (code === "ELOOP") return fail("invalid_path", `The path "${input}" runs into a symlink loop.`);
      if (code === "ENOTDIR") return fail("not_a_directory", `A parent of "${input}" is not a folder.`);
      if (code !== "ENOENT")
        return fail("invalid_path", `Cannot resolve "${input}": ${(cause as Error).message}`);
      if (await isSymlink(existing)) {
        return fail(
          "invalid_path",
          `"${input}" passes through a dangling symlink; its target cannot be checked.`,
        );
      }
      const parent = path.dirname(existing);
      if (parent === existing) return outside(input);
      missing.push(path.basename(existing));
      existing = parent;
    }
  }
}

/** Why a path is past the sane bounds (too long, a name too long, too deep), or undefined when it is within them. */
export function pathBoundsProblem(input: string, abs: string): string | undefined {
  const shown = input.length > 80 ? `${input.slice(0, 60)}…(${input.length} characters)` : input;
  if (Buffer.byteLength(input) > MAX_PATH_BYTES || Buffer.byteLength(abs) > MAX_PATH_BYTES)
    return `The path "${shown}" is longer than ${MAX_PATH_BYTES} bytes, the most a path can be; use a shorter one.`;
  const segments = abs.split(path.sep).filter((segment) => segment !== "");
  if (segments.length > MAX_PATH_SEGMENTS)
    return `The path "${shown}" runs deeper than ${MAX_PATH_SEGMENTS} folders; use a shallower one.`;
  const longName = segments.find((segment) => Buffer.byteLength(segment) > MAX_NAME_BYTES);
  if (longName !== undefined)
    return `A name in the path "${shown}" is longer than ${MAX_NAME_BYTES} bytes, the most a file or folder name can be.`;
  return undefined;
}

async function isSymlink(candidate: string): Promise<boolean> {
  try {
    return (await lstatOf(candidate)).isSymbolicLink();
  } catch {
    return false;
  }
}

function outside(input: string): PathResult {
  return fail(
    "outside_workspace",
    `The path "${input}" is outside the workspace; only files inside it can be used.`,
  );
}

function fail(code: ToolErrorCode, message: string): PathResult {
  return { ok: false, error: { code, message } };
}

export type OpenResult = { ok: true; handle: OpenFile; stats: Stats } | { ok: false; error: PathError };

/**
 * Opens a resolved regular file for reading and then verifies the opened descriptor, not the name:
 * a symlink swapped in after resolution (last component or a parent folder), a FIFO (opened
 * non-blocking, so it never hangs) or a device file are all refused. `stats.nlink` tells writers
 * whether the file has other names (a hardlink may reach outside the workspace).
 */
export async function openVerifiedFile(realRoot: string, resolved: ResolvedPath): Promise<OpenResult> {
  // refuse special files by name first, so a device is never even opened; the descriptor check below
  // still catches one swapped in after this look
  const named = await lstatOrError(resolved);
  if (!named.ok) return named;
  if (named.stats.isDirectory()) return refusal("not_a_file", `"${resolved.rel}" is a folder, not a file.`);
  if (!named.stats.isFile() && !named.stats.isSymbolicLink()) return specialFile(resolved);
  let handle: OpenFile;
  try {
    handle = await openFile(resolved.abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (cause) {
    return openFailure(resolved, cause);
  }
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) {
      throw new OpenRefusal("not_a_file", `"${resolved.rel}" is a folder, not a file.`);
    }
    if (!stats.isFile()) throw new OpenRefusal("special_file", specialFile(resolved).error.message);
    await verifyDescriptor(realRoot, resolved, handle);
    return { ok: true, handle, stats };
  } catch (cause) {
    await handle.close();
    if (cause instanceof OpenRefusal) return refusal(cause.code, cause.message);
    throw cause;
  }
}

export type OpenDirectoryResult =
  | {
      ok: true;
      handle: OpenFile;
      stats: Stats /** a path that names the opened folder itself */;
      path: string;
    }
  | { ok: false; error: PathError };

/**
 * Opens a resolved folder and verifies the descriptor like `openVerifiedFile`. `path` reaches the
 * opened folder through the descriptor (/proc/self/fd on Linux), so entries read and stat-ed below it
 * come from the verified folder even if a symlink is swapped in for its name afterwards.
 */
export async function openVerifiedDirectory(
  realRoot: string,
  resolved: ResolvedPath,
): Promise<OpenDirectoryResult> {
  let handle: OpenFile;
  try {
    handle = await openFile(
      resolved.abs,
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_DIRECTORY,
    );
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ENOTDIR") {
      return refusal("not_a_directory", `"${resolved.rel || "."}" is not a folder.`);
    }
    return openFailure(resolved, cause);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isDirectory()) throw new OpenRefusal("not_a_directory", `"${resolved.rel}" is not a folder.`);
    await verifyDescriptor(realRoot, resolved, handle);
    const viaDescriptor = `/proc/self/fd/${handle.fd}`;
    const usable = await lstatOf(viaDescriptor).then(
      () => true,
      () => false,
    );
    return { ok: true, handle, stats, path: usable ? viaDescriptor : resolved.abs };
  } catch (cause) {
    await handle.close();
    if (cause instanceof OpenRefusal) return refusal(cause.code, cause.message);
    throw cause;
  }
}

async function verifyDescriptor(realRoot: string, resolved: ResolvedPath, handle: OpenFile) {
  const actual = await descriptorPath(handle, resolved.abs);
  if (actual !== resolved.abs || !isInside(realRoot, actual)) {
    throw new OpenRefusal("outside_workspace", `"${resolved.rel}" changed while it was opened; refused.`);
  }
}

async function lstatOrError(
  resolved: ResolvedPath,
): Promise<{ ok: true; stats: Stats } | { ok: false; error: PathError }> {
  try {
    return { ok: true, stats: await lstatOf(resolved.abs) };
  } catch (cause) {
    return openFailure(resolved, cause);
  }
}

function openFailure(resolved: ResolvedPath, cause: unknown): { ok: false; error: PathError } {
  const code = (cause as NodeJS.ErrnoException).code;
  const name = resolved.rel || ".";
  switch (code) {
    case "ENOENT":
      return refusal("not_found", `"${name}" does not exist.`);
    case "ELOOP":
      return refusal("invalid_path", `"${name}" became a symlink after it was checked; refused.`);
    case "EISDIR":
      return refusal("not_a_file", `"${name}" is a folder, not a file.`);
    case "ENOTDIR":
      return refusal("not_a_directory", `A parent of "${name}" is not a folder.`);
    case "ENXIO":
    case "ENODEV":
      return specialFile(resolved);
    default:
      return refusal("invalid_path", `Cannot open "${name}": ${(cause as Error).message}`);
  }
}

function specialFile(resolved: ResolvedPath): { ok: false; error: PathError } {
  return refusal(
    "special_file",
    `"${resolved.rel}" is not a regular file (FIFO, socket or device); refused.`,
  );
}

function refusal(code: ToolErrorCode, message: string): { ok: false; error: PathError } {
  return { ok: false, error: { code, message } };
}

class OpenRefusal extends Error {
  constructor(
    readonly code: ToolErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Whether `/proc/self/fd` names open descriptors (Linux): then a file can be opened through its verified folder. */
export const HAS_PROC_FD = existsSync("/proc/self/fd");

const NO_FOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * A descriptor of `abs` (a file, or a folder), opened without following a symlink and verified to be
 * what `abs` names now: a parent folder swapped for a symlink would lead elsewhere. Undefined when it
 * cannot be opened or is not that. For walks that open many paths synchronously (search).
 */
export function openVerifiedSync(abs: string, kind: "file" | "folder"): number | undefined {
  let fd: number;
  try {
    fd = openSync(abs, kind === "folder" ? NO_FOLLOW | constants.O_DIRECTORY : NO_FOLLOW);
  } catch {
    return undefined;
  }
  if (descriptorPathSync(fd, abs) === abs) return fd;
  closeSync(fd);
  return undefined;
}

/**
 * The path the kernel holds for an open descriptor (`/proc/self/fd`, Linux); where that is missing,
 * `expected` when a fresh realpath of it still names the same file (by inode).
 */
export function descriptorPathSync(fd: number, expected: string): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    try {
      const opened = fstatSync(fd);
      const named = lstatSync(realpathSync(expected));
      return opened.ino === named.ino && opened.dev === named.dev ? expected : `${expected} (replaced)`;
    } catch {
      return `${expected} (replaced)`;
    }
  }
}

export async function descriptorPath(handle: { fd: number }, expected: string): Promise<string> {
  return descriptorPathSync(handle.fd, expected);
}
