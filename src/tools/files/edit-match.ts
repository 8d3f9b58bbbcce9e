import { distance } from "fastest-levenshtein";

/** How far (in lines) outside StartLine–EndLine a target is still accepted, with `rangeAdjusted` set. */
export const RANGE_TOLERANCE_LINES = 10;

/** A found occurrence: character offsets in the text and its 1-based line span. */
export interface Occurrence {
  start: number;
  end: number;
  firstLine: number;
  lastLine: number;
}

export interface TargetRequest {
  /** Forms of the target to try, first match wins (see modelTextForms). */
  forms: string[];
  startLine: number;
  endLine: number;
  allowMultiple: boolean;
}

export type MatchOutcome =
  | { ok: true; form: string; occurrences: Occurrence[]; rangeAdjusted: boolean }
  | { ok: false; code: "no_match" | "ambiguous_match"; message: string };

/** Offsets where each line starts; index 0 is line 1. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
  return starts;
}

/** 1-based line holding the character at `offset`. */
export function lineAt(starts: number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((starts[mid] as number) <= offset) low = mid;
    else high = mid - 1;
  }
  return low + 1;
}

/**
 * Finds the target inside StartLine–EndLine; if it is not there, inside the range widened by
 * RANGE_TOLERANCE_LINES (rangeAdjusted). More than one occurrence without allowMultiple is an error
 * listing every line; no occurrence is an error showing the nearest candidate.
 */
export function locateTarget(text: string, starts: number[], request: TargetRequest): MatchOutcome {
  for (const widen of [0, RANGE_TOLERANCE_LINES]) {
    const first = Math.max(1, request.startLine - widen);
    const last = request.endLine + widen;
    for (const form of request.forms) {
      const found = occurrencesIn(text, starts, form, first, last);
      if (found.length === 0) continue;
      if (found.length > 1 && !request.allowMultiple) {
        return { ok: false, code: "ambiguous_match", message: ambiguousMessage(found, first, last) };
      }
      return { ok: true, form, occurrences: found, rangeAdjusted: widen > 0 };
    }
  }
  return { ok: false, code: "no_match", message: notFoundMessage(text, starts, request) };
}

function occurrencesIn(
  text: string,
  starts: number[],
  target: string,
  firstLine: number,
  lastLine: number,
): Occurrence[] {
  const from = starts[Math.min(firstLine, starts.length) - 1] as number;
  const to = lastLine < starts.length ? (starts[lastLine] as number) : text.length;
  const found: Occurrence[] = [];
  for (let at = text.indexOf(target, from); at >= 0 && at + target.length <= to; ) {
    const end = at + target.length;
    found.push({ start: at, end, firstLine: lineAt(starts, at), lastLine: lineAt(starts, end - 1) });
    at = text.indexOf(target, end);
  }
  return found;
}

const MAX_LISTED = 200;

function ambiguousMessage(found: Occurrence[], first: number, last: number): string {
  const lines = found
    .slice(0, MAX_LISTED)
    .map((o) => (o.firstLine === o.lastLine ? `${o.firstLine}` : `${o.firstLine}–${o.lastLine}`));
  if (found.length > MAX_LISTED) lines.push(`and ${found.length - MAX_LISTED} more`);
  return (
    `TargetContent occurs ${found.length} times in lines ${first}–${last}: at lines ${lines.join(", ")}. ` +
    "Include more surrounding lines so it is unique, narrow StartLine/EndLine, or set AllowMultiple: true " +
    "to replace every occurrence."
  );
}

