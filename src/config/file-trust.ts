import type { FileTrust, WorkspaceTrust } from "../trust/workspace-trust.js";
import type { Origin } from "./provenance.js";

/** The user's own file always counts; a workspace file as trust judges the bytes read (none read: it cannot). */
export function fileTrust(
  file: string,
  origin: Origin,
  trust: WorkspaceTrust,
  bytes: Buffer | undefined,
): FileTrust {
  if (origin !== "workspace") return { trusted: true };
  if (bytes === undefined)
    return { trusted: false, state: "changed", why: "it cannot be read, so trust cannot cover it" };
  return trust.file(file, bytes);
}
