import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";

/** Larger than any configuration file (`~/.claude.json` holds megabytes of Claude Code's state). */
export const MAX_CONFIG_BYTES = 64 * 1024 * 1024;

/**
 * A file's bytes; undefined when it does not exist (other errors, a folder or no permission, are
 * thrown). A device or socket is refused, and at most MAX_CONFIG_BYTES are read: a repository's
 * settings file that links to /dev/zero would otherwise exhaust memory and crash the start.
 */
export function readIfPresent(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw cause;
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw Object.assign(new Error(`EISDIR: ${file} is a folder`), { code: "EISDIR" });
    if (!stat.isFile() && !stat.isFIFO())
      throw new Error(`${file} is not a regular file (a device or socket); it is not read`);
    if (stat.size > MAX_CONFIG_BYTES) throw tooLarge(file);
    return stat.isFile() ? readFileSync(fd) : readBounded(fd, file);
  } finally {
    closeSync(fd);
  }
}

/** A pipe's content, up to the cap. */
function readBounded(fd: number, file: string): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.alloc(64 * 1024);
    const read = readSync(fd, chunk, 0, chunk.length, null);
    if (read === 0) return Buffer.concat(chunks);
    total += read;
    if (total > MAX_CONFIG_BYTES) throw tooLarge(file);
    chunks.push(chunk.subarray(0, read));
  }
}

function tooLarge(file: string): Error {
  return new Error(`${file} is larger than ${MAX_CONFIG_BYTES / 1024 / 1024} MiB; it is not read`);
}
