import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, type Stats } from "node:fs";

/** Larger than any configuration file (`~/.claude.json` holds megabytes of Claude Code's state). */
export const MAX_CONFIG_BYTES = 64 * 1024 * 1024;

export interface ReadOptions {
  /** At most this many bytes (MAX_CONFIG_BYTES unless said): a larger file is refused. */
  maxBytes?: number;
  /** Read the first `maxBytes` of a larger file instead of refusing it. */
  head?: boolean;
}

/**
 * A regular file's bytes; undefined when it does not exist (other errors, a folder or no permission, are
 * thrown). Opened without blocking and refused unless it is a regular file: a repository's config file
 * that is a named pipe would otherwise block the start forever (nobody writes to it), and one that
 * links to /dev/zero would exhaust memory. At most MAX_CONFIG_BYTES are read.
 */
export function readIfPresent(file: string, options: ReadOptions = {}): Buffer | undefined {
  const maxBytes = options.maxBytes ?? MAX_CONFIG_BYTES;
  let fd: number;
  try {
    // O_NONBLOCK: opening a pipe for reading returns at once instead of waiting for a writer
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw cause;
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw Object.assign(new Error(`EISDIR: ${file} is a folder`), { code: "EISDIR" });
    if (!stat.isFile()) throw new Error(`${file} ${notRegular(stat)}; it is not read`);
    if (stat.size <= maxBytes) return readFileSync(fd);
    if (!options.head) throw new Error(`${file} is larger than ${sizeOf(maxBytes)}; it is not read`);
    const buffer = Buffer.alloc(maxBytes);
    return buffer.subarray(0, readSync(fd, buffer, 0, maxBytes, 0));
  } finally {
    closeSync(fd);
  }
}

/** What a file that is no regular file is, in a refusal. */
function notRegular(stat: Stats): string {
  if (stat.isFIFO()) return "is a named pipe (FIFO), not a regular file";
  return "is not a regular file (a device or socket)";
}

function sizeOf(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024} MiB` : `${bytes} bytes`;
}
