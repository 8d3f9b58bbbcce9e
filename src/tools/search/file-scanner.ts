import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { HAS_PROC_FD, openVerifiedSync } from "../../workspace/paths.js";
import type { GrepLine } from "./engine.js";
import { windowOfLineBytes } from "./long-lines.js";
import type { LineMatcher } from "./matcher.js";

const CHUNK_BYTES = 64 * 1024;
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

interface LineSpan {
  start: number;
  end: number;
  /** Where a literal needle's first match on the line starts (byte hits only). */
  at?: number;
}

export type FileScan =
  | { kind: "large" | "binary" | "unreadable" }
  | { kind: "text"; count: number; lines: GrepLine[] };

/**
 * Scans files one at a time through one buffer; the buffer grows only for lines longer than it.
 * `release()` closes the folder descriptor it keeps between files: call it when a batch is done.
 */
export function createFileScanner(matcher: LineMatcher, maxFileBytes: number) {
  let buffer: Buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  // O_NOFOLLOW guards a path's last name only: a parent folder swapped for a symlink after the walk read
  // it would lead outside the workspace. So each file is opened through a descriptor of its folder,
  // verified once for all the files of that folder that come in a row (files come folder by folder).
  let folder: { path: string; fd: number | undefined } | undefined;

  function release(): void {
    if (folder?.fd !== undefined) closeSync(folder.fd);
    folder = undefined;
  }

  function openVerified(abs: string): number | undefined {
    if (!HAS_PROC_FD) return openVerifiedSync(abs, "file");
    const slash = abs.lastIndexOf("/");
    const dir = abs.slice(0, slash);
    if (folder?.path !== dir) {
      release();
      folder = { path: dir, fd: openVerifiedSync(dir, "folder") };
    }
    if (folder.fd === undefined) return undefined;
    return openSync(`/proc/self/fd/${folder.fd}/${abs.slice(slash + 1)}`, OPEN_FLAGS);
  }

  /**
   * The first `keepLines` matching lines of a file whose count is known already: reading stops once
   * they are found. Empty when it cannot be read as text.
   */
  function firstLines(abs: string, keepLines: number): GrepLine[] {
    const found = scan(abs, keepLines, true);
    return found.kind === "text" ? found.lines : [];
  }

  function scan(abs: string, keepLines: number, stopWhenKept = false): FileScan {
    let fd: number | undefined;
    try {
      fd = openVerified(abs);
    } catch {
      return { kind: "unreadable" };
    }
    if (fd === undefined) return { kind: "unreadable" };
    try {
      // most files fit the first read, whose short count gives their size: no fstat for them
      const wanted = Math.min(buffer.length, maxFileBytes + 1);
      const first = readSync(fd, buffer, 0, wanted, null);
      if (first > maxFileBytes) return { kind: "large" };
      let size = first;
      if (first === wanted) {
        const stats = fstatSync(fd);
        if (!stats.isFile()) return { kind: "unreadable" };
        if (stats.size > maxFileBytes) return { kind: "large" };
        size = stats.size;
      }
      return scanOpenFile(fd, size, { keepLines, stopWhenKept }, first);
    } catch {
      return { kind: "unreadable" };
    } finally {
      closeSync(fd);
    }
  }

  /** Streams the rest of an open file; `buffer[0, firstRead)` already holds its start. */
  function scanOpenFile(
    fd: number,
    size: number,
    { keepLines, stopWhenKept }: { keepLines: number; stopWhenKept: boolean },
    firstRead: number,
  ): FileScan {
    const state: ScanState = { count: 0, lines: [], keepLines, lineBase: 1, fileOffset: 0, fd };
    let filled = 0;
    let read = firstRead;
    let readTotal = firstRead;
    for (;;) {
      // views, not the whole buffer: Buffer.indexOf scans to the end of what it is given
      if (read > 0 && buffer.subarray(filled, filled + read).indexOf(0) >= 0) return { kind: "binary" };
      const total = filled + read;
      if (read === 0) {
        if (total > 0) searchRegion(state, total);
        return { kind: "text", count: state.count, lines: state.lines };
      }
      const lastBreak = buffer.lastIndexOf(10, total - 1);
      if (lastBreak < 0) {
        filled = total;
      } else {
        searchRegion(state, lastBreak + 1);
        if (stopWhenKept && state.lines.length >= keepLines) {
          return { kind: "text", count: state.count, lines: state.lines };
        }
        buffer.copyWithin(0, lastBreak + 1, total);
        filled = total - lastBreak - 1;
      }
      if (filled === buffer.length) buffer = grow(buffer);
      // the size is known: skip the extra read that would only report the end of the file
      read = readTotal >= size ? 0 : readSync(fd, buffer, filled, buffer.length - filled, null);
      readTotal += read;
    }
  }

  interface ScanState {
    count: number;
    lines: GrepLine[];
    keepLines: number;
    /** Line number of buffer[0], or 0 while the lines before it are not counted (counted only if needed). */
    lineBase: number;
    /** File offset of buffer[0]. */
    fileOffset: number;
    fd: number;
  }

  /** Finds the matching lines in buffer[0, end), which ends at a line break or at the end of the file. */
  function searchRegion(state: ScanState, end: number): void {
    const region = buffer.subarray(0, end);
    const hits = matcher.findNeedle ? byteHits(region, matcher.findNeedle) : textHits(region);
    if (hits.length === 0) {
      state.lineBase = 0;
    } else {
      if (state.lineBase === 0) state.lineBase = 1 + countBreaksBefore(state.fd, state.fileOffset);
      let line = state.lineBase;
      let counted = 0;
      for (const hit of hits) {
        line += countBreaks(region, counted, hit.start);
        counted = hit.start;
        state.count++;
        if (state.lines.length < state.keepLines) {
          // a long line of a minified file is cut to what the model is shown without decoding it whole
          const window =
            hit.at === undefined ? undefined : windowOfLineBytes(region, hit.start, hit.end, hit.at);
          state.lines.push(
            window !== undefined
              ? { line, text: window, shortened: true }
              : { line, text: region.toString("utf8", hit.start, hit.end).replace(/\r$/, "") },
          );
        }
      }
      state.lineBase = line + countBreaks(region, counted, end);
    }
    state.fileOffset += end;
  }

  function byteHits(region: Buffer, findNeedle: (haystack: Buffer, from: number) => number): LineSpan[] {
    const hits: LineSpan[] = [];
    for (let from = 0; from < region.length; ) {
      const at = findNeedle(region, from);
      if (at < 0) break;
      const start = at === 0 ? 0 : region.lastIndexOf(10, at - 1) + 1;
      const lineEnd = nextBreak(region, at);
      hits.push({ start, end: lineEnd, at });
      from = lineEnd + 1;
    }
    return hits;
  }

  /** One test over the whole region first; only a region that matches is checked line by line. */
  function textHits(region: Buffer): LineSpan[] {
    const pattern = matcher.chunkPattern as RegExp;
    pattern.lastIndex = 0;
    if (!pattern.test(region.toString("utf8"))) return [];
    const hits: LineSpan[] = [];
    for (let start = 0; start < region.length; ) {
      const lineEnd = nextBreak(region, start);
      if (matcher.test(region.toString("utf8", start, lineEnd))) hits.push({ start, end: lineEnd });
      start = lineEnd + 1;
    }
    return hits;
  }

  return { scan, firstLines, release };
}

