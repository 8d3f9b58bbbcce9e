import path from "node:path";
import { HOW_TO_TRUST } from "../config/provenance.js";
import { digestOfContent, fileDigest } from "./digest.js";
import { type FolderRecord, openTrustStore, type TrustStore } from "./store.js";

/** Whether trust covers a workspace file as it is now, and why not. */
export type FileTrust =
  | { trusted: true; digest?: string }
  | { trusted: false; state: "untrusted" | "never" | "changed" | "new"; why: string };

/** One session's trust decision for its workspace (SPEC §5a), judged file by file against what was approved. */
export interface WorkspaceTrust {
  /** Real path of the workspace. */
  readonly root: string;
  readonly decision: "trusted" | "never" | "undecided";
  /** How it was decided: `recorded in ~/.agents/trusted-folders.json`, `--trust`, `GANTRY_TRUST_WORKSPACE=1`, … */
  readonly how: string;
  /**
   * Whether trust covers this workspace file's content as it is now (an absolute path); a trusted
   * answer carries the digest it judged (hook scripts are checked against it before each run).
   * `content`: the bytes the caller read and parses, judged instead of reading the file again (a file
   * changed between the judgement and the parse cannot slip in unapproved content); hashed only by a
   * decision that has digests to compare.
   */
  file(abs: string, content?: Uint8Array): FileTrust;
  /** The same decision for another folder holding the same files (a worktree of this workspace). */
  forFolder(root: string): WorkspaceTrust;
}

/** How a session is told to decide: trusted by the caller, the user's recorded decision, or untrusted. */
export type TrustRequest =
  | { kind: "given"; how: string }
  | {
      kind: "recorded";
      home: string;
      /** The files a decision pins for a folder (src/trust/covered.ts). */
      coveredFiles: (root: string) => string[];
      log?: (line: string) => void;
    }
  | { kind: "untrusted"; how: string };

export function resolveWorkspaceTrust(root: string, request: TrustRequest): WorkspaceTrust {
  if (request.kind === "given") return givenTrust(root, request.how);
  if (request.kind === "untrusted") return undecidedTrust(root, request.how);
  const store = openTrustStore(request.home);
  const shown = displayStore(store.file, request.home);
  const record = store.get(root) ?? adoptFromAncestor(store, root, request);
  if (!record) return undecidedTrust(root, "no decision recorded");
  if (record.decision === "never") return neverTrust(root, `recorded in ${shown}`);
  return recordedTrust(root, record, `recorded in ${shown}`);
}

/** A folder below one trusted with its subfolders: its files are pinned now, on first use. */
function adoptFromAncestor(
  store: TrustStore,
  root: string,
  request: Extract<TrustRequest, { kind: "recorded" }>,
): FolderRecord | undefined {
  const ancestor = store.coveringAncestor(root);
  if (!ancestor) return undefined;
  if (ancestor.record.decision === "never") return ancestor.record;
  const record = pinnedRecord(root, request.coveredFiles(root));
  store.set(root, record);
  request.log?.(
    `trusted ${root} as a subfolder of ${ancestor.folder}; its configuration is pinned as it is now`,
  );
  return record;
}

/** A trusted record pinning the digest of each covered file (workspace-relative, "/" separators). */
export function pinnedRecord(root: string, files: readonly string[], subfolders = false): FolderRecord {
  const pinned: Record<string, string> = {};
  for (const abs of files) {
    const digest = fileDigest(abs);
    if (digest) pinned[relativeKey(root, abs)] = digest;
  }
  return {
    decision: "trusted",
    decidedAt: new Date().toISOString(),
    ...(subfolders ? { subfolders: true } : {}),
    files: pinned,
  };
}

/** Trusted by the caller as things are: each file as first seen is what was approved. */
function givenTrust(root: string, how: string): WorkspaceTrust {
  const firstSeen = new Map<string, string | undefined>();
  const approved = (rel: string, seen: string | undefined) => {
    if (!firstSeen.has(rel)) firstSeen.set(rel, seen ?? fileDigest(path.join(root, rel)));
    return firstSeen.get(rel);
  };
  return approvedTrust(root, how, approved);
}

function recordedTrust(root: string, record: FolderRecord, how: string): WorkspaceTrust {
  return approvedTrust(root, how, (rel) => record.files?.[rel]);
}

/** Files count as trusted where their content now is what was approved (by rel path, "/" separators). */
function approvedTrust(
  root: string,
  how: string,
  approved: (rel: string, seen: string | undefined) => string | undefined,
): WorkspaceTrust {
  return {
    root,
    decision: "trusted",
    how,
    file: (abs, content) => {
      const now = content === undefined ? fileDigest(abs) : digestOfContent(content);
      return judgeAgainst(approved(relativeKey(root, abs), now), now);
    },
    // a worktree of this workspace: its files count where they equal what this decision approved
    forFolder: (other) =>
      approvedTrust(
        other,
        how.endsWith("parent session") ? how : `${how}, as in the parent session`,
        approved,
      ),
  };
}

function judgeAgainst(approved: string | undefined, now: string | undefined): FileTrust {
  if (approved !== undefined && approved === now) return { trusted: true, digest: now };
  const tail = `re-approve it: ${HOW_TO_TRUST}`;
  if (approved === undefined)
    return { trusted: false, state: "new", why: `added since you trusted this folder; ${tail}` };
  return { trusted: false, state: "changed", why: `changed since you trusted this folder; ${tail}` };
}

function undecidedTrust(root: string, how: string): WorkspaceTrust {
  const why = `this folder is not trusted; ${HOW_TO_TRUST}`;
  return fixedTrust(root, "undecided", how, { trusted: false, state: "untrusted", why });
}

function neverTrust(root: string, how: string): WorkspaceTrust {
  const why = 'you chose never to trust this folder (run "gantry trust" in it to change that)';
  return fixedTrust(root, "never", how, { trusted: false, state: "never", why });
}

function fixedTrust(
  root: string,
  decision: "never" | "undecided",
  how: string,
  answer: FileTrust,
): WorkspaceTrust {
  return {
    root,
    decision,
    how,
    file: () => answer,
    forFolder: (other) => fixedTrust(other, decision, inherited(how), answer),
  };
}

const INHERITED = ", as in the parent session";

function inherited(how: string): string {
  return how.endsWith(INHERITED) ? how : `${how}${INHERITED}`;
}

export function relativeKey(root: string, abs: string): string {
  return path.relative(root, abs).split(path.sep).join("/");
}

function displayStore(file: string, home: string): string {
  return file.startsWith(`${home}${path.sep}`) ? `~/${path.relative(home, file)}` : file;
}
