import { lstat, readdir, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { isInside } from "../workspace/paths.js";
import type { Check } from "./rules.js";

/** Entries looked at below one folder read whole before its links count as unknown. */
const MAX_ENTRIES_FOR_LINKS = 10_000;

/** A symlink below a folder read whole that leads out of it. */
interface LinkOut {
  at: string;
  target: string;
  folder: boolean;
}

/**
 * The symlinks below `folder` that lead out of it, and out of the folders they lead to (a link to a
 * folder may hold links of its own); `complete` is false past the entry budget. `grep -R`, `rg -L`,
 * `tar -h`, `zip -r` and `find -L` read what such a link leads to as if it lay in the folder.
 */
async function linksOutOf(folder: string): Promise<{ links: LinkOut[]; complete: boolean }> {
  const links: LinkOut[] = [];
  const walked = [folder];
  const pending = [folder];
  let looked = 0;
  while (pending.length > 0) {
    const current = pending.pop() as string;
    const entries = await readdir(current, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (++looked > MAX_ENTRIES_FOR_LINKS) return { links, complete: false };
      const at = path.join(current, entry.name);
      if (entry.isDirectory()) pending.push(at);
      if (!entry.isSymbolicLink()) continue;
      const target = await realpath(at).catch(() => undefined);
      // a dangling link reads nothing; one that stays inside is read with the folder anyway
      if (target === undefined || walked.some((done) => isInside(done, target))) continue;
      const isFolder = (await stat(target).catch(() => undefined))?.isDirectory() === true;
      links.push({ at, target, folder: isFolder });
      if (isFolder) {
        walked.push(target);
        pending.push(target);
      }
    }
  }
  return { links, complete: true };
}

/**
 * A folder read whole (`grep -R x docs`, `tar -chf - docs`) reads what the links in it lead to: a
 * Read rule on a link's target holds, whichever folder a workspace's link puts it in. Only read
 * checks of an existing folder are looked into.
 */
export async function linkTargetChecks(check: Check): Promise<Check[]> {
  const value = check.value;
  if (check.tool !== "view_file" || value.type !== "path" || !value.recursive || !value.resolved) return [];
  const info = await lstat(value.resolved).catch(() => undefined);
  if (!info?.isDirectory()) return [];
  const { links, complete } = await linksOutOf(value.resolved);
  const checks: Check[] = links.map((link) => ({
    tool: check.tool,
    safety: check.safety,
    label: `${check.label} (through the link ${path.relative(value.resolved as string, link.at)} to ${link.target})`,
    value: {
      type: "path",
      named: link.at,
      resolved: link.target,
      directory: link.folder,
      ...(link.folder ? { recursive: true } : {}),
    },
    implied: true,
  }));
  if (!complete) {
    checks.push({
      tool: check.tool,
      safety: check.safety,
      label: `${check.label} (the links below it)`,
      value: { type: "path", directory: true },
      unknown: `it holds more than ${MAX_ENTRIES_FOR_LINKS} entries, so where the links in it lead is known only when the command runs`,
      implied: true,
    });
  }
  return checks;
}
