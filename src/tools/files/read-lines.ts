import { TextDecoder } from "node:util";
import { type ContentDigest, createContentHasher } from "../../workspace/content-digest.js";

/** What the window reads from: an open file (OpenFile fits), or text an editor holds (bytesSource). */
export interface ByteSource {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
}

/** Bytes in memory as a ByteSource: an editor's unsaved buffer read like a file. */
export function bytesSource(bytes: Buffer): ByteSource {
  return {
    async read(buffer, offset, length, position) {
      const bytesRead = bytes.copy(buffer, offset, position, Math.min(bytes.length, position + length));
      return { bytesRead };
    },
  };
}

/** Which lines of a file to show, and how much room the numbered output has. */
export interface LineWindowRequest {
  /** 1-based, inclusive. */
  startLine: number;
  /** 1-based, inclusive. */
  endLine: number;
  /** Characters of `startLine` to skip (paging through one very long line). */
  contentOffset: number;
  /** Characters the numbered lines may take, newlines included. */
  maxChars: number;
  /** Read to the end after the window (for `totalLines` and the hash); false stops at the window's end. */
  readToEnd: boolean;
  /** Bytes to read at most: the size when the file was opened, so a growing file cannot keep us reading. */
  sizeBytes: number;
  signal: AbortSignal;
}

export interface LineWindow {
  /** Numbered lines, `   12\ttext`. */
  lines: string[];
  firstLine: number;
  /** Last line shown (maybe partly); `firstLine - 1` when none was. */
  lastLine: number;
  /** Known when the read reached the end of the file. */
  totalLines?: number;
  /** Set when the output budget ran out: where the next call starts. */
  cut?: { nextStartLine: number; nextContentOffset?: number };
  /** True when the file goes on past the window. */
  moreAfter: boolean;
  /** sha256 of every byte, when the whole file was read (maybe made when first asked for). */
  sha256?: ContentDigest;
  /** Set when `contentOffset` lies past the end of `startLine`: that line's length in characters. */
  offsetPastEndOfLine?: number;
}

const CHUNK_BYTES = 1 << 20;
const NEWLINE = 0x0a;

/** The prefix of a numbered line, as `cat -n` prints it. */
export function numberedLine(lineNumber: number, text: string): string {
  return `${String(lineNumber).padStart(5)}\t${text}`;
}

/**
 * Streams the file once, in fixed chunks, and keeps only the lines of the window: a range near the
 * end of a huge file costs one pass of newline scanning and a constant amount of memory.
 */
export async function readLineWindow(handle: ByteSource, request: LineWindowRequest): Promise<LineWindow> {
  const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK_BYTES, request.sizeBytes)));
  const hash = request.readToEnd ? createContentHasher(request.sizeBytes) : undefined;
  const window = createWindowCollector(request);
  let position = 0;
  let consumedAll = true;
  while (position < request.sizeBytes && consumedAll) {
    request.signal.throwIfAborted();
    const wanted = Math.min(buffer.length, request.sizeBytes - position);
    const { bytesRead } = await handle.read(buffer, 0, wanted, position);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    hash?.update(chunk);
    consumedAll = window.feed(chunk, position, request.sizeBytes);
    position += bytesRead;
  }
  const reachedEnd = consumedAll;
  return window.result(reachedEnd, reachedEnd && hash ? hash.digest() : undefined);
}

