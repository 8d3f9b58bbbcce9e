import path from "node:path";
import type { Origin } from "../config/provenance.js";

// `.config`: Gemini CLI's newer home folder (~/.config/gemini-cli/agents)
const HOME_CONFIG_FOLDERS = new Set([".agents", ".claude", ".gemini", ".qwen", ".config"]);

/**
 * Whose a configuration file is: the user's (their home's config folders, also when the workspace is
 * the home or lies above it) or the workspace's (anything else, and every config folder of the
 * workspace itself, also where the workspace lies inside the home's config folders: a repository
 * cloned into `~/.agents/skills/x` or `~/.claude/plugins/…` is still somebody else's).
 */
export function originOf(file: string, home: string, root: string): Origin {
  if (!HOME_CONFIG_FOLDERS.has(firstSegmentBelow(home, file) ?? "")) return "workspace";
  if (root === home) return "home";
  return HOME_CONFIG_FOLDERS.has(firstSegmentBelow(root, file) ?? "") ? "workspace" : "home";
}

/** The first folder name of `file` below `folder`, or undefined when it does not lie below it. */
function firstSegmentBelow(folder: string, file: string): string | undefined {
  const rel = path.relative(folder, file);
  if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep)[0];
}

/** A file as the user reads it in messages: workspace-relative, `~/…` in the home, else absolute. */
export function shownPath(file: string, root: string, home: string): string {
  if (originOf(file, home, root) === "home")
    return `~/${path.relative(home, file).split(path.sep).join("/")}`;
  const rel = path.relative(root, file);
  if (rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel)) return rel.split(path.sep).join("/");
  return file;
}
