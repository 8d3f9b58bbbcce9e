import { realpathSync } from "node:fs";
import { type GlobalOptions, UsageError } from "../options.js";

/** Real path of `--workspace` (default: the current folder); a missing folder is a usage error. */
export function workspaceRootOf(options: GlobalOptions): string {
  const folder = options.workspace ?? process.cwd();
  try {
    return realpathSync(folder);
  } catch {
    throw new UsageError(`workspace folder "${folder}" does not exist`);
  }
}
