import type { Stats } from "node:fs";
import { lstat, readlink, unlink } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";
import { isInside, openVerifiedFile, type ResolvedPath } from "../../workspace/paths.js";
import { protectedTargetOf } from "../../workspace/protected.js";
import { defineTool, errorResult, okResult, type ToolResult } from "../contract.js";
import type { ToolEnvironment } from "../environment.js";
import { describeChange } from "./edit-diff.js";
import { type EditDeps, editDepsOf, resolveWriteTarget, sha256Of, underFileLock } from "./edit-flow.js";
import { decodeText } from "./edit-text.js";

export const deleteFileParameters = lazySchema(() =>
  z.object({
    TargetFile: z.string().describe("The file to delete: a path inside the workspace. Folders are refused."),
  }),
);

/**
 * delete_file (seed 002's remote set): removes one file, or one symlink (never what it points to).
 * No earlier read is needed, but a file the agent did read must not have changed since.
 */
export function createDeleteFileTool(env: ToolEnvironment) {
  const deps = editDepsOf(env);
  return defineTool({
    spec: {
      name: "delete_file",
      description:
        "Delete one file inside the workspace. Folders are refused; a symlink is removed itself, its target is left alone.",
      parameters: deleteFileParameters,
      safety: "write",
      group: "Edit",
    },
    async execute(args) {
      const entry = await resolveEntry(deps, args.TargetFile);
      if (!entry.ok) return entry.result;
      return underFileLock(deps, entry.value, () => deleteEntry(deps, entry.value));
    },
  });
}

/**
 * The directory entry the name points at, not what a symlink there points to: the folder is resolved
 * (containment, symlinks above), the last component is kept as named.
 */
async function resolveEntry(
  deps: EditDeps,
  input: string,
): Promise<{ ok: true; value: ResolvedPath } | { ok: false; result: ToolResult }> {
  const { root, secrets } = deps.workspace;
  const named = path.resolve(root, input);
  if (named === root) {
    return {
      ok: false,
      result: errorResult("not_a_file", `"${input}" is the workspace folder itself; refused.`),
    };
  }
  const folder = await deps.workspace.resolve(path.dirname(named));
  if (!folder.ok) return { ok: false, result: errorResult(folder.error.code, folder.error.message) };
  const abs = path.join(folder.path.abs, path.basename(named));
  const rel = deps.workspace.relative(abs);
  if (!isInside(root, abs) || secrets.isSecret(rel) || secrets.isSecret(deps.workspace.relative(named))) {
    const guarded = await resolveWriteTarget(deps, input);
    if (!guarded.ok) return guarded;
    return { ok: false, result: errorResult("secret_path", `"${input}" is a secret file; refused.`) };
  }
  const entry = await lstat(abs).catch(() => undefined);
  if (entry?.isSymbolicLink()) {
    // only the link goes; it still may not be the name a protected config file is read by
    if (
      !deps.allowAgentConfigEdits &&
      (await protectedTargetOf(root, input, abs, deps.workspace.protectedPaths)) !== undefined
    ) {
      return {
        ok: false,
        result: errorResult("protected_path", `"${input}" is a file that governs the agent; refused.`),
      };
    }
  } else {
    const guarded = await resolveWriteTarget(deps, input);
    if (!guarded.ok) return guarded;
  }
  return { ok: true, value: { abs, rel, exists: entry !== undefined } };
}

async function deleteEntry(deps: EditDeps, entry: ResolvedPath): Promise<ToolResult> {
  const stats = await lstat(entry.abs).catch(() => undefined);
  if (!stats) return errorResult("not_found", `"${entry.rel}" does not exist.`, { path: entry.rel });
  if (stats.isDirectory()) {
    return errorResult("not_a_file", `"${entry.rel}" is a folder; delete_file removes files only.`, {
      path: entry.rel,
    });
  }
  if (stats.isSymbolicLink()) {
    const target = await readlink(entry.abs);
    await unlink(entry.abs);
    deps.reads.forget(entry.abs);
    return okResult(`Deleted the symlink ${entry.rel} (its target ${target} is untouched).`, {
      path: entry.rel,
      symlink: true,
      linkTarget: target,
      linesRemoved: 0,
      diff: "",
    });
  }
  if (!stats.isFile()) {
    return errorResult("special_file", `"${entry.rel}" is not a regular file; refused.`, { path: entry.rel });
  }
  const content = await readForCheck(deps, entry, stats);
  if (!content.ok) return content.result;
  await unlink(entry.abs);
  deps.reads.forget(entry.abs);
  const change = content.text !== undefined ? await describeChange(entry.rel, content.text, "") : undefined;
  return okResult(`Deleted ${entry.rel} (${stats.size} bytes).`, {
    path: entry.rel,
    bytesDeleted: stats.size,
    linesRemoved: change?.linesRemoved ?? 0,
    diff: change?.diff ?? "",
  });
}

/** Reads a file before deletion: for the stale check against the agent's last read, and for the diff. */
async function readForCheck(
  deps: EditDeps,
  entry: ResolvedPath,
  stats: Stats,
): Promise<{ ok: true; text?: string } | { ok: false; result: ToolResult }> {
  const seen = deps.reads.get(entry.abs);
  if (stats.size > deps.workspace.limits.maxFileBytes) {
    const same =
      !seen || (seen.size === stats.size && seen.mtimeMs === stats.mtimeMs && seen.ino === stats.ino);
    return same ? { ok: true } : { ok: false, result: staleResult(entry) };
  }
  const opened = await openVerifiedFile(deps.workspace.root, entry);
  if (!opened.ok) return { ok: false, result: errorResult(opened.error.code, opened.error.message) };
  let bytes: Buffer;
  try {
    bytes = await opened.handle.readFile();
  } finally {
    await opened.handle.close();
  }
  if (seen) {
    const same =
      seen.sha256 !== undefined
        ? seen.sha256 === sha256Of(bytes)
        : seen.size === stats.size && seen.mtimeMs === stats.mtimeMs && seen.ino === stats.ino;
    if (!same) return { ok: false, result: staleResult(entry) };
  }
  const decoded = decodeText(bytes);
  return { ok: true, text: decoded.ok ? decoded.decoded.text : undefined };
}

function staleResult(entry: ResolvedPath): ToolResult {
  return errorResult(
    "stale_file",
    `"${entry.rel}" changed on disk since you last read it; view it again before deleting it.`,
    { path: entry.rel, reason: "changed" },
  );
}
