import type { Settings } from "../../config/settings.js";
import { statOf } from "../../workspace/open-file.js";
import type { Workspace } from "../../workspace/workspace.js";
import { errorResult, type ToolResult } from "../contract.js";
import { checkSearchRoot, type IgnoreChain } from "./ignore.js";

export type SearchRoot =
  | {
      ok: true;
      /** Workspace-relative ("" = the root). */
      rel: string;
      isDir: boolean;
      /** .gitignore rules of the folders above it, and the folders that hold them. */
      chain: IgnoreChain | undefined;
      gitignoreFolders: string[];
    }
  | { ok: false; result: ToolResult };

/**
 * Resolves a search folder through the workspace guard (containment, symlinks, secrets) and refuses
 * one inside a skipped or .gitignored folder (seed 001: a search rooted at .git or build is refused).
 */
export async function resolveSearchRoot(
  workspace: Workspace,
  input: string,
  accepts: "directory" | "file_or_directory",
): Promise<SearchRoot> {
  const resolved = await workspace.resolve(input.trim() === "" ? "." : input);
  if (!resolved.ok) return { ok: false, result: errorResult(resolved.error.code, resolved.error.message) };
  if (!resolved.path.exists) {
    return { ok: false, result: errorResult("not_found", `"${input}" does not exist in the workspace.`) };
  }
  const stats = await statOf(resolved.path.abs);
  const isDir = stats.isDirectory();
  if (!isDir && !stats.isFile()) {
    // a FIFO, socket or device: never opened, it could block the call
    const what = stats.isFIFO() ? "a FIFO" : stats.isSocket() ? "a socket" : "a device";
    const wanted = accepts === "directory" ? "a folder" : "a file or a folder";
    return {
      ok: false,
      result: errorResult(
        "special_file",
        `"${input}" is ${what}, not a file or folder; give ${wanted} to search in.`,
      ),
    };
  }
  if (!isDir && accepts === "directory") {
    return {
      ok: false,
      result: errorResult("not_a_directory", `"${input}" is not a folder; give a folder to search in.`),
    };
  }
  const check = checkSearchRoot(workspace.root, resolved.path.rel, isDir);
  if (!check.ok) {
    return {
      ok: false,
      result: errorResult(
        "ignored_path",
        `Refusing to search "${input}": ${check.reason}. Search a folder that is not ignored.`,
      ),
    };
  }
  return {
    ok: true,
    rel: resolved.path.rel,
    isDir,
    chain: check.chain,
    gitignoreFolders: check.gitignoreFolders,
  };
}

export type SearchEngineChoice = "auto" | "ripgrep" | "node";

/** GANTRY_SEARCH_ENGINE wins over settings `search.engine`; "auto" uses ripgrep when it is on PATH. */
export function searchEngineSetting(settings: Settings): SearchEngineChoice {
  const fromEnv = process.env.GANTRY_SEARCH_ENGINE;
  if (fromEnv === "node" || fromEnv === "ripgrep" || fromEnv === "auto") return fromEnv;
  return settings.search?.engine ?? "auto";
}
