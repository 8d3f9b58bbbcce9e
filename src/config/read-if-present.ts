import { readFileSync } from "node:fs";

/** A file's bytes; undefined when it does not exist (other errors, a folder or no permission, are thrown). */
export function readIfPresent(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw cause;
  }
}
