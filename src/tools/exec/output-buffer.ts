import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import path from "node:path";
import { createAnsiStripper } from "./ansi.js";

/**
 * A command's output captured in bounded memory (issue 5: 1 GB of output must not grow the process).
 * Everything stays in memory until it passes `spillChars`; from then on the full (escape-free) text
 * streams to a log file and memory keeps only the head and a rolling tail. Writes to the log are
 * synchronous on purpose: while one is in progress the pipe fills and the command waits, so a flood
 * cannot pile up in memory.
 */
export interface OutputCapture {
  /** Raw bytes from the command's stdout or stderr. */
  write(chunk: Buffer | string): void;
  /** Ends the stream: flushes a held-back partial sequence and closes the log. */
  finish(): void;
  /** Head and tail within `maxChars`, for the model. */
  render(maxChars: number): RenderedOutput;
  /** The last `maxChars` characters so far (a progress preview; writes no log). */
  latest(maxChars: number): string;
  /** Counts everything so far as seen by the model (after a render). */
  markSeen(): void;
  /** Text added since the last look (its tail when there is more than `maxChars`). */
  takeNew(maxChars: number): RenderedOutput;
  readonly totalBytes: number;
  readonly totalChars: number;
  /** Set once the output spilled to disk. */
  readonly logPath: string | undefined;
}

export interface RenderedOutput {
  text: string;
  truncated: boolean;
  omittedChars: number;
}

export interface CaptureOptions {
  /** Where the full output goes once it no longer fits in memory. */
  logPath: string;
  /** Characters kept in memory before spilling (also the head and tail kept afterwards). */
  spillChars: number;
  /** Called once before the log file is first created (makes the folder, its .gitignore, ...). */
  prepare?: () => void;
}

export function createOutputCapture(options: CaptureOptions): OutputCapture {
  // loaded with the first command: a call that runs none (a one-shot view_file) need not load it
  const { StringDecoder } = process.getBuiltinModule("node:string_decoder");
  const decoder = new StringDecoder("utf8");
  const stripper = createAnsiStripper();
  let memory = ""; // the whole output while small
  let head = "";
  let tail = "";
  let spilled = false;
  let fd: number | undefined;
  let totalBytes = 0;
  let totalChars = 0;
  let seenChars = 0;
  let finished = false;
  let logged = false;

  function append(text: string): void {
    if (text === "") return;
    totalChars += text.length;
    if (!spilled) {
      memory += text;
      if (memory.length <= options.spillChars) return;
      spill();
      return;
    }
    writeLog(text);
    tail = (tail + text).slice(-options.spillChars);
  }

  function spill(): void {
    spilled = true;
    head = memory.slice(0, options.spillChars);
    tail = memory.slice(-options.spillChars);
    try {
      options.prepare?.();
      mkdirSync(path.dirname(options.logPath), { recursive: true });
      fd = openSync(options.logPath, "w", 0o600);
      logged = true;
      writeLog(memory);
    } catch {
      fd = undefined;
    }
    if (finished && fd !== undefined) {
      closeSync(fd);
      fd = undefined;
    }
    memory = "";
  }

  function writeLog(text: string): void {
    if (fd === undefined) return;
    try {
      writeSync(fd, text);
    } catch {
      // a full disk must not kill the command: memory still holds head and tail
      closeSync(fd);
      fd = undefined;
    }
  }

  function render(maxChars: number): RenderedOutput {
    if (!spilled && memory.length <= maxChars) return { text: memory, truncated: false, omittedChars: 0 };
    // whatever the model does not see must be in the log, so it can page it instead of re-running
    if (!spilled) spill();
    const headPart = spilled ? head : memory;
    const tailPart = spilled ? tail : memory;
    const headChars = Math.floor(maxChars / 2);
    const shownHead = cutAtLineEnd(headPart.slice(0, headChars));
    const shownTail = cutAtLineStart(tailPart.slice(-(maxChars - shownHead.length)));
    const omittedChars = totalChars - shownHead.length - shownTail.length;
    return {
      text: `${shownHead}\n[… ${omittedChars} characters omitted …]\n${shownTail}`,
      truncated: true,
      omittedChars,
    };
  }

  return {
    write(chunk) {
      if (finished) return;
      totalBytes += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.length;
      const text = typeof chunk === "string" ? chunk : decoder.write(chunk);
      append(stripper.push(text));
    },
    finish() {
      if (finished) return;
      finished = true;
      append(stripper.push(decoder.end()) + stripper.flush());
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
    render,
    latest(maxChars) {
      return (spilled ? tail : memory).slice(-maxChars);
    },
    markSeen() {
      seenChars = totalChars;
    },
    takeNew(maxChars) {
      const fresh = totalChars - seenChars;
      seenChars = totalChars;
      const source = spilled ? tail : memory;
      const available = Math.min(fresh, source.length, maxChars);
      const text = available > 0 ? source.slice(-available) : "";
      const omittedChars = fresh - available;
      return { text, truncated: omittedChars > 0, omittedChars };
    },
    get totalBytes() {
      return totalBytes;
    },
    get totalChars() {
      return totalChars;
    },
    get logPath() {
      return logged ? options.logPath : undefined;
    },
  };
}

function cutAtLineEnd(text: string): string {
  const lastBreak = text.lastIndexOf("\n");
  return lastBreak >= text.length * 0.8 ? text.slice(0, lastBreak + 1) : text;
}

function cutAtLineStart(text: string): string {
  const firstBreak = text.indexOf("\n");
  return firstBreak >= 0 && firstBreak <= text.length * 0.2 ? text.slice(firstBreak + 1) : text;
}
