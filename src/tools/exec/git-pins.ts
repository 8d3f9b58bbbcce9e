import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * A git folder without a `commondir` is its own common folder. A command that writes one points git at
 * a config it wrote, and a read-only stand-in cannot stop it (git dies reading an empty or unreadable
 * `commondir`), so while sandboxed commands run each absent one holds ".": git reads the folder itself,
 * as without the file, and the sandbox keeps the file read-only. Counted per file: sessions share them.
 */
const pinned = new Map<string, number>();
const NEUTRAL_COMMON_DIR = ".\n";

/**
 * Puts the neutral `commondir` in place of each absent one among `paths` that lies in `writable`
 * folders (elsewhere the sandbox cannot write anyway); the returned function removes them again once no
 * sandboxed command needs them.
 */
export function pinCommonDirs(paths: readonly string[], writable: readonly string[]): () => void {
  const mine: string[] = [];
  for (const file of paths) {
    if (path.basename(file) !== "commondir" || !writable.some((folder) => isBelow(folder, file))) continue;
    const count = pinned.get(file);
    if (count !== undefined) {
      pinned.set(file, count + 1);
      mine.push(file);
      continue;
    }
    try {
      writeFileSync(file, NEUTRAL_COMMON_DIR, { flag: "wx" });
      pinned.set(file, 1);
      mine.push(file);
    } catch {
      // it exists (a linked worktree's): the sandbox keeps it read-only as it is
    }
  }
  return () => {
    for (const file of mine.splice(0)) {
      const left = (pinned.get(file) ?? 1) - 1;
      if (left > 0) pinned.set(file, left);
      else {
        pinned.delete(file);
        rmSync(file, { force: true });
      }
    }
  };
}

function isBelow(folder: string, abs: string): boolean {
  const rel = path.relative(folder, abs);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel);
}