function createWindowCollector(request: LineWindowRequest) {
  const lines: string[] = [];
  let usedChars = 0;
  let lineNumber = 1;
  let lineHasBytes = false;
  let closed = false;
  let moreAfter = false;
  let cut: LineWindow["cut"];
  let offsetPastEndOfLine: number | undefined;
  let builder = request.startLine === 1 ? startLine(1) : undefined;

  function startLine(number: number): LineBuilder | undefined {
    const offset = number === request.startLine ? request.contentOffset : 0;
    const room = request.maxChars - usedChars - numberedLine(number, "").length - 1;
    if (room <= 0 && lines.length > 0) {
      close({ nextStartLine: number });
      return undefined;
    }
    return createLineBuilder(offset, Math.max(room, 1), number === 1);
  }

  function close(at?: LineWindow["cut"]) {
    closed = true;
    cut = at;
  }

  function finishLine() {
    if (!builder) return;
    const line = builder.finish();
    builder = undefined;
    if (line.offsetPastEnd !== undefined) {
      offsetPastEndOfLine = line.offsetPastEnd;
      return close();
    }
    if (!line.partial) {
      lines.push(numberedLine(lineNumber, line.text));
      usedChars += numberedLine(lineNumber, line.text).length + 1;
      return;
    }
    if (lines.length > 0) return close({ nextStartLine: lineNumber });
    // one line longer than the whole budget: show its first part and say where the rest starts
    lines.push(numberedLine(lineNumber, line.text));
    const offset = lineNumber === request.startLine ? request.contentOffset : 0;
    close({ nextStartLine: lineNumber, nextContentOffset: offset + line.text.length });
  }

  return {
    /** Returns false when it stopped before the chunk's end (the window is done and nothing else is wanted). */
    feed(chunk: Buffer, chunkStart: number, sizeBytes: number): boolean {
      let at = 0;
      while (at < chunk.length) {
        if (closed && !request.readToEnd) return false;
        const newline = chunk.indexOf(NEWLINE, at);
        if (newline === -1) {
          builder?.add(chunk.subarray(at));
          lineHasBytes = true;
          return true;
        }
        if (builder) {
          builder.add(chunk.subarray(at, newline));
          finishLine();
        }
        lineNumber++;
        lineHasBytes = false;
        at = newline + 1;
        if (closed) continue;
        if (lineNumber > request.endLine) {
          moreAfter = chunkStart + at < sizeBytes;
          close();
        } else if (lineNumber >= request.startLine) {
          builder = startLine(lineNumber);
        }
      }
      return true;
    },
    result(reachedEnd: boolean, sha256: ContentDigest | undefined): LineWindow {
      if (reachedEnd && lineHasBytes) finishLine();
      const totalLines = reachedEnd ? (lineHasBytes ? lineNumber : lineNumber - 1) : undefined;
      const shown = lines.length;
      if (cut || (totalLines !== undefined && totalLines > request.endLine)) moreAfter = true;
      return {
        lines,
        firstLine: request.startLine,
        lastLine: request.startLine + shown - 1,
        totalLines,
        cut,
        moreAfter,
        sha256,
        offsetPastEndOfLine,
      };
    },
  };
}

interface LineBuilder {
  add(bytes: Uint8Array): void;
  finish(): { text: string; partial: boolean; offsetPastEnd?: number };
}

/** Lines up to this many bytes are decoded in one go; longer ones through a streaming decoder. */
const WHOLE_LINE_BYTES = 64 * 1024;

/**
 * Decodes one line, skipping `offset` characters and keeping at most `room + 1`, so a 100 MB line
 * without a newline never becomes a 100 MB string.
 */
function createLineBuilder(offset: number, room: number, isFirstLine: boolean): LineBuilder {
  const pending: Buffer[] = [];
  let pendingBytes = 0;
  let decoder: TextDecoder | undefined;
  const parts: string[] = [];
  let toSkip = offset;
  let kept = 0;
  let overflowed = false;

  function take(text: string) {
    let rest = text;
    if (toSkip > 0) {
      if (rest.length <= toSkip) {
        toSkip -= rest.length;
        return;
      }
      rest = rest.slice(toSkip);
      toSkip = 0;
    }
    const space = room + 1 - kept;
    if (rest.length > space) {
      rest = rest.slice(0, space);
      overflowed = true;
    }
    parts.push(rest);
    kept += rest.length;
  }

  function stream(bytes: Uint8Array) {
    // the first line drops a UTF-8 byte order mark; later lines keep what they hold
    decoder ??= new TextDecoder("utf-8", { ignoreBOM: !isFirstLine });
    take(decoder.decode(bytes, { stream: true }));
  }

  return {
    add(bytes) {
      if (overflowed) return;
      if (decoder) return stream(bytes);
      // the chunk buffer is reused, so what is kept must be copied
      pending.push(Buffer.from(bytes));
      pendingBytes += bytes.length;
      if (pendingBytes > WHOLE_LINE_BYTES) stream(Buffer.concat(pending.splice(0)));
    },
    finish() {
      if (!overflowed && decoder) take(decoder.decode());
      else if (!overflowed) {
        const text = Buffer.concat(pending).toString("utf8");
        take(isFirstLine && text.startsWith("\uFEFF") ? text.slice(1) : text);
      }
      if (toSkip > 0 || (offset > 0 && kept === 0)) {
        return { text: "", partial: false, offsetPastEnd: offset - toSkip };
      }
      let text = parts.join("");
      if (!overflowed && text.endsWith("\r")) text = text.slice(0, -1);
      if (!overflowed && text.length <= room) return { text, partial: false };
      let end = room;
      const code = text.charCodeAt(end - 1);
      if (code >= 0xd800 && code <= 0xdbff && end > 1) end--; // never split a surrogate pair
      return { text: text.slice(0, end), partial: true };
    },
  };
}
