import { constants, type Stats } from "node:fs";
import { type FileHandle, link, lstat, open, readdir, rename, unlink } from "node:fs/promises";
import path from "node:path";
import { randomHex } from "../session/random-ids.js";
import { descriptorPath, isInside } from "./paths.js";

/**
 * Temp files of an atomic write are named `.gantry-tmp-<pid>-<random>`. A crash (SIGKILL, power loss)
 * can leave one behind; the next write into that folder removes those whose process is gone, and
 * listing and search tools should hide names for which `isAtomicTempName` is true.
 */
export const ATOMIC_TEMP_PREFIX = ".gantry-tmp-";
const TEMP_NAME = /^\.gantry-tmp-(\d+)-[0-9a-f]+$/;

export function isAtomicTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}

export interface AtomicWriteOptions {
  /** Real path of the workspace root: the temp file's descriptor must lie inside it. */
  root: string;
  /** Permission bits to give the file (an existing file's mode); a new file gets 0o666 minus the umask. */
  mode?: number;
  /** Owner to keep when the writer may set it (running as root); ignored where not permitted. */
  owner?: { uid: number; gid: number };
  /** false: create only, failing with code "EEXIST" if the target exists by the time of the commit. */
  overwrite?: boolean;
  /** Runs after the data is flushed and right before the rename; throwing cancels the write. */
  beforeCommit?: () => Promise<void>;
  /** Test seam: runs after each chunk reaches the temp file (a throw or a kill here is a crash mid-write). */
  onChunkWritten?: (bytesWritten: number) => Promise<void> | void;
  /** Bytes per write call (default 8 MiB). */
  chunkBytes?: number;
}

export class AtomicWriteRefused extends Error {}

/**
 * Replaces `target` (a real path inside `options.root`) with `data` so that any reader, and any crash,
 * sees either the old file whole or the new one whole: temp file in the same folder (O_EXCL), write,
 * fsync, rename over the target, fsync the folder. The rename swaps the directory entry, so a hardlink
 * whose other name is outside the workspace keeps its old content. On failure the temp file is removed
 * and the target is untouched. Returns the new file's stats.
 */
export async function writeFileAtomic(
  target: string,
  data: Uint8Array,
  options: AtomicWriteOptions,
): Promise<Stats> {
  const folder = path.dirname(target);
  await removeStaleTempFiles(folder);
  const temp = path.join(folder, `${ATOMIC_TEMP_PREFIX}${process.pid}-${randomHex(6)}`);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  let handle: FileHandle | undefined = await open(temp, flags, 0o666);
  let committed = false;
  try {
    const actual = await descriptorPath(handle, temp);
    if (actual !== temp || !isInside(options.root, actual)) {
      throw new AtomicWriteRefused(`the folder of "${target}" changed during the write; nothing was written`);
    }
    if (options.mode !== undefined) await handle.chmod(options.mode & 0o7777);
    if (options.owner) await handle.chown(options.owner.uid, options.owner.gid).catch(() => undefined);
    await writeAll(handle, data, options);
    await handle.sync();
    const stats = await handle.stat();
    await handle.close();
    handle = undefined;
    await options.beforeCommit?.();
    if (options.overwrite === false) await linkNoClobber(temp, target);
    else await rename(temp, target);
    committed = true;
    await syncFolder(folder);
    return stats;
  } finally {
    await handle?.close().catch(() => undefined);
    if (!committed) await unlink(temp).catch(() => undefined);
  }
}

async function writeAll(handle: FileHandle, data: Uint8Array, options: AtomicWriteOptions): Promise<void> {
  const chunkBytes = options.chunkBytes ?? 8 * 1024 * 1024;
  let offset = 0;
  while (offset < data.length) {
    const length = Math.min(chunkBytes, data.length - offset);
    const { bytesWritten } = await handle.write(data, offset, length, offset);
    offset += bytesWritten;
    await options.onChunkWritten?.(offset);
  }
}

/** Creates `target` from `temp` only if `target` does not exist yet (link fails with EEXIST), then drops `temp`. */
async function linkNoClobber(temp: string, target: string): Promise<void> {
  try {
    await link(temp, target);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP") throw cause;
    // a file system without hard links: check, then rename (a tiny window remains there)
    const exists = await lstat(target).then(
      () => true,
      () => false,
    );
    if (exists) throw Object.assign(new Error(`"${target}" already exists`), { code: "EEXIST" });
    await rename(temp, target);
    return;
  }
  await unlink(temp).catch(() => undefined);
}

async function syncFolder(folder: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(folder, constants.O_RDONLY | constants.O_DIRECTORY);
    await handle.sync();
  } catch {
    // some file systems refuse fsync on a folder; the rename has happened either way
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

const cleanedFolders = new Set<string>();

/**
 * Removes temp files left in `folder` by processes that no longer run (a crash mid-write). Done once
 * per folder per process, so a run of edits does not rescan a large folder each time.
 */
export async function removeStaleTempFiles(folder: string): Promise<number> {
  if (cleanedFolders.has(folder)) return 0;
  cleanedFolders.add(folder);
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const pid = TEMP_NAME.exec(name)?.[1];
    if (pid === undefined || isRunning(Number(pid))) continue;
    await unlink(path.join(folder, name)).then(
      () => removed++,
      () => undefined,
    );
  }
  return removed;
}

function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (cause) {
    return (cause as NodeJS.ErrnoException).code === "EPERM";
  }
}
