import path from "node:path";
import type { Origin } from "../config/provenance.js";

const HOME_CONFIG_FOLDERS = new Set([".agents", ".claude", ".gemini", ".qwen"]);

/**
 * Whose a configuration file is: the user's (their home's config folders, also when the workspace is
 * the home or lies above it) or the workspace's (anything else inside it).
 */
export function originOf(file: string, home: string): Origin {
  const rel = path.relative(home, file);
  const first = rel.split(path.sep)[0] ?? "";
  return !rel.startsWith("..") && !path.isAbsolute(rel) && HOME_CONFIG_FOLDERS.has(first)
    ? "home"
    : "workspace";
}

/** A file as the user reads it in messages: workspace-relative, `~/…` in the home, else absolute. */
export function shownPath(file: string, root: string, home: string): string {
  if (originOf(file, home) === "home") return `~/${path.relative(home, file).split(path.sep).join("/")}`;
  const rel = path.relative(root, file);
  if (rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel)) return rel.split(path.sep).join("/");
  return file;
}
