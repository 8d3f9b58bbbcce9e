import { describe, expect, it } from "vitest";
import {
  stripAnsi,
  truncateToWidth,
  visibleWidth,
  wrapLine,
  wrapText,
} from "../../../src/cli/tui/text-width.js";

describe("terminal text widths", () => {
  it("counts escape codes as nothing, wide characters as two, combining marks as nothing", () => {
    expect(visibleWidth("\x1b[1mbold\x1b[22m")).toBe(4);
    expect(visibleWidth("日本")).toBe(4);
    expect(visibleWidth("🙂")).toBe(2);
    expect(visibleWidth("e\u0301")).toBe(1);
  });

  it("wraps at spaces, inside a word only when it must, never past the width", () => {
    expect(wrapLine("the quick brown fox", 10)).toEqual(["the quick", "brown fox"]);
    expect(wrapLine("abcdefghijkl", 5)).toEqual(["abcde", "fghij", "kl"]);
    for (const line of wrapLine("日本語のテキストを折り返す", 7))
      expect(visibleWidth(line)).toBeLessThanOrEqual(7);
  });

  it("closes a style at a break and opens it again on the next line", () => {
    const [first, second] = wrapLine("\x1b[32mgreen words here\x1b[39m", 11);
    expect(first).toBe("\x1b[32mgreen words\x1b[0m");
    expect(second?.startsWith("\x1b[32mhere\x1b[39m")).toBe(true);
    expect(stripAnsi(second ?? "")).toBe("here");
  });

  it("keeps newlines and expands tabs", () => {
    expect(wrapText("a\tb\nc", 20)).toEqual(["a   b", "c"]);
  });

  it("cuts a line to a width with an ellipsis", () => {
    expect(truncateToWidth("abcdefgh", 5)).toBe("abcd…");
    expect(visibleWidth(truncateToWidth("\x1b[1mabcdefgh\x1b[22m", 5))).toBe(5);
    expect(truncateToWidth("abc", 5)).toBe("abc");
  });
});
