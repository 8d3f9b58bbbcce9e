import { createHash } from "node:crypto";
import { constants, type Stats } from "node:fs";
import { access, lstat, mkdir, realpath, rmdir } from "node:fs/promises";
import path from "node:path";
import { AtomicWriteRefused, writeFileAtomic } from "../../workspace/atomic-write.js";
import { fileLocks, type PathLock } from "../../workspace/path-lock.js";
import { isInside, openVerifiedFile, type ResolvedPath } from "../../workspace/paths.js";
import { protectedTargetOf } from "../../workspace/protected.js";
import type { ReadLedger } from "../../workspace/read-ledger.js";
import type { Workspace } from "../../workspace/workspace.js";
import { errorResult, type ToolResult } from "../contract.js";
import type { EditorFiles, ToolEnvironment } from "../environment.js";
import { type ChangeSummary, describeChange } from "./edit-diff.js";
import { conformText, type DecodedText, decodeText, encodeText } from "./edit-text.js";

/** What the edit tools need from the session (narrow, so tests can build it). */
export interface EditDeps {
  workspace: Workspace;
  reads: ReadLedger;
  allowAgentConfigEdits: boolean;
  requireReadBeforeEdit: boolean;
  locks: PathLock;
  /** An editor that takes the new text of each edited file (ACP `fs/write_text_file`). */
  editor?: EditorFiles;
}

export function editDepsOf(env: ToolEnvironment): EditDeps {
  return {
    workspace: env.workspace,
    reads: env.reads,
    allowAgentConfigEdits: env.settings.allowAgentConfigEdits === true,
    requireReadBeforeEdit: env.requireReadBeforeEdit !== false,
    locks: fileLocks,
    ...(env.editorFiles?.writeText ? { editor: env.editorFiles } : {}),
  };
}

/** A step that either yields a value or ends the call with a result. */
export type Step<T> = { ok: true; value: T } | { ok: false; result: ToolResult };

const fail = (result: ToolResult): { ok: false; result: ToolResult } => ({ ok: false, result });

/** Resolves a path the model gave for writing: containment, secrets, and the agent's own config files. */
export async function resolveWriteTarget(deps: EditDeps, input: string): Promise<Step<ResolvedPath>> {
  const resolved = await deps.workspace.resolve(input);
  if (!resolved.ok) return fail(errorResult(resolved.error.code, resolved.error.message));
  if (!deps.allowAgentConfigEdits) {
    const name = await protectedTargetOf(
      deps.workspace.root,
      input,
      resolved.path.abs,
      deps.workspace.protectedPaths,
    );
    if (name !== undefined) {
      return fail(
        errorResult(
          "protected_path",
          `"${input}" is ${name}, a file that governs the agent (hooks, settings, agent definitions, or a ` +
            `script a hook runs); the agent's own tools may not create or change it. Ask the user to edit it, ` +
            `or to set "allowAgentConfigEdits": true in ~/.agents/settings.json.`,
          { path: resolved.path.rel },
        ),
      );
    }
  }
  return { ok: true, value: resolved.path };
}

/** An existing text file, read whole under the file's lock (its raw bytes are let go once decoded). */
export interface LoadedFile {
  resolved: ResolvedPath;
  stats: Stats;
  sha256: string;
  decoded: DecodedText;
}

