import { describe, expect, it } from "vitest";
import { MAX_LINE_CHARS, windowOfLine, windowOfLineBytes } from "../../../src/tools/search/long-lines.js";

// A long line of a literal search is cut from its bytes without decoding it whole: it must read exactly
// as the whole line cut by characters would.

/** A deterministic pseudo-random source (the same cases every run). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 2 ** 32;
  };
}

describe("a long line's window from its bytes", () => {
  it("equals the window of the decoded line, wherever the match is, with and without a CR line end", () => {
    const next = random(7);
    for (let round = 0; round < 300; round++) {
      const length = 4_097 + Math.floor(next() * 20_000);
      const at = Math.floor(next() * (length - 6));
      const filler = (n: number) =>
        Array.from({ length: n }, () => String.fromCharCode(32 + Math.floor(next() * 95))).join("");
      const line = `${filler(at)}NEEDLE${filler(length - at - 6)}`.replaceAll("NEEDLE", "needle");
      const text = `${line.slice(0, at)}NEEDLE${line.slice(at + 6)}`;
      const crlf = next() < 0.3 ? "\r" : "";
      const bytes = Buffer.from(`head\n${text}${crlf}\ntail\n`, "latin1");
      const start = 5;
      const end = start + text.length + crlf.length;
      const window = windowOfLineBytes(bytes, start, end, start + text.indexOf("NEEDLE"));
      expect(window).toBe(windowOfLine(text, text.indexOf("NEEDLE")));
      expect((window as string).length).toBeLessThanOrEqual(MAX_LINE_CHARS + 2);
    }
  });

  it("leaves short lines and lines with any non-ASCII byte to be decoded whole", () => {
    const short = Buffer.from(`${"a".repeat(4_000)}NEEDLE`);
    expect(windowOfLineBytes(short, 0, short.length, 4_000)).toBeUndefined();
    const unicode = Buffer.from(`${"a".repeat(5_000)}é NEEDLE${"b".repeat(5_000)}`);
    expect(windowOfLineBytes(unicode, 0, unicode.length, unicode.indexOf("NEEDLE"))).toBeUndefined();
  });
});
