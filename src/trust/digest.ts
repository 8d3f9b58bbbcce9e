import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

/** `sha256:<hex>` of a file's bytes; undefined when it cannot be read (absent, a folder, no permission). */
export function fileDigest(file: string): string | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  return digestOfContent(bytes);
}

/** `sha256:<hex>` of bytes read already. */
export function digestOfContent(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}
