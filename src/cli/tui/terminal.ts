import { createKeyParser, type Key } from "./keys.js";
import type { ScreenOutput } from "./screen.js";

/**
 * The real terminal: raw input with bracketed paste and the keyboard modes that report Shift-Enter
 * (kitty's progressive enhancement, xterm's modifyOtherKeys; terminals without them ignore the request),
 * keys parsed from it, and the size. `stop` puts everything back, also when the process exits.
 */
export interface Terminal extends ScreenOutput {
  start(onKeys: (keys: Key[]) => void, onResize: () => void): void;
  stop(): void;
}

/** A lone ESC that nothing follows within this time is the Escape key. */
const ESCAPE_WAIT_MS = 30;
const ENABLE = "\x1b[?2004h\x1b[>1u\x1b[>4;1m";
const DISABLE = "\x1b[?2004l\x1b[<u\x1b[>4m\x1b[?25h";

export function createProcessTerminal(
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stdout,
): Terminal {
  const parser = createKeyParser();
  let started = false;
  let escapeTimer: NodeJS.Timeout | undefined;
  let onData: ((data: string) => void) | undefined;
  let resize: (() => void) | undefined;
  const restore = () => {
    if (started) output.write(DISABLE);
  };

  return {
    get columns() {
      return output.columns || 80;
    },
    get rows() {
      return output.rows || 24;
    },
    write: (text) => void output.write(text),
    start(onKeys, onResize) {
      started = true;
      input.setRawMode(true);
      input.setEncoding("utf8");
      output.write(ENABLE);
      let typedAhead = true;
      onData = (data) => {
        clearTimeout(escapeTimer);
        // the first read may hold what was typed before raw mode, where the terminal turned Enter into
        // a line feed: there it is Enter (later, in raw mode, a line feed is Ctrl-J, a new line)
        const text = typedAhead ? data.replace(/\n/g, "\r") : data;
        const keys = (typedAhead ? undefined : pastedLines(text)) ?? parser.feed(text);
        typedAhead = false;
        if (keys.length > 0) onKeys(keys);
        if (parser.pending) {
          escapeTimer = setTimeout(() => {
            const flushed = parser.flush();
            if (flushed.length > 0) onKeys(flushed);
          }, ESCAPE_WAIT_MS);
        }
      };
      resize = onResize;
      input.on("data", onData);
      output.on("resize", resize);
      process.on("exit", restore);
      input.resume();
    },
    stop() {
      if (!started) return;
      clearTimeout(escapeTimer);
      if (onData) input.off("data", onData);
      if (resize) output.off("resize", resize);
      process.off("exit", restore);
      output.write(DISABLE);
      started = false;
      input.setRawMode(false);
      input.pause();
    },
  };
}

/**
 * A terminal without bracketed paste delivers pasted lines as typed keys: a chunk of plain text with
 * a line break before its end was pasted, not typed (nobody types Enter and more keys in one read).
 */
function pastedLines(data: string): Key[] | undefined {
  if (data.length < 3 || data.includes("\x1b")) return undefined;
  const firstBreak = data.search(/[\r\n]/);
  if (firstBreak < 0 || firstBreak === data.length - 1) return undefined;
  if (/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/.test(data)) return undefined;
  return [{ name: "paste", text: data.replace(/\r\n?/g, "\n"), ctrl: false, alt: false, shift: false }];
}
