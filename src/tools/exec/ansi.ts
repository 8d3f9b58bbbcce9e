/**
 * Terminal escape sequences (colours, cursor moves, window titles, hyperlinks) removed from command
 * output before the model or the UI sees it. Streaming: a sequence split across two chunks is held
 * back until its end arrives.
 */

// CSI (ESC [ … final), OSC (ESC ] … BEL or ESC \), DCS/SOS/PM/APC (ESC P|X|^|_ … ESC \), two-byte ESC x,
// and the 8-bit C1 forms of CSI, OSC and DCS/SOS/PM/APC.
const ESCAPE_PATTERN =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|(?:\u001b\]|\u009d)[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)|\u001b[PX^_][^\u001b]*\u001b\\|[\u0090\u0098\u009e\u009f][^\u001b\u009c]*(?:\u001b\\|\u009c)|\u001b[ -/]*[0-OQ-WYZ\\`a-~]/g;

// An escape that may still be incomplete at the end of a chunk.
const INCOMPLETE_TAIL =
  /(?:\u001b(?:\[[0-?]*[ -/]*|\][^\u0007\u001b]*|[PX^_][^\u001b]*|[ -/]*)?|\u009b[0-?]*[ -/]*|\u009d[^\u0007\u001b\u009c]*|[\u0090\u0098\u009e\u009f][^\u001b\u009c]*)$/;

/** Longest escape sequence held back waiting for its end; longer ones are dropped as garbage. */
const MAX_PENDING = 4096;

/** Removes escape sequences and lone control characters (C0 other than \n, \r and \t, DEL, C1). */
export function stripAnsi(text: string): string {
  return removeControls(text.replace(ESCAPE_PATTERN, ""));
}

function removeControls(text: string): string {
  // \r\n stays a line break; a bare \r (progress bars redrawing a line) also becomes one
  return text
    .replace(/\r+\n/g, "\n")
    .replace(/\r/g, "\n")
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g, "");
}

export interface AnsiStripper {
  /** Returns the stripped text that is complete so far. */
  push(chunk: string): string;
  /** Returns whatever is still held back (an unterminated sequence is dropped). */
  flush(): string;
}

export function createAnsiStripper(): AnsiStripper {
  let pending = "";
  return {
    push(chunk) {
      const text = pending + chunk;
      const stripped = text.replace(ESCAPE_PATTERN, "");
      const tail = INCOMPLETE_TAIL.exec(stripped);
      if (tail && tail[0].length > 0 && tail[0].length <= MAX_PENDING) {
        pending = tail[0];
        return removeControls(stripped.slice(0, stripped.length - tail[0].length));
      }
      pending = "";
      // a trailing \r may be the first half of \r\n
      if (stripped.endsWith("\r")) {
        pending = "\r";
        return removeControls(stripped.slice(0, -1));
      }
      return removeControls(stripped);
    },
    flush() {
      const rest = pending.startsWith("\r") ? "\n" : "";
      pending = "";
      return rest;
    },
  };
}

/** C0 controls but newline, tab and a CR ending a line, DEL, and C1 (a UTF-8 terminal may act on those too). */
const TERMINAL_CONTROLS = /\r(?!\n)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/**
 * Text from a hook (or any other program) for the user's terminal, its control characters spelt out as
 * `\xNN`: an escape shows as text and can neither set the clipboard (OSC 52), the title, nor move the
 * cursor over what is already on the screen; a carriage return cannot hide the start of its line.
 */
export function showControls(text: string): string {
  return text.replace(TERMINAL_CONTROLS, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`);
}
