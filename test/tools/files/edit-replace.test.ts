import { afterEach, describe, expect, it } from "vitest";
import { createEditHarness, type EditHarness, replaceArgs } from "./edit-support.js";

const numberedLines = (count: number) =>
  Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

let h: EditHarness;
afterEach(async () => h?.cleanup());

async function harnessWith(
  files: Record<string, string | Uint8Array>,
  viewed: string[] = Object.keys(files),
) {
  h = await createEditHarness(files);
  for (const file of viewed) expect((await h.view(file)).error).toBe(false);
  return h;
}

describe("replace_file_content", () => {
  it("replaces the exact block inside the range and reports diff, line counts and bytes", async () => {
    await harnessWith({ "a.txt": numberedLines(10) });
    const result = await h.run(
      "replace_file_content",
      replaceArgs("a.txt", "line 5\n", "five\nfive b\n", 4, 6),
    );
    expect(result.error).toBe(false);
    expect(await h.text("a.txt")).toBe(numberedLines(10).replace("line 5\n", "five\nfive b\n"));
    expect(result.metadata).toMatchObject({
      linesAdded: 2,
      linesRemoved: 1,
      rangeAdjusted: false,
      replacements: 1,
    });
    expect(result.metadata.bytesWritten).toBe((await h.bytes("a.txt")).length);
    expect(result.metadata.diff).toContain("@@ -2,7 +2,8 @@");
    expect(result.metadata.diff).toContain("-line 5\n+five\n+five b\n");
  });

  it("answers to the aliases edit and replace", async () => {
    await harnessWith({ "a.txt": "x\n" });
    expect((await h.run("edit", replaceArgs("a.txt", "x", "y", 1, 1))).error).toBe(false);
    expect((await h.run("replace", replaceArgs("a.txt", "y", "z", 1, 1))).error).toBe(false);
    expect(await h.text("a.txt")).toBe("z\n");
  });

  it("tolerates a range a few lines off and says so in metadata", async () => {
    await harnessWith({ "a.txt": numberedLines(40) });
    const result = await h.run("replace_file_content", replaceArgs("a.txt", "line 20\n", "twenty\n", 14, 16));
    expect(result.error).toBe(false);
    expect(result.metadata.rangeAdjusted).toBe(true);
    expect(result.text).toContain("adjusted");
    expect(await h.text("a.txt")).toContain("line 19\ntwenty\nline 21\n");
  });

  it("refuses text that is in the file only far outside the range, naming where it is", async () => {
    await harnessWith({ "a.txt": numberedLines(100) });
    const before = await h.bytes("a.txt");
    const result = await h.run("replace_file_content", replaceArgs("a.txt", "line 90\n", "ninety\n", 1, 5));
    expect(result.errorCode).toBe("no_match");
    expect(result.text).toContain("lines 90–90");
    expect(await h.bytes("a.txt")).toEqual(before);
  });

  it("shows the same text modulo whitespace, with its line numbers, when the target is not exact", async () => {
    const file = "function f() {\n\tif (x) {\n\t\treturn 1;\n\t}\n}\n";
    await harnessWith({ "a.js": file });
    const result = await h.run(
      "replace_file_content",
      replaceArgs("a.js", "  if (x) {\n    return 1;\n  }", "if (y) {}", 1, 5),
    );
    expect(result.errorCode).toBe("no_match");
    expect(result.text).toContain("ignoring whitespace and indentation, is at lines 2–4");
    expect(result.text).toContain("3: \t\treturn 1;");
    expect(await h.text("a.js")).toBe(file);
  });

  it("shows the closest similar text when nothing matches even modulo whitespace", async () => {
    await harnessWith({ "a.js": "const alpha = 1;\nconst beta = computeBeta(alpha);\nexport { beta };\n" });
    const result = await h.run(
      "replace_file_content",
      replaceArgs("a.js", "const beta = computeBetta(alpha);", "const beta = 2;", 1, 3),
    );
    expect(result.errorCode).toBe("no_match");
    expect(result.text).toMatch(/closest text \(\d+% similar\) is at lines 2–2/);
    expect(result.text).toContain("2: const beta = computeBeta(alpha);");
  });

  it("hints that line numbers copied from view_file do not belong in TargetContent", async () => {
    await harnessWith({ "a.txt": "alpha\nbeta\n" });
    const result = await h.run("replace_file_content", replaceArgs("a.txt", "1: alpha\n2: beta", "x", 1, 2));
    expect(result.errorCode).toBe("no_match");
    expect(result.text).toContain("line number");
  });

  it("lists every line of an ambiguous target and changes nothing", async () => {
    await harnessWith({ "a.txt": "x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n" });
    const result = await h.run("replace_file_content", replaceArgs("a.txt", "x = 1", "x = 9", 1, 5));
    expect(result.errorCode).toBe("ambiguous_match");
    expect(result.text).toContain("occurs 3 times");
    expect(result.text).toContain("at lines 1, 3, 5");
    expect(await h.text("a.txt")).toBe("x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n");
  });

  it("replaces every occurrence within the range with AllowMultiple, and none outside it", async () => {
    const file = `${"x = 1\n".repeat(3)}${"pad\n".repeat(20)}x = 1\n`;
    await harnessWith({ "a.txt": file });
    const result = await h.run("replace_file_content", replaceArgs("a.txt", "x = 1", "x = 9", 1, 3, true));
    expect(result.error).toBe(false);
    expect(result.metadata.replacements).toBe(3);
    expect(await h.text("a.txt")).toBe(`${"x = 9\n".repeat(3)}${"pad\n".repeat(20)}x = 1\n`);
  });

  it("refuses an empty TargetContent", async () => {
    await harnessWith({ "a.txt": "x\n" });
    const result = await h.run("replace_file_content", replaceArgs("a.txt", "", "y", 1, 1));
    expect(result.errorCode).toBe("invalid_arguments");
    expect(result.text).toContain("TargetContent is empty");
    expect(await h.text("a.txt")).toBe("x\n");
  });

  it("keeps CRLF line endings and converts the model's LF text to CRLF", async () => {
    await harnessWith({ "w.txt": "one\r\ntwo\r\nthree\r\n" });
    const result = await h.run("replace_file_content", replaceArgs("w.txt", "two\nthree", "2\n2b\n3", 2, 3));
    expect(result.error).toBe(false);
    expect((await h.bytes("w.txt")).toString("latin1")).toBe("one\r\n2\r\n2b\r\n3\r\n");
    expect(result.metadata.lineEnding).toBe("crlf");
  });

  it("finds a CRLF file's text when the model sends CRLF too", async () => {
    await harnessWith({ "w.txt": "one\r\ntwo\r\n" });
    const result = await h.run("replace_file_content", replaceArgs("w.txt", "one\r\ntwo", "1\r\n2", 1, 2));
    expect(result.error).toBe(false);
    expect((await h.bytes("w.txt")).toString("latin1")).toBe("1\r\n2\r\n");
  });

  it("edits a mixed-ending file without touching the endings of other lines", async () => {
    await harnessWith({ "m.txt": "a\r\nb\nc\r\nd\n" });
    const result = await h.run("replace_file_content", replaceArgs("m.txt", "c\nd", "C\nD", 3, 4));
    expect(result.error).toBe(false);
    expect((await h.bytes("m.txt")).toString("latin1")).toBe("a\r\nb\nC\r\nD\n");
  });

  it("keeps a UTF-8 BOM", async () => {
    await harnessWith({ "b.txt": Buffer.from("\uFEFFhello\nworld\n", "utf8") });
    const result = await h.run("replace_file_content", replaceArgs("b.txt", "hello", "bye", 1, 1));
    expect(result.error).toBe(false);
    const bytes = await h.bytes("b.txt");
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).toString("utf8")).toBe("bye\nworld\n");
  });

  it("keeps the absence of a final newline when the replacement ends with one", async () => {
    await harnessWith({ "n.txt": "a\nlast" });
    const result = await h.run("replace_file_content", replaceArgs("n.txt", "last", "final\n", 2, 2));
    expect(result.error).toBe(false);
    expect(await h.text("n.txt")).toBe("a\nfinal");
  });

  it("keeps the final newline when the replacement of the last line drops it", async () => {
    await harnessWith({ "n.txt": "a\nlast\n" });
    const result = await h.run("replace_file_content", replaceArgs("n.txt", "last\n", "final", 2, 2));
    expect(result.error).toBe(false);
    expect(await h.text("n.txt")).toBe("a\nfinal\n");
  });

  it("tells the model to create a missing file with write_to_file", async () => {
    await harnessWith({});
    const result = await h.run("replace_file_content", replaceArgs("nope.txt", "a", "b", 1, 1));
    expect(result.errorCode).toBe("not_found");
    expect(result.text).toContain("write_to_file");
  });
});
