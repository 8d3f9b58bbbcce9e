import { closeSync, type Dirent, lstatSync, readdirSync } from "node:fs";
import path from "node:path";
import { HAS_PROC_FD, openVerifiedSync } from "../../workspace/paths.js";

/**
 * One folder's files and folders, as the walk takes them: folder names end in "/" (no name holds a
 * "/"); symlinks, FIFOs, sockets and devices are left out (a linked .gitignore is only marked, see
 * LINKED_GITIGNORE). The same list whether the calling thread or a walk worker read it.
 */
export type FolderListing = string[];

/**
 * In a listing, a `.gitignore` that is no regular file (a symlink): never an entry of the walk, but its
 * rules apply as ripgrep applies them (it reads the file through the link). No name starts with "/".
 */
export const LINKED_GITIGNORE = "/.gitignore";

/**
 * A folder's entries, read through a descriptor verified to be that folder: a parent swapped for a
 * symlink after it was listed (a race against the walk) would otherwise lead outside the workspace.
 * undefined when the folder is unreadable, vanished, or no longer the folder the walk found.
 */
export function listFolder(abs: string): FolderListing | undefined {
  const fd = openVerifiedSync(abs, "folder");
  if (fd === undefined) return undefined;
  let entries: Dirent[];
  try {
    entries = readdirSync(HAS_PROC_FD ? `/proc/self/fd/${fd}` : abs, { withFileTypes: true });
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
  const listing: FolderListing = [];
  for (const entry of entries) {
    const kind = entryKind(entry, abs);
    if (kind !== "other") listing.push(kind === "dir" ? `${entry.name}/` : entry.name);
    else if (entry.name === ".gitignore") listing.push(LINKED_GITIGNORE);
  }
  return listing;
}

/** Symlinks are never followed (as ripgrep and fd do by default); FIFOs, sockets and devices are skipped. */
function entryKind(entry: Dirent, folderAbs: string): "file" | "dir" | "other" {
  if (entry.isFile()) return "file";
  if (entry.isDirectory()) return "dir";
  if (entry.isSymbolicLink() || entry.isFIFO() || entry.isSocket()) return "other";
  if (entry.isBlockDevice() || entry.isCharacterDevice()) return "other";
  // a file system that reports no type (DT_UNKNOWN)
  try {
    const stats = lstatSync(path.join(folderAbs, entry.name));
    return stats.isFile() ? "file" : stats.isDirectory() ? "dir" : "other";
  } catch {
    return "other";
  }
}
