import { createHash } from "node:crypto";
import { readFile, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { GrantStore } from "../policy/grants.js";
import { runGit } from "../workspace/git.js";
import { type FileSnapshot, type ReadLedger, snapshotOf } from "../workspace/read-ledger.js";
import type { WorkspaceSource } from "./checkout.js";

/**
 * What a worker that picks the session up needs besides the journal: the workspace's changes since the
 * commit (a binary git patch, only when it changed), the grants of "yes for this session" answers, and
 * the files the agent read whole (so an edit of a file it read before the move is not refused as unread).
 */
export interface SessionSnapshot {
  patch?: string;
  /** The changes grew past PATCH_LIMIT: a worker picking the session up starts from the last patch that fit. */
  patchTooLarge?: boolean;
  grants: { text: string; source: string }[];
  reads: { path: string; sha256: string }[];
}

/** Keeps a journal entry well under Restate's 32 MiB message limit. */
export const PATCH_LIMIT = 16 * 1024 * 1024;

export interface WorkspaceSync {
  /** Before the first call this attempt runs: the workspace, grants and reads as the journal left them. */
  prepare(): Promise<void>;
  /** After a call that may change things: what another worker would need. */
  snapshot(): Promise<SessionSnapshot>;
  /** A snapshot met in the journal (replayed or just recorded). */
  note(snapshot: SessionSnapshot): void;
  /** Everything noted so far, merged: what the session's next prompt starts from. */
  current(): SessionSnapshot;
  /**
   * Applies what a subagent changed in its own copy (its `end` on top of the `sent` workspace) to this
   * workspace; says why not when they cannot be applied. Grants and reads stay this session's own.
   */
  bringBack(sent: SessionSnapshot | undefined, end: SessionSnapshot): Promise<string | undefined>;
}

export interface WorkspaceSyncDeps {
  root: string;
  source: WorkspaceSource;
  grants: GrantStore;
  ledger: ListedReadLedger;
  /** A scratch file for the index a snapshot builds (never the workspace's own index). */
  scratchIndex: string;
  warn: (line: string) => void;
}

export function createWorkspaceSync(deps: WorkspaceSyncDeps): WorkspaceSync {
  let latest: SessionSnapshot = { grants: [], reads: [] };
  let prepared = false;
  return {
    async prepare() {
      if (prepared) return;
      prepared = true;
      if (deps.source.mode === "git") await restoreChanges(deps, deps.source.commit, latest.patch);
      for (const grant of latest.grants) deps.grants.add(grant.text, grant.source);
      await restoreReads(deps, latest.reads);
      if (latest.patchTooLarge)
        deps.warn(
          `the session's changes grew past ${PATCH_LIMIT} bytes; this worker continues from the last changes that fit`,
        );
    },
    async snapshot() {
      const grants = deps.grants.list().map((grant) => ({ text: grant.rule.text, source: grant.source }));
      const reads = deps.ledger
        .wholeReads()
        .map((read) => ({ ...read, path: path.relative(deps.root, read.path) }));
      if (deps.source.mode !== "git") return { grants, reads };
      const patch = await diffSinceCommit(deps, deps.source.commit);
      if (Buffer.byteLength(patch) > PATCH_LIMIT) return { grants, reads, patchTooLarge: true };
      return patch === latest.patch ? { grants, reads } : { patch, grants, reads };
    },
    note(snapshot) {
      latest = {
        grants: snapshot.grants,
        reads: snapshot.reads,
        ...(snapshot.patch !== undefined
          ? { patch: snapshot.patch }
          : latest.patch !== undefined
            ? { patch: latest.patch }
            : {}),
        ...(snapshot.patchTooLarge ? { patchTooLarge: true } : {}),
      };
    },
    current: () => latest,
    async bringBack(sent, end) {
      if (deps.source.mode !== "git" || (end.patch ?? "") === (sent?.patch ?? "")) return undefined;
      if (end.patchTooLarge)
        return `its changes grew past ${PATCH_LIMIT} bytes and were not brought back to this workspace`;
      try {
        const delta = await patchBetween(deps, deps.source.commit, sent?.patch, end.patch);
        if (delta !== "")
          await runGit(deps.root, ["apply", "--binary", "--whitespace=nowarn", "-"], { input: delta });
        return undefined;
      } catch (cause) {
        return `its changes could not be applied to this workspace (it changed since): ${(cause as Error).message}`;
      }
    },
  };
}

let scratchCount = 0;

/** The changes from one workspace state to another (both as patches on `commit`), built in a scratch index. */
async function patchBetween(
  deps: WorkspaceSyncDeps,
  commit: string,
  from: string | undefined,
  to: string | undefined,
): Promise<string> {
  const treeOf = async (patch: string | undefined) => {
    const env = { GIT_INDEX_FILE: `${deps.scratchIndex}.${++scratchCount}` };
    try {
      await runGit(deps.root, ["read-tree", commit], { env });
      if (patch) await runGit(deps.root, ["apply", "--cached", "--binary", "-"], { env, input: patch });
      return (await runGit(deps.root, ["write-tree"], { env })).trim();
    } finally {
      await rm(env.GIT_INDEX_FILE, { force: true });
    }
  };
  const [before, after] = [await treeOf(from), await treeOf(to)];
  return runGit(deps.root, ["diff", "--binary", "--no-color", "--no-ext-diff", before, after]);
}

/** Every change since `commit`, untracked files included and ignored ones not, without touching the real index. */
async function diffSinceCommit(deps: WorkspaceSyncDeps, commit: string): Promise<string> {
  const env = { GIT_INDEX_FILE: deps.scratchIndex };
  try {
    await runGit(deps.root, ["read-tree", commit], { env });
    await runGit(deps.root, ["add", "--all", "--", "."], { env });
    return await runGit(deps.root, ["diff", "--cached", "--binary", "--no-color", "--no-ext-diff", commit], {
      env,
    });
  } finally {
    await rm(deps.scratchIndex, { force: true });
  }
}

async function restoreChanges(
  deps: WorkspaceSyncDeps,
  commit: string,
  patch: string | undefined,
): Promise<void> {
  await runGit(deps.root, ["reset", "--hard", "--quiet", commit]);
  await runGit(deps.root, ["clean", "-fdq"]);
  if (patch) await runGit(deps.root, ["apply", "--binary", "--whitespace=nowarn", "-"], { input: patch });
}

/** A read counts again only where the file still holds exactly what the agent read. */
async function restoreReads(deps: WorkspaceSyncDeps, reads: SessionSnapshot["reads"]): Promise<void> {
  for (const read of reads) {
    const abs = path.join(deps.root, read.path);
    try {
      const content = await readFile(abs);
      if (createHash("sha256").update(content).digest("hex") !== read.sha256) continue;
      deps.ledger.record(abs, snapshotOf(await stat(abs), read.sha256));
    } catch {
      // gone since: an edit will ask for a fresh read, as it would locally
    }
  }
}

/** The session's read ledger, which can also list the files read whole (for snapshots). */
export interface ListedReadLedger extends ReadLedger {
  wholeReads(): { path: string; sha256: string }[];
}

export function createListedReadLedger(): ListedReadLedger {
  const snapshots = new Map<string, FileSnapshot>();
  return {
    record: (abs, snapshot) => void snapshots.set(abs, snapshot),
    get: (abs) => snapshots.get(abs),
    forget: (abs) => void snapshots.delete(abs),
    wholeReads: () =>
      [...snapshots].flatMap(([abs, snapshot]) =>
        snapshot.sha256 ? [{ path: abs, sha256: snapshot.sha256 }] : [],
      ),
  };
}
