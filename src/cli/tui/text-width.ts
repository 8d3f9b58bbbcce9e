import { eastAsianWidth } from "get-east-asian-width";

/**
 * Measuring, wrapping and cutting styled terminal text: ANSI escape sequences take no columns, wide
 * characters (CJK, emoji) take two, combining marks none. Every line the UI draws goes through here,
 * so no line is wider than the terminal (the differential renderer counts on one line per row).
 */

const ANSI = /\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/y;
const ZERO_WIDTH = /[\p{Mn}\p{Me}\p{Cf}\u200b-\u200f\ufe00-\ufe0f]/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
const SGR_RESET = "\x1b[0m";

interface Piece {
  text: string;
  /** Columns: 0 for escape sequences and combining marks. */
  width: number;
  ansi: boolean;
}

export function stripAnsi(text: string): string {
  return splitPieces(text)
    .filter((piece) => !piece.ansi)
    .map((piece) => piece.text)
    .join("");
}

export function charWidth(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return 0;
  if (code < 0x300) return 1;
  if (ZERO_WIDTH.test(char)) return 0;
  if (code >= 0x1f000 && PICTOGRAPH.test(char)) return 2;
  return eastAsianWidth(code, { ambiguousAsWide: false });
}

export function visibleWidth(text: string): number {
  // fast path: plain ASCII without escapes
  if (/^[\x20-\x7e]*$/.test(text)) return text.length;
  let width = 0;
  for (const piece of splitPieces(text)) width += piece.width;
  return width;
}

function splitPieces(text: string): Piece[] {
  const pieces: Piece[] = [];
  let at = 0;
  while (at < text.length) {
    if (text.charCodeAt(at) === 0x1b) {
      ANSI.lastIndex = at;
      const match = ANSI.exec(text);
      if (match) {
        pieces.push({ text: match[0], width: 0, ansi: true });
        at += match[0].length;
        continue;
      }
    }
    const char = String.fromCodePoint(text.codePointAt(at) ?? 0);
    pieces.push({ text: char, width: charWidth(char), ansi: false });
    at += char.length;
  }
  return pieces;
}

/** Tabs to spaces (tab stops every 4 columns are enough for code blocks and command output). */
export function expandTabs(text: string): string {
  if (!text.includes("\t")) return text;
  let column = 0;
  let out = "";
  for (const char of text) {
    if (char === "\t") {
      const spaces = 4 - (column % 4);
      out += " ".repeat(spaces);
      column += spaces;
    } else {
      out += char;
      column++;
    }
  }
  return out;
}

/**
 * Wraps one styled line to `width` columns, at spaces where it can and inside words where it must.
 * A style open at a break is closed at the line's end and opened again on the next line.
 */
export function wrapLine(text: string, width: number): string[] {
  const max = Math.max(1, width);
  if (visibleWidth(text) <= max) return [text];
  const rows: Piece[][] = [];
  let row: Piece[] = [];
  let rowWidth = 0;
  let lastSpace = -1;
  for (const piece of splitPieces(text)) {
    if (piece.ansi) {
      row.push(piece);
      continue;
    }
    if (rowWidth + piece.width > max && rowWidth > 0) {
      if (piece.text === " ") {
        rows.push(row);
        row = [];
        rowWidth = 0;
        lastSpace = -1;
        continue;
      }
      if (lastSpace >= 0) {
        const rest = row.splice(lastSpace + 1);
        row.pop(); // the space at the break
        rows.push(row);
        row = rest;
        rowWidth = rest.reduce((sum, p) => sum + p.width, 0);
        if (rowWidth + piece.width > max) {
          rows.push(row);
          row = [];
          rowWidth = 0;
        }
      } else {
        rows.push(row);
        row = [];
        rowWidth = 0;
      }
      lastSpace = -1;
    }
    row.push(piece);
    rowWidth += piece.width;
    if (piece.text === " ") lastSpace = row.length - 1;
  }
  rows.push(row);
  return carryStyles(rows);
}

/** Re-opens the styles active at each row's start; closes them at its end. */
function carryStyles(rows: Piece[][]): string[] {
  let active = "";
  return rows.map((row) => {
    let line = active;
    for (const piece of row) {
      line += piece.text;
      if (!piece.ansi || !piece.text.endsWith("m") || !piece.text.startsWith("\x1b[")) continue;
      active = piece.text === SGR_RESET || piece.text === "\x1b[m" ? "" : active + piece.text;
    }
    return active ? line + SGR_RESET : line;
  });
}

/** Wraps text that may hold newlines; an empty text is one empty line. */
export function wrapText(text: string, width: number): string[] {
  return text.split("\n").flatMap((line) => wrapLine(expandTabs(line), width));
}

/** Cuts a styled line to `width` columns, ending with `…` when something was cut. */
export function truncateToWidth(text: string, width: number, ellipsis = "…"): string {
  if (visibleWidth(text) <= width) return text;
  const room = Math.max(0, width - visibleWidth(ellipsis));
  let used = 0;
  let out = "";
  let styled = false;
  for (const piece of splitPieces(text)) {
    if (piece.ansi) {
      out += piece.text;
      styled = true;
      continue;
    }
    if (used + piece.width > room) break;
    out += piece.text;
    used += piece.width;
  }
  return `${out}${styled ? SGR_RESET : ""}${ellipsis}`;
}

/** Pads a styled text with spaces to `width` columns (tables). */
export function padToWidth(text: string, width: number): string {
  const missing = width - visibleWidth(text);
  return missing > 0 ? text + " ".repeat(missing) : text;
}