function notFoundMessage(text: string, starts: number[], request: TargetRequest): string {
  const target = request.forms[0] as string;
  const range = `lines ${request.startLine}–${request.endLine}`;
  const elsewhere = request.forms
    .map((form) => occurrencesIn(text, starts, form, 1, starts.length))
    .find((found) => found.length > 0);
  if (elsewhere) {
    const where = elsewhere.map((o) => `${o.firstLine}–${o.lastLine}`).join(", ");
    return (
      `TargetContent is not in ${range} (even ${RANGE_TOLERANCE_LINES} lines around it), but it occurs at ` +
      `lines ${where}. Check the line numbers with view_file and call again with StartLine/EndLine around it.`
    );
  }
  const hints = lineNumberHint(target);
  const loose = findIgnoringWhitespace(text, starts, target, request.startLine);
  if (loose) {
    return (
      `TargetContent was not found exactly in ${range}. The same text, ignoring whitespace and indentation, ` +
      `is at lines ${loose.first}–${loose.last}:\n${numbered(text, starts, loose.first, loose.last)}\n` +
      `Copy TargetContent exactly from those lines (indentation, tabs and trailing spaces count).${hints}`
    );
  }
  const near = closestWindow(text, starts, target, request);
  if (near) {
    return (
      `TargetContent was not found in ${range}. The closest text (${near.percent}% similar) is at lines ` +
      `${near.first}–${near.last}:\n${numbered(text, starts, near.first, near.last)}\n` +
      `View the file again and copy TargetContent exactly.${hints}`
    );
  }
  return `TargetContent was not found in ${range}, and nothing similar is near it. View the file again and copy TargetContent exactly.${hints}`;
}

function lineNumberHint(target: string): string {
  const lines = target.split("\n").filter((line) => line.trim() !== "");
  const numberedLines = lines.filter((line) => /^\s*\d+\s*(?:[:|→\t]|\s{2})/.test(line));
  return lines.length > 0 && numberedLines.length === lines.length
    ? " TargetContent seems to start each line with a line number from view_file's output; leave those out."
    : "";
}

const squash = (line: string) => line.trim().replace(/\s+/g, " ");

function targetLines(target: string): string[] {
  const lines = target.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function fileLine(text: string, starts: number[], line: number): string {
  const start = starts[line - 1] as number;
  const next = line < starts.length ? (starts[line] as number) - 1 : text.length;
  return text.slice(start, next).replace(/\r$/, "");
}

/** Same lines modulo whitespace, nearest to `aroundLine`. */
function findIgnoringWhitespace(
  text: string,
  starts: number[],
  target: string,
  aroundLine: number,
): { first: number; last: number } | undefined {
  const wanted = targetLines(target).map(squash);
  if (wanted.every((line) => line === "")) return undefined;
  let best: { first: number; last: number } | undefined;
  const lastStart = starts.length - wanted.length + 1;
  for (let first = 1; first <= lastStart; first++) {
    let all = true;
    for (let k = 0; k < wanted.length && all; k++)
      all = squash(fileLine(text, starts, first + k)) === wanted[k];
    if (!all) continue;
    if (!best || Math.abs(first - aroundLine) < Math.abs(best.first - aroundLine)) {
      best = { first, last: first + wanted.length - 1 };
    }
  }
  return best;
}

const FUZZY_SEARCH_LINES = 60;
const FUZZY_MAX_CHARS = 4000;

/** The window of lines near the given range most similar to the target (Levenshtein), if at least 50%. */
function closestWindow(
  text: string,
  starts: number[],
  target: string,
  request: TargetRequest,
): { first: number; last: number; percent: number } | undefined {
  const wanted = targetLines(target).map(squash).join("\n");
  if (wanted.length === 0 || wanted.length > FUZZY_MAX_CHARS) return undefined;
  const height = targetLines(target).length;
  const from = Math.max(1, request.startLine - FUZZY_SEARCH_LINES);
  const to = Math.min(starts.length - height + 1, request.endLine + FUZZY_SEARCH_LINES);
  let best: { first: number; last: number; percent: number } | undefined;
  for (let first = from; first <= to; first++) {
    const window: string[] = [];
    for (let k = 0; k < height; k++) window.push(squash(fileLine(text, starts, first + k)));
    const candidate = window.join("\n");
    const longest = Math.max(candidate.length, wanted.length);
    const percent = Math.round(100 * (1 - distance(candidate, wanted) / longest));
    if (!best || percent > best.percent) best = { first, last: first + height - 1, percent };
  }
  return best && best.percent >= 50 ? best : undefined;
}

const SHOWN_LINES = 30;

function numbered(text: string, starts: number[], first: number, last: number): string {
  const shown: string[] = [];
  for (let line = first; line <= Math.min(last, first + SHOWN_LINES - 1); line++) {
    shown.push(`${line}: ${fileLine(text, starts, line)}`);
  }
  if (last >= first + SHOWN_LINES) shown.push(`… (${last - first - SHOWN_LINES + 1} more lines)`);
  return shown.join("\n");
}
