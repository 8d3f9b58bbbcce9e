import { isAscii, isUtf8 } from "node:buffer";

/** The most of a matching line the model is shown; a longer (minified) line is cut to a window. */
export const MAX_LINE_CHARS = 300;

/**
 * A long line cut to a window around its first match (`firstMatch`, a character index), marked with
 * "…" where it was cut; a line of at most MAX_LINE_CHARS characters is shown whole.
 */
export function windowOfLine(text: string, firstMatch: number): string {
  if (text.length <= MAX_LINE_CHARS) return text;
  return windowAt(text.length, Math.max(0, firstMatch), (start, end) => text.slice(start, end));
}

/** Lines longer than this are cut without decoding them whole: a minified bundle's line can be 1 MB. */
const LONG_LINE_BYTES = 4096;

/**
 * The same window as windowOfLine, straight from a line's bytes `[start, end)` whose first match of a
 * literal needle is at byte `at`; undefined where that is not exact (a short line, or bytes that are not
 * valid UTF-8, whose replacement characters a byte match may not line up with) and the line must be
 * decoded whole.
 */
export function windowOfLineBytes(bytes: Buffer, start: number, end: number, at: number): string | undefined {
  if (end - start <= LONG_LINE_BYTES) return undefined;
  // the shown line drops a Windows line end, as the whole line's text does
  const lineEnd = end - (bytes[end - 1] === 13 ? 1 : 0);
  const line = bytes.subarray(start, lineEnd);
  if (isAscii(line)) {
    return windowAt(lineEnd - start, at - start, (from, to) =>
      bytes.toString("latin1", start + from, start + to),
    );
  }
  return isUtf8(line) ? windowOfUtf8(bytes, start, lineEnd, at) : undefined;
}

/**
 * A UTF-8 line's window from just the bytes around its match: a character is at most 4 bytes, so
 * REACH_BYTES on each side hold the whole window wherever it falls, and whatever lies beyond them is
 * only known to be there (its length never moves the window, it only earns the "…" on its side).
 */
const REACH_BYTES = 4 * MAX_LINE_CHARS;

function windowOfUtf8(bytes: Buffer, start: number, end: number, at: number): string {
  let from = Math.max(start, at - REACH_BYTES);
  while (from > start && isContinuationByte(bytes[from] as number)) from--;
  let to = Math.min(end, at + REACH_BYTES);
  while (to < end && isContinuationByte(bytes[to] as number)) to++;
  const near = bytes.toString("utf8", from, to);
  const firstMatch = bytes.toString("utf8", from, at).length;
  const windowStart = Math.max(0, Math.min(firstMatch - MAX_LINE_CHARS / 3, near.length - MAX_LINE_CHARS));
  const windowEnd = windowStart + MAX_LINE_CHARS;
  const cutBefore = from > start || windowStart > 0;
  const cutAfter = to < end || windowEnd < near.length;
  return `${cutBefore ? "…" : ""}${near.slice(windowStart, windowEnd)}${cutAfter ? "…" : ""}`;
}

function isContinuationByte(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

function windowAt(length: number, firstMatch: number, slice: (start: number, end: number) => string): string {
  const start = Math.max(0, Math.min(firstMatch - MAX_LINE_CHARS / 3, length - MAX_LINE_CHARS));
  const end = start + MAX_LINE_CHARS;
  return `${start > 0 ? "…" : ""}${slice(start, end)}${end < length ? "…" : ""}`;
}
