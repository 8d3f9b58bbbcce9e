import { createHash } from "node:crypto";
import { readIfPresent } from "../config/read-if-present.js";

/**
 * `sha256:<hex>` of a file's bytes; undefined when it cannot be read (absent, a folder, no permission,
 * or no regular file: a named pipe is not waited on, a link to /dev/zero not read).
 */
export function fileDigest(file: string): string | undefined {
  let bytes: Buffer | undefined;
  try {
    bytes = readIfPresent(file);
  } catch {
    return undefined;
  }
  return bytes === undefined ? undefined : digestOfContent(bytes);
}

/** `sha256:<hex>` of bytes read already. */
export function digestOfContent(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}
