import { truncateToWidth, visibleWidth } from "./text-width.js";

/**
 * A differential renderer in the manner of pi-tui: the screen is the terminal's normal scrollback plus
 * a live area at its bottom (streaming block, spinner, editor, footer). Finished output is written once
 * above the live area and never touched again; the live area is compared line by line with what was
 * drawn last, and only from the first changed line down is rewritten, inside one synchronized update
 * (no flicker on terminals that support mode 2026, no harm on the others).
 */
export interface ScreenOutput {
  write(text: string): void;
  readonly columns: number;
  readonly rows: number;
}

export interface Frame {
  /** Lines to add to the scrollback above the live area, for good. */
  commit: readonly string[];
  live: readonly string[];
  /** Where the text cursor goes, in `live` (row, column); hidden when absent. */
  cursor?: { row: number; col: number };
}

const SYNC_START = "\x1b[?2026h";
const SYNC_END = "\x1b[?2026l";
const HIDE_CURSOR = "\x1b[?25l";
const SHOW_CURSOR = "\x1b[?25h";

export interface Screen {
  draw(frame: Frame): void;
  /** After a resize the last frame's rows may have reflowed: clear the live area as it now stands. */
  resized(): void;
  /** Clears the live area and leaves the cursor at its top, on a fresh line. */
  close(): void;
}

export function createScreen(out: ScreenOutput): Screen {
  let previous: string[] = [];
  /** The row of the live area the terminal cursor is on. */
  let cursorRow = 0;
  let cursorVisible = false;
  let lastColumns = out.columns;

  /** Moves from the cursor's row to `row` of the live area (only upwards or within drawn rows). */
  function moveTo(row: number): string {
    const delta = row - cursorRow;
    cursorRow = row;
    if (delta < 0) return `\x1b[${-delta}A\r`;
    if (delta > 0) return `\x1b[${delta}B\r`;
    return "\r";
  }

  function fit(lines: readonly string[], cursor: Frame["cursor"]) {
    const width = out.columns;
    const fitted = lines.map((line) => (visibleWidth(line) > width ? truncateToWidth(line, width) : line));
    // a live area taller than the terminal would scroll rows out of reach: keep its bottom
    const room = Math.max(1, out.rows - 1);
    const drop = Math.max(0, fitted.length - room);
    const shown = drop > 0 ? fitted.slice(drop) : fitted;
    const at = cursor ? { row: Math.max(0, cursor.row - drop), col: cursor.col } : undefined;
    return { shown, at };
  }

  function liveUpdate(next: string[]): string {
    let first = 0;
    while (first < next.length && first < previous.length && next[first] === previous[first]) first++;
    if (first === next.length && first === previous.length) return "";
    // start of the first changed row; a row below the drawn ones is reached from the last drawn row
    let text = first < previous.length || previous.length === 0 ? moveTo(first) : `${moveTo(first - 1)}\n`;
    cursorRow = first;
    for (let i = first; i < next.length; i++) {
      if (i > first) text += "\r\n";
      text += `\x1b[2K${next[i]}`;
    }
    if (next.length > first) cursorRow = next.length - 1;
    // rows the new frame no longer uses
    if (next.length < previous.length) text += "\x1b[J";
    return text;
  }

  return {
    draw(frame) {
      const { shown, at } = fit(frame.live, frame.cursor);
      let text = "";
      if (frame.commit.length > 0) {
        // back to the live area's top, wipe it, add the finished lines, draw the live area anew
        text += `${moveTo(0)}\x1b[J${frame.commit.join("\r\n")}\r\n`;
        previous = [];
        cursorRow = 0;
      }
      text += liveUpdate(shown);
      previous = shown;
      if (at) {
        text += moveTo(Math.min(at.row, Math.max(0, shown.length - 1)));
        if (at.col > 0) text += `\x1b[${at.col}C`;
      }
      const wantCursor = at !== undefined;
      if (wantCursor !== cursorVisible) {
        text += wantCursor ? SHOW_CURSOR : HIDE_CURSOR;
        cursorVisible = wantCursor;
      }
      if (text !== "") out.write(`${SYNC_START}${text}${SYNC_END}`);
    },
    resized() {
      const columns = out.columns;
      // rows above the cursor as the terminal reflowed them at the new width
      let rowsAbove = 0;
      for (let i = 0; i < cursorRow; i++)
        rowsAbove += Math.max(1, Math.ceil(visibleWidth(previous[i] ?? "") / columns));
      if (columns >= lastColumns) rowsAbove = cursorRow;
      lastColumns = columns;
      out.write(`${rowsAbove > 0 ? `\x1b[${rowsAbove}A` : ""}\r\x1b[J`);
      previous = [];
      cursorRow = 0;
    },
    close() {
      out.write(`${SYNC_START}${moveTo(0)}\x1b[J${SYNC_END}${SHOW_CURSOR}`);
      previous = [];
      cursorVisible = true;
    },
  };
}
