import type { SecretGuard } from "../../workspace/secrets.js";
import type { ToolErrorCode } from "../contract.js";
import type { IgnoreChain } from "./ignore.js";

/** One grep_search call, resolved and checked, as both engines take it. */
export interface GrepRequest {
  /** Real path of the workspace root (both engines run from there). */
  root: string;
  /** Workspace-relative search path ("" = the root). */
  searchRel: string;
  searchIsDir: boolean;
  /** .gitignore rules of the folders above the search path, and the folders that hold them. */
  chain: IgnoreChain | undefined;
  gitignoreFolders: readonly string[];
  secrets: SecretGuard;
  /** User `secrets.allow` globs: while there are any, ripgrep prunes no secret pattern itself. */
  secretAllowGlobs: readonly string[];
  query: string;
  isRegex: boolean;
  caseInsensitive: boolean;
  /** Include globs (name-only or path patterns, SPEC §3 rules). */
  includes: readonly string[];
  matchPerLine: boolean;
  /** Matching lines (or files, without MatchPerLine) passed over before the part shown, in path order. */
  offset: number;
  maxMatches: number;
  maxFileBytes: number;
  signal: AbortSignal;
}

export interface GrepLine {
  line: number;
  text: string;
  /** `text` is already the window of a long line the model is shown (long-lines.ts), not the whole line. */
  shortened?: true;
}

export interface GrepFile {
  /** Workspace-relative. */
  path: string;
  /** Matching lines shown (empty when only file names were asked for). */
  lines: GrepLine[];
}

export interface GrepOutcome {
  /** Shown results, sorted by path then line. */
  files: GrepFile[];
  /** Every matching line found (or matching file, without MatchPerLine), shown or not. */
  matches: number;
  matchedFiles: number;
  skippedLargeFiles: number;
  skippedBinaryFiles: number;
  engine: "ripgrep" | "node";
  /** Threads the Node engine scanned with, when it used worker threads. */
  threads?: number;
}

export type GrepEngineResult =
  | { ok: true; outcome: GrepOutcome }
  | { ok: false; code: ToolErrorCode; message: string };

/**
 * Keeps results in path order: passes over the first `offset` matching lines (or files), then keeps
 * lines until the cap is full (the counting goes on).
 */
export function createResultCollector(request: Pick<GrepRequest, "maxMatches" | "matchPerLine" | "offset">) {
  const { maxMatches, matchPerLine } = request;
  const files: GrepFile[] = [];
  let toSkip = request.offset;
  let shown = 0;
  return {
    files,
    /** Room for this many more lines (or files). */
    room: () => maxMatches - shown,
    /** How many of the next matching file's first lines to read: those still passed over, then the room. */
    wanted: () => (shown >= maxMatches ? 0 : toSkip + maxMatches - shown),
    /** Whether a file with this many matching lines lies wholly before the part shown. */
    passesOver: (count: number) => toSkip >= (matchPerLine ? count : 1),
    /** One matching file: `count` matching lines in all, of which `lines` are its first ones read. */
    add(path: string, lines: GrepLine[], count: number) {
      if (!matchPerLine) count = 1;
      if (toSkip >= count) {
        toSkip -= count;
        return;
      }
      if (shown >= maxMatches) return;
      if (!matchPerLine) {
        files.push({ path, lines: [] });
        shown++;
        return;
      }
      const kept = lines.slice(toSkip, toSkip + maxMatches - shown);
      toSkip = 0;
      if (kept.length === 0) return;
      files.push({ path, lines: kept });
      shown += kept.length;
    },
  };
}

/** Plain path order, the same in both engines (UTF-16 code units, as Array.prototype.sort compares). */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
