import { describe, expect, it } from "vitest";
import { createKeyParser, keyId } from "../../../src/cli/tui/keys.js";

const ids = (data: string) => createKeyParser().feed(data).map(keyId);

describe("the key parser", () => {
  it("reads typed characters, Enter, Backspace and control keys", () => {
    expect(ids("hé\r\x7f\x03\x12\x0f")).toEqual([
      "h",
      "é",
      "enter",
      "backspace",
      "ctrl+c",
      "ctrl+r",
      "ctrl+o",
    ]);
  });

  it("reads arrows, Shift-Tab, Delete and modified arrows in their xterm forms", () => {
    expect(ids("\x1b[A\x1b[B\x1bOC\x1b[D\x1b[Z\x1b[3~\x1b[1;5C\x1b[H\x1b[F")).toEqual([
      "up",
      "down",
      "right",
      "left",
      "shift+tab",
      "delete",
      "ctrl+right",
      "home",
      "end",
    ]);
  });

  it("tells the new-line keys from Enter: Alt-Enter, Ctrl-J, kitty and modifyOtherKeys Shift-Enter", () => {
    expect(ids("\x1b\r\n\x1b[13;2u\x1b[27;2;13~")).toEqual([
      "alt+enter",
      "ctrl+enter",
      "shift+enter",
      "shift+enter",
    ]);
  });

  it("reads the kitty protocol's Escape and Ctrl-C", () => {
    expect(ids("\x1b[27u\x1b[99;5u")).toEqual(["escape", "ctrl+c"]);
  });

  it("gives a bracketed paste as one key with its newlines, also across chunks", () => {
    const parser = createKeyParser();
    expect(parser.feed("\x1b[200~line one\r\nline")).toEqual([]);
    expect(parser.feed(" two\x1b[201~x")).toEqual([
      { name: "paste", text: "line one\nline two", ctrl: false, alt: false, shift: false },
      { name: "char", text: "x", ctrl: false, alt: false, shift: false },
    ]);
  });

  it("waits for the rest of a sequence split across reads; a lone ESC is Escape after flush", () => {
    const parser = createKeyParser();
    expect(parser.feed("\x1b")).toEqual([]);
    expect(parser.pending).toBe(true);
    expect(parser.feed("[A").map(keyId)).toEqual(["up"]);
    expect(parser.feed("\x1b")).toEqual([]);
    expect(parser.flush().map(keyId)).toEqual(["escape"]);
    expect(parser.pending).toBe(false);
  });

  it("reads Alt and a letter as alt+letter", () => {
    expect(ids("\x1bb\x1bf\x1b\x7f")).toEqual(["alt+b", "alt+f", "alt+backspace"]);
  });
});
