import { isAscii } from "node:buffer";

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
 * literal needle is at byte `at`; undefined where that is not exact (a short line, non-ASCII bytes, whose
 * characters the bytes do not count one for one) and the line must be decoded whole.
 */
export function windowOfLineBytes(bytes: Buffer, start: number, end: number, at: number): string | undefined {
  if (end - start <= LONG_LINE_BYTES || !isAscii(bytes.subarray(start, end))) return undefined;
  // the shown line drops a Windows line end, as the whole line's text does
  const length = end - start - (bytes[end - 1] === 13 ? 1 : 0);
  return windowAt(length, at - start, (from, to) => bytes.toString("latin1", start + from, start + to));
}

function windowAt(length: number, firstMatch: number, slice: (start: number, end: number) => string): string {
  const start = Math.max(0, Math.min(firstMatch - MAX_LINE_CHARS / 3, length - MAX_LINE_CHARS));
  const end = start + MAX_LINE_CHARS;
  return `${start > 0 ? "…" : ""}${slice(start, end)}${end < length ? "…" : ""}`;
}