/** Opens, size-checks, reads, checks freshness against what the agent read, and decodes a text file. */
export async function loadTextFile(deps: EditDeps, resolved: ResolvedPath): Promise<Step<LoadedFile>> {
  const opened = await openVerifiedFile(deps.workspace.root, resolved);
  if (!opened.ok) {
    const hint = opened.error.code === "not_found" ? " To create it, use write_to_file." : "";
    return fail(errorResult(opened.error.code, `${opened.error.message}${hint}`, { path: resolved.rel }));
  }
  const { handle, stats } = opened;
  let bytes: Buffer;
  try {
    const limit = deps.workspace.limits.maxFileBytes;
    if (stats.size > limit) {
      return fail(
        errorResult(
          "too_large",
          `"${resolved.rel}" is ${stats.size} bytes, over the edit limit of ${limit} bytes (limits.maxFileBytes).`,
          { path: resolved.rel, bytes: stats.size },
        ),
      );
    }
    // a rename would replace even a read-only file; honour the read-only mark as a plain write would
    if (!(await isWritable(resolved.abs, stats))) {
      return fail(
        errorResult(
          "denied",
          `"${resolved.rel}" is read-only (mode ${(stats.mode & 0o777).toString(8)}); refused. Ask the user to make it writable if it should change.`,
          { path: resolved.rel },
        ),
      );
    }
    bytes = await handle.readFile();
  } finally {
    await handle.close();
  }
  const decoded = decodeText(bytes);
  if (!decoded.ok) {
    return fail(
      errorResult("binary_file", `"${resolved.rel}" cannot be edited as text: ${decoded.reason}.`, {
        path: resolved.rel,
      }),
    );
  }
  const sha256 = sha256Of(bytes);
  const stale = checkFreshness(deps, resolved, stats, sha256);
  if (stale) return fail(stale);
  return { ok: true, value: { resolved, stats, sha256, decoded: decoded.decoded } };
}

/**
 * Edits are made against what the agent has seen (SPEC §3). When the whole file was read, its content
 * hash decides (a `touch` is no change); after a partial read, size, mtime and inode must all match.
 */
function checkFreshness(
  deps: EditDeps,
  resolved: ResolvedPath,
  stats: Stats,
  sha256: string,
): ToolResult | undefined {
  const seen = deps.reads.get(resolved.abs);
  if (!seen) {
    if (!deps.requireReadBeforeEdit) return undefined;
    return errorResult(
      "stale_file",
      `You have not read "${resolved.rel}" in this session. View it with view_file first, then make the edit ` +
        "against what you saw.",
      { path: resolved.rel, reason: "not_read" },
    );
  }
  const unchanged =
    seen.sha256 !== undefined
      ? seen.sha256 === sha256
      : seen.size === stats.size && seen.mtimeMs === stats.mtimeMs && seen.ino === stats.ino;
  if (unchanged) return undefined;
  return errorResult(
    "stale_file",
    `"${resolved.rel}" changed on disk since you last read it (someone or something else edited it). ` +
      "View it again with view_file, then redo the edit against its current content.",
    { path: resolved.rel, reason: "changed" },
  );
}

async function isWritable(abs: string, stats: Stats): Promise<boolean> {
  if ((stats.mode & 0o222) === 0) return false;
  return access(abs, constants.W_OK).then(
    () => true,
    () => false,
  );
}

