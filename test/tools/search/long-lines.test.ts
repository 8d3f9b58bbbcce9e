import { describe, expect, it } from "vitest";
import { MAX_LINE_CHARS, windowOfLine, windowOfLineBytes } from "../../../src/tools/search/long-lines.js";
import { seededRandom } from "../../support/random.js";

// A long line of a literal search is cut from its bytes without decoding it whole: it must read exactly
// as the whole line cut by characters would (surrogate pairs cut in two included).

describe("a long line's window from its bytes", () => {
  it("equals the window of the decoded line, wherever the match is, with and without a CR line end", () => {
    const next = seededRandom(7);
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

  it("equals it too for a UTF-8 line of 2-, 3- and 4-byte characters, decoding only the bytes near the match", () => {
    const next = seededRandom(11);
    const alphabet = ["a", "b", " ", "é", "ß", "日", "本", "€", "😀", "𝄞", "\uFFFD"];
    const chars = (n: number) =>
      Array.from({ length: n }, () => alphabet[Math.floor(next() * alphabet.length)] as string).join("");
    for (let round = 0; round < 400; round++) {
      // the match anywhere, often within a window's width of either end, where the window is clamped
      const place = next();
      const total = 1_100 + Math.floor(next() * 6_000);
      const before =
        place < 0.25
          ? Math.floor(next() * 150)
          : place < 0.5
            ? total - Math.floor(next() * 150)
            : Math.floor(next() * total);
      const needle = next() < 0.5 ? "NEEDLE" : "ñeedlé";
      const text = `${chars(before)}${needle}${chars(Math.max(0, total - before))}`;
      const crlf = next() < 0.3 ? "\r" : "";
      const head = Buffer.from("head\n");
      const body = Buffer.from(`${text}${crlf}`);
      if (body.length <= 4_096) continue;
      const bytes = Buffer.concat([head, body, Buffer.from("\ntail\n")]);
      const start = head.length;
      const at = start + body.indexOf(Buffer.from(needle));
      const window = windowOfLineBytes(bytes, start, start + body.length, at);
      expect(window).toBe(windowOfLine(text, text.indexOf(needle)));
    }
  });

  it("leaves short lines and lines that are not valid UTF-8 to be decoded whole", () => {
    const short = Buffer.from(`${"a".repeat(4_000)}NEEDLE`);
    expect(windowOfLineBytes(short, 0, short.length, 4_000)).toBeUndefined();
    const invalid = Buffer.concat([
      Buffer.from("a".repeat(5_000)),
      Buffer.from([0xe2, 0x28]),
      Buffer.from("NEEDLE"),
    ]);
    expect(windowOfLineBytes(invalid, 0, invalid.length, invalid.indexOf("NEEDLE"))).toBeUndefined();
  });
});