function grow(buffer: Buffer): Buffer {
  const larger = Buffer.allocUnsafe(buffer.length * 2);
  buffer.copy(larger);
  return larger;
}

function nextBreak(region: Buffer, from: number): number {
  const at = region.indexOf(10, from);
  return at < 0 ? region.length : at;
}

function countBreaks(buffer: Buffer, from: number, to: number): number {
  let count = 0;
  for (let at = buffer.indexOf(10, from); at >= 0 && at < to; at = buffer.indexOf(10, at + 1)) count++;
  return count;
}

const scratch = Buffer.allocUnsafe(CHUNK_BYTES);

/** Line breaks in the file before `offset` (read again: only needed when a match appears past the first chunk). */
function countBreaksBefore(fd: number, offset: number): number {
  let count = 0;
  for (let position = 0; position < offset; ) {
    const read = readSync(fd, scratch, 0, Math.min(scratch.length, offset - position), position);
    if (read === 0) break;
    count += countBreaks(scratch.subarray(0, read), 0, read);
    position += read;
  }
  return count;
}

/** A scan as one number, as the scan workers report it: the match count of a text file, or why not. */
export const SCAN_LARGE = -1;
export const SCAN_BINARY = -2;
export const SCAN_UNREADABLE = -3;

export function scanCode(scan: FileScan): number {
  if (scan.kind === "text") return scan.count;
  return scan.kind === "large" ? SCAN_LARGE : scan.kind === "binary" ? SCAN_BINARY : SCAN_UNREADABLE;
}

/** The absolute path of a workspace-relative one (both are clean: "/"-separated, no dots). */
export function absolutePath(root: string, rel: string): string {
  return rel === "" ? root : root.endsWith("/") ? `${root}${rel}` : `${root}/${rel}`;
}
