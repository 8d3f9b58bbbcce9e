import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { editorText } from "../../../src/cli/tui/editor.js";
import { openPromptHistory } from "../../../src/cli/tui/history.js";
import { createKeyParser } from "../../../src/cli/tui/keys.js";
import { createPromptInput, type PromptAction } from "../../../src/cli/tui/prompt-input.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function promptInput(files: string[] = []) {
  const dir = mkdtempSync(path.join(tmpdir(), "gantry-history-"));
  dirs.push(dir);
  const file = path.join(dir, "history.jsonl");
  const input = createPromptInput({
    history: openPromptHistory(file),
    files: () => files,
    commands: { "/help": "", "/model": "" },
  });
  const actions: PromptAction[] = [];
  const type = (raw: string) => {
    for (const key of createKeyParser().feed(raw)) {
      const action = input.key(key);
      if (action) actions.push(action);
    }
  };
  return { input, actions, type, file };
}

describe("the prompt input", () => {
  it("edits with readline keys: word delete, line start and end, kill to end", () => {
    const { input, type } = promptInput();
    type("hello big world\x17"); // Ctrl-W
    expect(editorText(input.state.editor)).toBe("hello big ");
    type("\x01X\x05Y"); // Ctrl-A, Ctrl-E
    expect(editorText(input.state.editor)).toBe("Xhello big Y");
    type("\x01\x1bf\x0b"); // Alt-F, Ctrl-K
    expect(editorText(input.state.editor)).toBe("Xhello");
  });

  it("keeps history in a file, so a new input (a new session) recalls it", () => {
    const first = promptInput();
    first.type("one\rtwo\r");
    expect(first.actions).toEqual([
      { type: "submit", text: "one" },
      { type: "submit", text: "two" },
    ]);
    const input = createPromptInput({
      history: openPromptHistory(first.file),
      files: () => [],
      commands: {},
    });
    for (const key of createKeyParser().feed("\x1b[A\x1b[A")) input.key(key);
    expect(editorText(input.state.editor)).toBe("one");
  });

  it("moves between the lines of a multi-line prompt before going through history", () => {
    const { input, type } = promptInput();
    type("old\r");
    type("a\x1b\rb"); // Alt-Enter between
    type("\x1b[A");
    expect(input.state.editor.row).toBe(0);
    type("\x1b[A");
    expect(editorText(input.state.editor)).toBe("old");
    type("\x1b[B");
    expect(editorText(input.state.editor)).toBe("a\nb");
  });

  it("completes /commands at the prompt's start and runs the one chosen with Enter", () => {
    const { input, type, actions } = promptInput();
    type("/mo");
    expect(input.state.completion?.items.map((item) => item.label)).toEqual(["/model"]);
    type("\r");
    expect(actions).toEqual([{ type: "submit", text: "/model " }]);
  });

  it("completes @paths, best match first, and Esc closes the list until the word changes", () => {
    const { input, type } = promptInput(["docs/readme.md", "src/", "src/read.ts", "src/other.ts"]);
    type("see @rea");
    expect(input.state.completion?.items.map((item) => item.label)).toEqual([
      "src/read.ts",
      "docs/readme.md",
    ]);
    type("\x1b[27u");
    expect(input.state.completion).toBeUndefined();
    type("d");
    expect(input.state.completion?.items[0]?.label).toBe("src/read.ts");
    type("\t");
    expect(editorText(input.state.editor)).toBe("see @src/read.ts ");
  });

  it("reports the keys that are not editing as actions", () => {
    const { type, actions } = promptInput();
    type("\x1b[Z\x0f\x03\x04");
    expect(actions.map((action) => action.type)).toEqual(["cycle-mode", "expand", "interrupt", "exit"]);
  });
});
