import { afterEach, describe, expect, it } from "vitest";
import { createEditHarness, type EditHarness } from "./edit-support.js";

let h: EditHarness;
afterEach(async () => h?.cleanup());

const FILE = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

const chunk = (target: string, replacement: string, start: number, end: number, allowMultiple = false) => ({
  TargetContent: target,
  ReplacementContent: replacement,
  StartLine: start,
  EndLine: end,
  AllowMultiple: allowMultiple,
});

const multi = (chunks: unknown[]) => ({
  TargetFile: "m.txt",
  Instruction: "test",
  Description: "test",
  ReplacementChunks: chunks,
});

async function viewed() {
  h = await createEditHarness({ "m.txt": FILE });
  await h.view("m.txt");
}

describe("multi_replace_file_content", () => {
  it("applies every chunk, each located by the original file's line numbers", async () => {
    await viewed();
    const result = await h.run(
      "multi_replace_file_content",
      multi([
        chunk("line 2\n", "two\nmore\nlines\n", 2, 2),
        chunk("line 20\n", "twenty\n", 20, 20),
        chunk("line 29\n", "", 29, 29),
      ]),
    );
    expect(result.error).toBe(false);
    const expected = FILE.replace("line 2\n", "two\nmore\nlines\n")
      .replace("line 20\n", "twenty\n")
      .replace("line 29\n", "");
    expect(await h.text("m.txt")).toBe(expected);
    expect(result.metadata).toMatchObject({
      replacements: 3,
      linesAdded: 4,
      linesRemoved: 3,
      rangeAdjusted: false,
    });
  });

  it("applies none when one chunk fails, naming that chunk by index", async () => {
    await viewed();
    const result = await h.run(
      "multi_replace_file_content",
      multi([
        chunk("line 2\n", "two\n", 2, 2),
        chunk("no such text", "x", 5, 6),
        chunk("line 9\n", "nine\n", 9, 9),
      ]),
    );
    expect(result.errorCode).toBe("no_match");
    expect(result.text).toContain("ReplacementChunks[1] (chunk 2 of 3)");
    expect(result.metadata.failedChunk).toBe(1);
    expect(await h.text("m.txt")).toBe(FILE);
  });

  it("checks every chunk against the original file: text that only an earlier chunk adds is not found", async () => {
    await viewed();
    const result = await h.run(
      "multi_replace_file_content",
      multi([
        chunk("line 2\n", "line 2\nadded by chunk 1\n", 2, 2),
        chunk("added by chunk 1\n", "x\n", 3, 3),
      ]),
    );
    expect(result.errorCode).toBe("no_match");
    expect(result.text).toContain("ReplacementChunks[1] (chunk 2 of 2)");
    expect(result.text).toContain("The file is unchanged.");
    expect(result.metadata.failedChunk).toBe(1);
    expect(await h.text("m.txt")).toBe(FILE);
  });

  it("locates a later chunk by the original line numbers exactly, however far an earlier chunk shifts lines", async () => {
    // `x = 1` at lines 10 and 25; chunk 1 adds 15 lines above both, so line 25 of the edited text is the first one
    const lines = Array.from({ length: 30 }, (_, i) => (i === 9 || i === 24 ? "x = 1" : `line ${i + 1}`));
    const original = `${lines.join("\n")}\n`;
    h = await createEditHarness({ "m.txt": original });
    await h.view("m.txt");
    const added = Array.from({ length: 15 }, (_, i) => `new ${i + 1}\n`).join("");
    const result = await h.run(
      "multi_replace_file_content",
      multi([chunk("line 5\n", `line 5\n${added}`, 5, 5), chunk("x = 1\n", "x = 2\n", 25, 25)]),
    );
    expect(result.error).toBe(false);
    const expectedLines = [...lines];
    expectedLines[24] = "x = 2";
    expectedLines[4] = `line 5\n${added.slice(0, -1)}`;
    expect(await h.text("m.txt")).toBe(`${expectedLines.join("\n")}\n`);
    expect(result.metadata).toMatchObject({
      rangeAdjusted: false,
      chunks: [
        { occurrences: 1, lines: ["5"], rangeAdjusted: false },
        { occurrences: 1, lines: ["25"], rangeAdjusted: false },
      ],
    });
    expect(result.text).not.toContain("adjusted");
  });

  it("refuses overlapping chunks and changes nothing", async () => {
    await viewed();
    const result = await h.run(
      "multi_replace_file_content",
      multi([chunk("line 4\nline 5\n", "x\n", 4, 5), chunk("line 5\nline 6\n", "y\n", 5, 6)]),
    );
    expect(result.errorCode).toBe("conflict");
    expect(result.text).toContain("ReplacementChunks[0] and ReplacementChunks[1] overlap");
    expect(await h.text("m.txt")).toBe(FILE);
  });

  it("names an ambiguous chunk and an empty one", async () => {
    await viewed();
    const ambiguous = await h.run(
      "multi_replace_file_content",
      multi([chunk("line 1\n", "one\n", 1, 1), chunk("line", "row", 1, 30)]),
    );
    expect(ambiguous.errorCode).toBe("ambiguous_match");
    expect(ambiguous.text).toContain("ReplacementChunks[1]");
    const empty = await h.run("multi_replace_file_content", multi([chunk("", "x", 1, 1)]));
    expect(empty.errorCode).toBe("invalid_arguments");
    expect(empty.text).toContain("ReplacementChunks[0]");
    expect(await h.text("m.txt")).toBe(FILE);
  });

  it("refuses an empty chunk list at validation", async () => {
    await viewed();
    const result = await h.run("multi_replace_file_content", multi([]));
    expect(result.errorCode).toBe("invalid_arguments");
    expect(result.text).toContain("ReplacementChunks");
  });
});
