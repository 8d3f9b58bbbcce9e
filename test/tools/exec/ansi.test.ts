import { describe, expect, it } from "vitest";
import { createAnsiStripper, stripAnsi } from "../../../src/tools/exec/ansi.js";

describe("stripAnsi", () => {
  it("removes colours, cursor moves, window titles and hyperlinks", () => {
    const text =
      "\u001b[1;31mred\u001b[0m \u001b[2K\u001b[1Gline \u001b]0;title\u0007\u001b]8;;http://x\u001b\\link\u001b]8;;\u001b\\ \u001b(Bdone";
    expect(stripAnsi(text)).toBe("red line link done");
  });

  it("turns carriage-return redraws into lines and drops other control characters", () => {
    expect(stripAnsi("10%\r20%\r\nok\u0007\u0000\tend")).toBe("10%\n20%\nok\tend");
  });
});

describe("createAnsiStripper", () => {
  it("holds back a sequence split across chunks until its end arrives", () => {
    const stripper = createAnsiStripper();
    const parts = ["a\u001b[3", "1mb\u001b", "[0mc\u001b]0;ti", "tle\u0007d\r", "\ne"];
    const out = parts.map((part) => stripper.push(part)).join("") + stripper.flush();
    expect(out).toBe("abcd\ne");
  });
});
