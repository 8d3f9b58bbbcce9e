import { lstat, mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEditHarness, type EditHarness } from "./edit-support.js";

let h: EditHarness;
afterEach(async () => h?.cleanup());

const writeArgs = (file: string, content: string, overwrite: boolean) => ({
  TargetFile: file,
  Overwrite: overwrite,
  CodeContent: content,
  Description: "test write",
});

describe("write_to_file", () => {
  it("creates a new file and its missing folders without an earlier read", async () => {
    h = await createEditHarness({});
    const result = await h.run("write_to_file", writeArgs("src/deep/new.ts", "export const x = 1;\n", false));
    expect(result.error).toBe(false);
    expect(await h.text("src/deep/new.ts")).toBe("export const x = 1;\n");
    expect(result.metadata).toMatchObject({
      created: true,
      createdFolders: ["src", "src/deep"],
      linesAdded: 1,
    });
    expect(result.metadata.bytesWritten).toBe(20);
    expect(result.metadata.diff).toContain("+++ b/src/deep/new.ts");
  });

  it("answers to the alias write_file", async () => {
    h = await createEditHarness({});
    expect((await h.run("write_file", writeArgs("a.txt", "a", false))).error).toBe(false);
  });

  it("refuses an existing file with Overwrite false, saying so", async () => {
    h = await createEditHarness({ "a.txt": "keep me\n" });
    const result = await h.run("write_to_file", writeArgs("a.txt", "gone", false));
    expect(result.errorCode).toBe("conflict");
    expect(result.text).toContain("already exists");
    expect(result.text).toContain("Overwrite: true");
    expect(await h.text("a.txt")).toBe("keep me\n");
  });

  it("refuses to overwrite an existing file the agent has not read", async () => {
    h = await createEditHarness({ "a.txt": "keep me\n" });
    const result = await h.run("write_to_file", writeArgs("a.txt", "gone", true));
    expect(result.errorCode).toBe("stale_file");
    expect(await h.text("a.txt")).toBe("keep me\n");
  });

  it("overwrites a read file keeping its CRLF endings, BOM and final newline", async () => {
    h = await createEditHarness({ "w.txt": Buffer.from("\uFEFFold\r\nlines\r\n", "utf8") });
    await h.view("w.txt");
    const result = await h.run("write_to_file", writeArgs("w.txt", "new\ntext", true));
    expect(result.error).toBe(false);
    expect((await h.bytes("w.txt")).toString("latin1")).toBe("\xef\xbb\xbfnew\r\ntext\r\n");
    expect(result.metadata).toMatchObject({ created: false, lineEnding: "crlf", bom: true });
  });

  it("keeps a file's missing final newline when overwriting it", async () => {
    h = await createEditHarness({ "n.txt": "no newline" });
    await h.view("n.txt");
    expect((await h.run("write_to_file", writeArgs("n.txt", "still none\n", true))).error).toBe(false);
    expect(await h.text("n.txt")).toBe("still none");
  });

  it("refuses a folder as the target", async () => {
    h = await createEditHarness({ "dir/a.txt": "a" });
    const result = await h.run("write_to_file", writeArgs("dir", "x", true));
    expect(result.errorCode).toBe("not_a_file");
  });

  it("refuses to create a file under a path whose parent is a file", async () => {
    h = await createEditHarness({ "a.txt": "a" });
    const result = await h.run("write_to_file", writeArgs("a.txt/b.txt", "x", false));
    expect(result.error).toBe(true);
    expect(await h.text("a.txt")).toBe("a");
  });

  it("writes through a symlink that stays inside the workspace, keeping the link", async () => {
    h = await createEditHarness({ "real.txt": "old\n" });
    await symlink(path.join(h.ws.root, "real.txt"), path.join(h.ws.root, "alias.txt"));
    await h.view("real.txt");
    expect((await h.run("write_to_file", writeArgs("alias.txt", "new\n", true))).error).toBe(false);
    expect(await h.text("real.txt")).toBe("new\n");
    expect((await lstat(path.join(h.ws.root, "alias.txt"))).isSymbolicLink()).toBe(true);
  });
});

describe("delete_file", () => {
  it("deletes a file and reports what was removed", async () => {
    h = await createEditHarness({ "a.txt": "one\ntwo\n" });
    const result = await h.run("delete_file", { TargetFile: "a.txt" });
    expect(result.error).toBe(false);
    expect(result.metadata).toMatchObject({ bytesDeleted: 8, linesRemoved: 2 });
    await expect(stat(path.join(h.ws.root, "a.txt"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("refuses folders", async () => {
    h = await createEditHarness({ "dir/a.txt": "a" });
    const result = await h.run("delete_file", { TargetFile: "dir" });
    expect(result.errorCode).toBe("not_a_file");
    expect(await h.text("dir/a.txt")).toBe("a");
  });

  it("removes a symlink itself and never its target, even a target outside the workspace", async () => {
    h = await createEditHarness({ "target.txt": "inside target\n" });
    const outside = path.join(h.ws.parent, "outside.txt");
    await writeFile(outside, "outside\n");
    await symlink(outside, path.join(h.ws.root, "out-link"));
    await symlink(path.join(h.ws.root, "target.txt"), path.join(h.ws.root, "in-link"));
    for (const name of ["out-link", "in-link"]) {
      const result = await h.run("delete_file", { TargetFile: name });
      expect(result.error).toBe(false);
      expect(result.metadata.symlink).toBe(true);
      await expect(lstat(path.join(h.ws.root, name))).rejects.toMatchObject({ code: "ENOENT" });
    }
    expect(await readFile(outside, "utf8")).toBe("outside\n");
    expect(await h.text("target.txt")).toBe("inside target\n");
  });

  it("refuses secret files and paths outside the workspace", async () => {
    h = await createEditHarness({ ".env": "KEY=1\n", "keys/server.key": "k" });
    expect((await h.run("delete_file", { TargetFile: ".env" })).errorCode).toBe("secret_path");
    expect((await h.run("delete_file", { TargetFile: "keys/server.key" })).errorCode).toBe("secret_path");
    const outside = path.join(h.ws.parent, "outside.txt");
    await writeFile(outside, "outside\n");
    expect((await h.run("delete_file", { TargetFile: "../outside.txt" })).errorCode).toBe(
      "outside_workspace",
    );
    expect((await h.run("delete_file", { TargetFile: outside })).errorCode).toBe("outside_workspace");
    expect((await h.run("delete_file", { TargetFile: "." })).error).toBe(true);
    expect(await readFile(outside, "utf8")).toBe("outside\n");
    expect(await h.text(".env")).toBe("KEY=1\n");
  });

  it("refuses to delete a file that changed since the agent read it", async () => {
    h = await createEditHarness({ "a.txt": "one\n" });
    await h.view("a.txt");
    await writeFile(path.join(h.ws.root, "a.txt"), "someone else's work\n");
    const result = await h.run("delete_file", { TargetFile: "a.txt" });
    expect(result.errorCode).toBe("stale_file");
    expect(await h.text("a.txt")).toBe("someone else's work\n");
  });

  it("reports a missing file", async () => {
    h = await createEditHarness({});
    await mkdir(path.join(h.ws.root, "d"));
    expect((await h.run("delete_file", { TargetFile: "d/nope.txt" })).errorCode).toBe("not_found");
  });
});
