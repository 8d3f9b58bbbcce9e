import { readdir } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_PATH_BYTES, MAX_PATH_SEGMENTS } from "../../src/workspace/paths.js";
import { createEditHarness, type EditHarness } from "../tools/files/edit-support.js";

let h: EditHarness;
afterEach(async () => h?.cleanup());

const writeArgs = (file: string, content = "x") => ({
  TargetFile: file,
  Overwrite: false,
  CodeContent: content,
  Description: "test write",
});

describe("bounded paths", () => {
  it('refuses write_to_file to "a/"×3000 + "x" at once, creating no folder', async () => {
    h = await createEditHarness({});
    const result = await h.run("write_to_file", writeArgs(`${"a/".repeat(3000)}x`));
    expect(result.errorCode).toBe("invalid_path");
    expect(result.text).toContain(`longer than ${MAX_PATH_BYTES} bytes`);
    expect(await readdir(h.ws.root)).toEqual([]);
  });

  it("refuses a path deeper than the segment limit though it is short, creating no folder", async () => {
    h = await createEditHarness({});
    const deep = `${"a/".repeat(MAX_PATH_SEGMENTS)}x`;
    expect(Buffer.byteLength(deep)).toBeLessThan(MAX_PATH_BYTES);
    const result = await h.run("write_to_file", writeArgs(deep));
    expect(result.errorCode).toBe("invalid_path");
    expect(result.text).toContain(`deeper than ${MAX_PATH_SEGMENTS} folders`);
    expect(await readdir(h.ws.root)).toEqual([]);
  });

  it("refuses a file name over 255 bytes, naming the limit", async () => {
    h = await createEditHarness({});
    const result = await h.run("write_to_file", writeArgs(`dir/${"n".repeat(256)}.txt`));
    expect(result.errorCode).toBe("invalid_path");
    expect(result.text).toContain("longer than 255 bytes");
    expect(await readdir(h.ws.root)).toEqual([]);
  });

  it("counts bytes, not characters: 100 three-byte characters make a 300-byte name", async () => {
    h = await createEditHarness({});
    const result = await h.run("write_to_file", writeArgs(`${"€".repeat(100)}.txt`));
    expect(result.errorCode).toBe("invalid_path");
  });

  it("refuses the same paths for reading and listing tools", async () => {
    h = await createEditHarness({});
    const long = `${"a/".repeat(3000)}x`;
    for (const [tool, field] of [
      ["view_file", "AbsolutePath"],
      ["list_dir", "DirectoryPath"],
      ["grep_search", "SearchPath"],
      ["find_by_name", "SearchDirectory"],
    ] as const) {
      const args: Record<string, unknown> = { [field]: long, Query: "x", Pattern: "*" };
      const result = await h.run(tool, args);
      expect(result.errorCode, tool).toBe("invalid_path");
    }
  });

  it("still creates a file under a deep but sane tree", async () => {
    h = await createEditHarness({});
    const deep = `${"d/".repeat(40)}file.txt`;
    const result = await h.run("write_to_file", writeArgs(deep, "deep\n"));
    expect(result.error).toBe(false);
    expect(await h.text(deep)).toBe("deep\n");
  });
});

describe("a failed write", () => {
  it("removes the folders it created", async () => {
    h = await createEditHarness({ "keep/old.txt": "old\n" }, { settings: { limits: { maxFileBytes: 16 } } });
    const result = await h.run("write_to_file", writeArgs("keep/new/deeper/file.txt", "x".repeat(100)));
    expect(result.errorCode).toBe("too_large");
    expect((await readdir(h.ws.root)).sort()).toEqual(["keep"]);
    expect(await readdir(`${h.ws.root}/keep`)).toEqual(["old.txt"]);
  });
});
