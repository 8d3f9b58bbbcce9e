import type { Dirent } from "node:fs";
import { lstat, readdir, readlink } from "node:fs/promises";
import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";
import { withReadRules } from "../../policy/read-visibility.js";
import { isAtomicTempName } from "../../workspace/atomic-write.js";
import { openVerifiedDirectory } from "../../workspace/paths.js";
import type { Workspace } from "../../workspace/workspace.js";
import { defineTool, errorResult, okResult } from "../contract.js";
import type { ToolEnvironment } from "../environment.js";
import { nextCall, offsetArgument } from "../paging.js";

const ListDirParameters = lazySchema(() =>
  z.object({
    DirectoryPath: z
      .string()
      .describe(
        'The folder to list: an absolute path inside the workspace, or a path relative to its root ("." is the root).',
      ),
    Offset: offsetArgument(
      "Entries to skip, in the listing's order (folders first, then files); for the next part of a long listing.",
    ),
  }),
);

type ListDirArgs = z.infer<ReturnType<typeof ListDirParameters>>;

/** Room kept for the closing lines when the listing itself is cut by the output limit. */
const CLOSING_RESERVE = 300;

/** `list_dir`: one folder's entries, folders first, with sizes; secret entries and .git hidden. */
export function createListDirTool(env: ToolEnvironment) {
  const { workspace } = env;
  return defineTool({
    spec: {
      name: "list_dir",
      description:
        "List the entries of one workspace folder: folders (marked with a trailing /) first, then files with their sizes; symlinks are marked with @ and their target. Secret files (.env, keys) and .git are hidden. A long listing comes in parts: its last line gives the call (with Offset) for the next part; use find_by_name to search deeper.",
      parameters: ListDirParameters,
      safety: "read_only",
      group: "Read",
      aliases: ["list_files", "ls"],
    },
    async execute(args, ctx) {
      const resolved = await workspace.resolve(args.DirectoryPath);
      if (!resolved.ok) return errorResult(resolved.error.code, resolved.error.message);
      if (!resolved.path.exists) return errorResult("not_found", `"${args.DirectoryPath}" does not exist.`);
      const opened = await openVerifiedDirectory(workspace.root, resolved.path);
      if (!opened.ok) return errorResult(opened.error.code, opened.error.message);
      const rel = resolved.path.rel;
      try {
        const all = await readdir(opened.path, { withFileTypes: true });
        ctx.signal.throwIfAborted();
        // a write in progress (or one a crash cut short) is not an entry of the folder
        const entries = all.filter((entry) => !isAtomicTempName(entry.name));
        const readable = withReadRules(env.permissions, "list_dir", workspace.secrets);
        const visible = entries.filter((entry) => !readable.guard.isSecret(joinRel(rel, entry.name)));
        visible.sort(foldersFirstByName);
        const offset = args.Offset ?? 0;
        const { lines, shown } = await describeEntries(visible.slice(offset), opened.path, rel, workspace);
        const hidden = entries.length - visible.length;
        const page = { offset, shown, total: visible.length };
        return okResult(listingText(lines, page, { hidden, byRules: readable.hidesByRules }, args), {
          path: rel || ".",
          entries: visible.length,
          offset,
          shown,
          hidden,
          truncated: offset + shown < visible.length,
        });
      } finally {
        await opened.handle.close();
      }
    },
  });
}

function joinRel(folder: string, name: string): string {
  return folder === "" ? name : `${folder}/${name}`;
}

function foldersFirstByName(a: Dirent, b: Dirent): number {
  const folderOrder = Number(b.isDirectory()) - Number(a.isDirectory());
  if (folderOrder !== 0) return folderOrder;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Describes entries in order until the entry cap or the output limit; stats only what is shown. */
async function describeEntries(entries: Dirent[], openedPath: string, rel: string, workspace: Workspace) {
  const { maxDirEntries, maxOutputChars } = workspace.limits;
  const budget = Math.max(maxOutputChars - CLOSING_RESERVE, Math.floor(maxOutputChars / 2));
  const candidates = entries.slice(0, maxDirEntries);
  const described = await Promise.all(
    candidates.map((entry) => describeEntry(entry, openedPath, rel, workspace)),
  );
  const lines: string[] = [];
  let used = 0;
  for (const line of described) {
    if (used + line.length + 1 > budget) break;
    lines.push(line);
    used += line.length + 1;
  }
  return { lines, shown: lines.length };
}

async function describeEntry(entry: Dirent, openedPath: string, rel: string, workspace: Workspace) {
  if (entry.isDirectory()) return `${entry.name}/`;
  // stat through the opened folder's descriptor path, never through the name again
  const stats = await lstat(`${openedPath}/${entry.name}`).catch(() => undefined);
  if (!stats) return `${entry.name} (vanished while listed)`;
  if (stats.isFile()) return `${entry.name} (${formatSize(stats.size)})`;
  if (stats.isDirectory()) return `${entry.name}/`;
  if (stats.isSymbolicLink())
    return `${entry.name}@ -> ${await describeLink(entry.name, openedPath, rel, workspace)}`;
  if (stats.isFIFO()) return `${entry.name} (FIFO)`;
  if (stats.isSocket()) return `${entry.name} (socket)`;
  return `${entry.name} (device)`;
}

async function describeLink(name: string, openedPath: string, rel: string, workspace: Workspace) {
  const target = await readlink(`${openedPath}/${name}`).catch(() => "?");
  const resolved = await workspace.resolve(joinRel(rel, name));
  if (resolved.ok) {
    const kind = await lstat(resolved.path.abs).catch(() => undefined);
    return kind?.isDirectory() ? `${target} (folder)` : target;
  }
  const why: Record<string, string> = {
    outside_workspace: "outside the workspace",
    secret_path: "a secret file",
    invalid_path: "broken",
  };
  return `${target} (${why[resolved.error.code] ?? "not readable"})`;
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

function listingText(
  lines: string[],
  page: { offset: number; shown: number; total: number },
  { hidden, byRules }: { hidden: number; byRules: boolean },
  args: ListDirArgs,
): string {
  const { offset, shown, total } = page;
  const out =
    total === 0
      ? [hidden > 0 ? "[no entries to show]" : "[empty folder]"]
      : offset >= total
        ? [`[no more entries: the folder has ${total}, and Offset ${offset} skips them all]`]
        : [...lines];
  if (hidden > 0) {
    const what = byRules
      ? "secret files, .git and paths permission rules keep from reads"
      : "secret files and .git";
    out.push(`[${hidden} ${hidden === 1 ? "entry" : "entries"} hidden: ${what} are not listed]`);
  }
  if (offset + shown < total) {
    out.push(
      `[truncated: entries ${offset + 1}-${offset + shown} of ${total} shown; ${total - offset - shown} left out. ${nextCall(args, offset + shown)}]`,
    );
  }
  return out.join("\n");
}
