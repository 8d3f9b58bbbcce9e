import { describe, expect, it } from "vitest";
import { createAnswerStream } from "../../../src/cli/tui/answer-stream.js";
import { preloadHighlighter } from "../../../src/cli/tui/highlight.js";
import { renderMarkdown } from "../../../src/cli/tui/markdown.js";
import { createTheme } from "../../../src/cli/tui/style.js";
import { stripAnsi } from "../../../src/cli/tui/text-width.js";

const plain = createTheme(false);
const colour = createTheme(true);
const render = (markdown: string, width = 60) => renderMarkdown(markdown, width, plain);

describe("Markdown answers", () => {
  it("draws headings, emphasis, code spans and links without their syntax", () => {
    expect(render("# Title\n\nSome **bold**, *italic*, `code` and [docs](https://x.dev).")).toEqual([
      "Title",
      "",
      "Some bold, italic, code and docs (https://x.dev).",
    ]);
    const styled = renderMarkdown("**bold** and `code`", 60, colour).join("\n");
    expect(styled).toContain("\x1b[1mbold\x1b[22m");
    expect(styled).toContain("\x1b[33mcode\x1b[39m");
  });

  it("draws bullet, numbered, nested and task lists with hanging indents", () => {
    expect(render("- one\n- two\n  - inner\n\n1. first\n2. second\n\n- [x] done\n- [ ] open")).toEqual([
      "• one",
      "• two",
      "  ◦ inner",
      "",
      "1. first",
      "2. second",
      "",
      "• ☑ done",
      "• ☐ open",
    ]);
    expect(render("- a long item that has to wrap onto a second line", 20)).toEqual([
      "• a long item that",
      "  has to wrap onto a",
      "  second line",
    ]);
  });

  it("draws a table with aligned columns that fits the width", () => {
    const lines = render("| name | size |\n|:-----|-----:|\n| a.ts | 12 |\n| long-name.ts | 3 |");
    expect(lines).toEqual([
      "name         │ size",
      "─────────────┼─────",
      "a.ts         │   12",
      "long-name.ts │    3",
    ]);
    for (const line of render("| a | b |\n|---|---|\n| " + "word ".repeat(30) + " | x |", 40))
      expect(line.length).toBeLessThanOrEqual(40);
  });

  it("draws fenced code indented, with its language, coloured by the highlighter", async () => {
    expect(render("```\nplain code\n```")).toEqual(["  plain code"]);
    await preloadHighlighter();
    const lines = renderMarkdown("```ts\nconst a = 1;\n```", 60, colour);
    expect(stripAnsi(lines.join("\n"))).toBe("  ts\n  const a = 1;");
    expect(lines[1]).toContain("\x1b[35mconst\x1b[39m");
  });

  it("draws quotes and rules", () => {
    expect(render("> quoted words\n\n---")).toEqual(["│ quoted words", "", "─".repeat(60)]);
  });
});

describe("a streamed answer", () => {
  it("sends each block to the scrollback once it is final and keeps drawing only the growing one", () => {
    const stream = createAnswerStream(plain, () => 60);
    expect(stream.push("# Ti")).toEqual([]);
    expect(stream.live(60)).toEqual(["Ti"]);
    expect(stream.push("tle\n\nFirst para")).toEqual(["Title"]);
    expect(stream.live(60)).toEqual(["", "First para"]);
    expect(stream.push("graph.\n\n- item")).toEqual(["", "First paragraph."]);
    expect(stream.end()).toEqual(["", "• item"]);
    expect(stream.empty).toBe(true);
  });

  it("keeps an open code fence growing until it closes", () => {
    const stream = createAnswerStream(plain, () => 60);
    expect(stream.push("```js\nlet a = 1;\n")).toEqual([]);
    expect(stream.push("let b = 2;\n```\n\nAfter.")).toEqual(["  js", "  let a = 1;", "  let b = 2;"]);
    expect(stream.end()).toEqual(["", "After."]);
  });
});