export function sha256Of(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Runs `work` holding the lock of one real path, so parallel edits of a file take turns. */
export function underFileLock<T>(deps: EditDeps, resolved: ResolvedPath, work: () => Promise<T>): Promise<T> {
  return deps.locks.withLock(resolved.abs, work);
}

export interface CommitRequest {
  resolved: ResolvedPath;
  /** The file as read; absent when creating a new file. */
  previous?: LoadedFile;
  bytes: Buffer;
  /** Texts for the diff (LF form for LF and CRLF files). */
  beforeText: string;
  afterText: string;
  signal: AbortSignal;
}

export interface Committed {
  stats: Stats;
  change: ChangeSummary;
  /** The old file had other hard links; they keep the old content (the edit replaced this name only). */
  hardlinkDetached: boolean;
  /** What the editor did with the new text, where one takes it (`failed: …`: the file on disk has it anyway). */
  editor?: string;
}

class ChangedBeforeCommit extends Error {}

/** Writes atomically, refusing if the file changed since it was loaded; records what the agent now knows. */
export async function commitFile(deps: EditDeps, request: CommitRequest): Promise<Step<Committed>> {
  const { resolved, previous, bytes } = request;
  const limit = deps.workspace.limits.maxFileBytes;
  if (bytes.length > limit) {
    return fail(
      errorResult(
        "too_large",
        `The new content of "${resolved.rel}" would be ${bytes.length} bytes, over the limit of ${limit} bytes (limits.maxFileBytes); nothing was written.`,
        { path: resolved.rel, bytes: bytes.length },
      ),
    );
  }
  if (request.signal.aborted)
    return fail(errorResult("aborted", "The edit was aborted; nothing was written."));
  let stats: Stats;
  try {
    stats = await writeFileAtomic(resolved.abs, bytes, {
      root: deps.workspace.root,
      mode: previous?.stats.mode,
      owner: previous ? { uid: previous.stats.uid, gid: previous.stats.gid } : undefined,
      overwrite: previous !== undefined,
      beforeCommit: previous ? () => assertUnchanged(resolved.abs, previous.stats) : undefined,
    });
  } catch (cause) {
    return fail(commitFailure(resolved, cause));
  }
  deps.reads.record(resolved.abs, {
    size: bytes.length,
    mtimeMs: stats.mtimeMs,
    ino: stats.ino,
    sha256: sha256Of(bytes),
  });
  return {
    ok: true,
    value: {
      stats,
      change: await describeChange(
        resolved.rel,
        request.beforeText,
        request.afterText,
        previous === undefined,
      ),
      hardlinkDetached: (previous?.stats.nlink ?? 1) > 1,
      ...(deps.editor
        ? { editor: await handToEditor(deps.editor, resolved.abs, bytes, request.signal) }
        : {}),
    },
  };
}

/**
 * The file is on disk, written atomically by Gantry; the editor then gets the same text, so its buffer
 * shows the edit (it saves the same bytes again). Freshness is judged by content, so that second save
 * does not make the file look changed. Text that is not UTF-8 (a UTF-16 file) stays on disk only.
 */
async function handToEditor(
  editor: EditorFiles,
  abs: string,
  bytes: Buffer,
  signal: AbortSignal,
): Promise<"updated" | "not_utf8" | `failed: ${string}`> {
  const text = bytes.toString("utf8");
  if (!Buffer.from(text, "utf8").equals(bytes) || !editor.writeText) return "not_utf8";
  try {
    await editor.writeText(abs, text, signal);
    return "updated";
  } catch (cause) {
    return `failed: ${cause instanceof Error ? cause.message : String(cause)}`;
  }
}

/**
 * Writes new text over a file loaded under the lock, in the file's own conventions (line endings, BOM,
 * final newline); the one step every edit of an existing file ends with.
 */
export async function rewriteLoadedFile(
  deps: EditDeps,
  resolved: ResolvedPath,
  file: LoadedFile,
  text: string,
  signal: AbortSignal,
): Promise<Step<Committed & { bytesWritten: number }>> {
  const afterText = conformText(text, file.decoded);
  const bytes = encodeText(afterText, file.decoded);
  const committed = await commitFile(deps, {
    resolved,
    previous: file,
    bytes,
    beforeText: file.decoded.text,
    afterText,
    signal,
  });
  return committed.ok ? { ok: true, value: { ...committed.value, bytesWritten: bytes.length } } : committed;
}

/** The other side of the lock: a program outside this process may still have written meanwhile. */
async function assertUnchanged(abs: string, read: Stats): Promise<void> {
  const now = await lstat(abs).catch(() => undefined);
  if (!now || now.ino !== read.ino || now.size !== read.size || now.mtimeMs !== read.mtimeMs) {
    throw new ChangedBeforeCommit();
  }
}

function commitFailure(resolved: ResolvedPath, cause: unknown): ToolResult {
  const meta = { path: resolved.rel };
  if (cause instanceof ChangedBeforeCommit) {
    return errorResult(
      "stale_file",
      `"${resolved.rel}" was changed by another program while the edit was being made; nothing was written. View it again and redo the edit.`,
      { ...meta, reason: "changed" },
    );
  }
  if (cause instanceof AtomicWriteRefused) return errorResult("outside_workspace", `${cause.message}.`, meta);
  const code = (cause as NodeJS.ErrnoException).code;
  if (code === "EEXIST") {
    return errorResult(
      "conflict",
      `"${resolved.rel}" was created by someone else meanwhile; nothing was written. View it, then decide whether to overwrite it.`,
      meta,
    );
  }
  return errorResult(
    "execution_failed",
    `Writing "${resolved.rel}" failed (${(cause as Error).message}); the file is unchanged.`,
    meta,
  );
}

/**
 * Creates the missing folders above a new file one by one, and proves after each mkdir that the folder
 * is really where it was meant to be (a race could have put a symlink there). On failure the folders it
 * made are removed again.
 */
export async function createParentFolders(deps: EditDeps, resolved: ResolvedPath): Promise<Step<string[]>> {
  const root = deps.workspace.root;
  const missing: string[] = [];
  let folder = path.dirname(resolved.abs);
  while (!(await exists(folder))) {
    missing.unshift(folder);
    folder = path.dirname(folder);
  }
  const created: string[] = [];
  const undo = async (result: ToolResult) => {
    await removeCreatedFolders(deps, created);
    return fail(result);
  };
  for (const dir of [folder, ...missing]) {
    if (dir !== folder) {
      try {
        await mkdir(dir);
        created.push(deps.workspace.relative(dir));
      } catch (cause) {
        const code = (cause as NodeJS.ErrnoException).code;
        if (code !== "EEXIST") {
          return undo(
            errorResult(
              "execution_failed",
              `Creating the folder "${deps.workspace.relative(dir)}" for "${resolved.rel}" failed (${(cause as Error).message}); nothing was written.`,
              { path: resolved.rel },
            ),
          );
        }
      }
    }
    const real = await realpath(dir).catch(() => undefined);
    if (real !== dir || !isInside(root, real)) {
      return undo(
        errorResult(
          "outside_workspace",
          `The folder "${deps.workspace.relative(dir)}" changed while "${resolved.rel}" was being created (a symlink?); nothing was written.`,
          { path: resolved.rel },
        ),
      );
    }
  }
  return { ok: true, value: created };
}

/** Removes folders a failed write created (workspace-relative, outermost first), deepest first; a folder something else filled stays. */
export async function removeCreatedFolders(deps: EditDeps, created: readonly string[]): Promise<void> {
  for (const rel of [...created].reverse()) {
    await rmdir(path.join(deps.workspace.root, rel)).catch(() => undefined);
  }
}

async function exists(target: string): Promise<boolean> {
  return lstat(target).then(
    () => true,
    () => false,
  );
}

/** The metadata every edit result carries. */
export function editMetadata(resolved: ResolvedPath, committed: Committed, bytesWritten: number) {
  const { change } = committed;
  return {
    path: resolved.rel,
    diff: change.diff,
    linesAdded: change.linesAdded,
    linesRemoved: change.linesRemoved,
    bytesWritten,
    ...(change.diffTruncated ? { diffTruncated: true } : {}),
    ...(change.diffOmitted ? { diffOmitted: true } : {}),
    ...(committed.hardlinkDetached ? { hardlinkDetached: true } : {}),
    ...(committed.editor ? { editor: committed.editor } : {}),
  };
}

/** A short account of an edit for the model: the change and, when small, its diff. */
export function editSummaryText(headline: string, committed: Committed): string {
  const { change } = committed;
  const counts = `(+${change.linesAdded} −${change.linesRemoved})`;
  const links = committed.hardlinkDetached
    ? "\nThe file had other hard links; they keep the old content (only this name was replaced)."
    : "";
  const diff = change.diff.length > 0 && change.diff.length <= 4_000 ? `\n${change.diff}` : "";
  return `${headline} ${counts}.${links}${diff}`;
}
