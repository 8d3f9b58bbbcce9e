/**
 * The prompt editor's state: lines of text and a cursor, with the edits a readline user expects
 * (word moves, kill to start/end, multi-line). Pure data and functions; drawing is in editor-view.ts.
 */
export interface EditorState {
  lines: string[];
  row: number;
  /** Cursor column in UTF-16 units of `lines[row]`. */
  col: number;
}

export function emptyEditor(): EditorState {
  return { lines: [""], row: 0, col: 0 };
}

export function editorText(state: EditorState): string {
  return state.lines.join("\n");
}

export function editorWithText(text: string): EditorState {
  const lines = text.split("\n");
  const row = lines.length - 1;
  return { lines, row, col: (lines[row] ?? "").length };
}

export function isEditorEmpty(state: EditorState): boolean {
  return state.lines.length === 1 && state.lines[0] === "";
}

function current(state: EditorState): string {
  return state.lines[state.row] ?? "";
}

function withLine(state: EditorState, line: string, col: number): EditorState {
  const lines = [...state.lines];
  lines[state.row] = line;
  return { lines, row: state.row, col };
}

/** Inserts text (a typed character or a paste; newlines split lines). */
export function insertText(state: EditorState, text: string): EditorState {
  const clean = text.replace(/\r\n?/g, "\n").replace(/\t/g, "  ");
  const line = current(state);
  const before = line.slice(0, state.col);
  const after = line.slice(state.col);
  const parts = clean.split("\n");
  if (parts.length === 1) return withLine(state, before + clean + after, state.col + clean.length);
  const lines = [...state.lines];
  const inserted = [before + (parts[0] ?? ""), ...parts.slice(1, -1), (parts.at(-1) ?? "") + after];
  lines.splice(state.row, 1, ...inserted);
  const row = state.row + parts.length - 1;
  return { lines, row, col: (parts.at(-1) ?? "").length };
}

export function newLine(state: EditorState): EditorState {
  return insertText(state, "\n");
}

export function backspace(state: EditorState): EditorState {
  if (state.col > 0) {
    const line = current(state);
    const start = previousCharStart(line, state.col);
    return withLine(state, line.slice(0, start) + line.slice(state.col), start);
  }
  if (state.row === 0) return state;
  const lines = [...state.lines];
  const above = lines[state.row - 1] ?? "";
  lines.splice(state.row - 1, 2, above + current(state));
  return { lines, row: state.row - 1, col: above.length };
}

export function deleteForward(state: EditorState): EditorState {
  const line = current(state);
  if (state.col < line.length) {
    const end = nextCharEnd(line, state.col);
    return withLine(state, line.slice(0, state.col) + line.slice(end), state.col);
  }
  if (state.row >= state.lines.length - 1) return state;
  const lines = [...state.lines];
  lines.splice(state.row, 2, line + (lines[state.row + 1] ?? ""));
  return { lines, row: state.row, col: state.col };
}

export function moveLeft(state: EditorState): EditorState {
  if (state.col > 0) return { ...state, col: previousCharStart(current(state), state.col) };
  if (state.row === 0) return state;
  return { ...state, row: state.row - 1, col: (state.lines[state.row - 1] ?? "").length };
}

export function moveRight(state: EditorState): EditorState {
  const line = current(state);
  if (state.col < line.length) return { ...state, col: nextCharEnd(line, state.col) };
  if (state.row >= state.lines.length - 1) return state;
  return { ...state, row: state.row + 1, col: 0 };
}

/** Up or down one line; undefined at the first (last) line, where history takes over. */
export function moveVertical(state: EditorState, delta: -1 | 1): EditorState | undefined {
  const row = state.row + delta;
  if (row < 0 || row >= state.lines.length) return undefined;
  return { ...state, row, col: Math.min(state.col, (state.lines[row] ?? "").length) };
}

export function moveLineStart(state: EditorState): EditorState {
  return { ...state, col: 0 };
}

export function moveLineEnd(state: EditorState): EditorState {
  return { ...state, col: current(state).length };
}

export function moveWordLeft(state: EditorState): EditorState {
  if (state.col === 0) return moveLeft(state);
  return { ...state, col: wordStartBefore(current(state), state.col) };
}

export function moveWordRight(state: EditorState): EditorState {
  const line = current(state);
  if (state.col >= line.length) return moveRight(state);
  const rest = line.slice(state.col);
  const match = /^\s*\S+/.exec(rest);
  return { ...state, col: state.col + (match ? match[0].length : rest.length) };
}

/** Ctrl-W / Alt-Backspace: deletes the word before the cursor. */
export function deleteWordBefore(state: EditorState): EditorState {
  if (state.col === 0) return backspace(state);
  const line = current(state);
  const start = wordStartBefore(line, state.col);
  return withLine(state, line.slice(0, start) + line.slice(state.col), start);
}

/** Ctrl-U: deletes from the line's start to the cursor. */
export function deleteToLineStart(state: EditorState): EditorState {
  return withLine(state, current(state).slice(state.col), 0);
}

/** Ctrl-K: deletes from the cursor to the line's end (joins the next line at the end). */
export function deleteToLineEnd(state: EditorState): EditorState {
  const line = current(state);
  if (state.col === line.length) return deleteForward(state);
  return withLine(state, line.slice(0, state.col), state.col);
}

/** The word the cursor ends, from its start: what completion replaces (`@src/ap`, `/mo`). */
export function wordAtCursor(state: EditorState): { text: string; start: number } {
  const before = current(state).slice(0, state.col);
  const match = /\S*$/.exec(before);
  const text = match ? match[0] : "";
  return { text, start: state.col - text.length };
}

/** Replaces the word at the cursor with `replacement`. */
export function replaceWordAtCursor(state: EditorState, replacement: string): EditorState {
  const { start } = wordAtCursor(state);
  const line = current(state);
  return withLine(
    state,
    line.slice(0, start) + replacement + line.slice(state.col),
    start + replacement.length,
  );
}

function wordStartBefore(line: string, col: number): number {
  const before = line.slice(0, col);
  const match = /\S+\s*$/.exec(before);
  return match ? col - match[0].length : 0;
}

function previousCharStart(line: string, col: number): number {
  const code = line.charCodeAt(col - 1);
  return code >= 0xdc00 && code <= 0xdfff && col >= 2 ? col - 2 : col - 1;
}

function nextCharEnd(line: string, col: number): number {
  const code = line.charCodeAt(col);
  return code >= 0xd800 && code <= 0xdbff ? col + 2 : col + 1;
}
