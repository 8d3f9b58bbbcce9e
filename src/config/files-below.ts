import { type Dirent, readdirSync, type Stats, statSync } from "node:fs";
import path from "node:path";

/**
 * The files of a config folder whose names match, its subfolders too (`.claude/agents/team/validator.md`,
 * `.gemini/commands/git/commit.toml`) up to `maxDepth` levels, in name order. Folders are walked as they
 * are, never through a symlink (it could lead anywhere); a symlinked file counts when it is a file.
 * A name that is no file nor folder (a named pipe, a link to a device) is listed too, for its reader to
 * refuse by name (src/config/read-if-present.ts) rather than pass over in silence.
 */
export function filesBelow(folder: string, name: RegExp, maxDepth = 4, depth = 0): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory() && depth < maxDepth) files.push(...filesBelow(full, name, maxDepth, depth + 1));
    else if (name.test(entry.name) && isListed(statSync(full, { throwIfNoEntry: false }))) files.push(full);
  }
  return files;
}

/** Anything there but a folder (a folder too deep is not walked, nor listed). */
function isListed(stat: Stats | undefined): boolean {
  return stat !== undefined && !stat.isDirectory();
}
