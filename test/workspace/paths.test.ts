import { link, mkdir, rename, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  isInside,
  openVerifiedDirectory,
  openVerifiedFile,
  type ResolvedPath,
  resolveInsideWorkspace,
} from "../../src/workspace/paths.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace;
afterEach(async () => ws?.cleanup());

async function resolved(input: string): Promise<ResolvedPath> {
  const result = await resolveInsideWorkspace(ws.root, input);
  if (!result.ok) throw new Error(result.error.message);
  return result.path;
}

describe("isInside", () => {
  it("treats a sibling sharing the root's name as a prefix as outside", () => {
    expect(isInside("/a/ws", "/a/ws")).toBe(true);
    expect(isInside("/a/ws", "/a/ws/x/y")).toBe(true);
    expect(isInside("/a/ws", "/a/ws_evil/x")).toBe(false);
    expect(isInside("/a/ws", "/a/wsx")).toBe(false);
    expect(isInside("/a/ws", "/a")).toBe(false);
    expect(isInside("/a/ws", "/a/ws/..foo")).toBe(true);
  });
});

describe("resolveInsideWorkspace", () => {
  it("resolves a file that does not exist yet through the real path of its nearest existing folder", async () => {
    ws = await createTempWorkspace({ "src/a.ts": "" });
    await symlink("src", path.join(ws.root, "alias"));
    const result = await resolveInsideWorkspace(ws.root, "alias/new/deeper/file.ts");
    expect(result).toEqual({
      ok: true,
      path: {
        abs: path.join(ws.root, "src/new/deeper/file.ts"),
        rel: "src/new/deeper/file.ts",
        exists: false,
      },
    });
  });

  it("refuses a path through a regular file as not a folder", async () => {
    ws = await createTempWorkspace({ "a.txt": "" });
    const result = await resolveInsideWorkspace(ws.root, "a.txt/child");
    expect(result).toMatchObject({ ok: false, error: { code: "not_a_directory" } });
  });

  it("refuses an empty path", async () => {
    ws = await createTempWorkspace();
    expect(await resolveInsideWorkspace(ws.root, "  ")).toMatchObject({
      ok: false,
      error: { code: "invalid_path" },
    });
  });
});

describe("openVerifiedFile", () => {
  it("refuses a file swapped for a symlink to an outside file between check and open", async () => {
    ws = await createTempWorkspace({ "notes.txt": "inside" });
    await writeFile(path.join(ws.parent, "outside.txt"), "OUTSIDE");
    const checked = await resolved("notes.txt");
    await rm(checked.abs);
    await symlink(path.join(ws.parent, "outside.txt"), checked.abs);
    const opened = await openVerifiedFile(ws.root, checked);
    expect(opened.ok).toBe(false);
    if (!opened.ok) expect(opened.error.code).toBe("invalid_path");
  });

  it("refuses a parent folder swapped for a symlink to an outside folder between check and open", async () => {
    ws = await createTempWorkspace({ "sub/notes.txt": "inside" });
    await mkdir(path.join(ws.parent, "elsewhere"));
    await writeFile(path.join(ws.parent, "elsewhere", "notes.txt"), "OUTSIDE");
    const checked = await resolved("sub/notes.txt");
    await rename(path.join(ws.root, "sub"), path.join(ws.root, "sub-moved"));
    await symlink(path.join(ws.parent, "elsewhere"), path.join(ws.root, "sub"));
    const opened = await openVerifiedFile(ws.root, checked);
    expect(opened).toMatchObject({ ok: false, error: { code: "outside_workspace" } });
  });

  it("reports the link count, so writers can refuse to write a hardlinked file in place", async () => {
    ws = await createTempWorkspace({ "single.txt": "one" });
    await writeFile(path.join(ws.parent, "outside.txt"), "OUTSIDE");
    await link(path.join(ws.parent, "outside.txt"), path.join(ws.root, "linked.txt"));
    const single = await openVerifiedFile(ws.root, await resolved("single.txt"));
    const linked = await openVerifiedFile(ws.root, await resolved("linked.txt"));
    if (!single.ok || !linked.ok) throw new Error("both files should open");
    expect(single.stats.nlink).toBe(1);
    expect(linked.stats.nlink).toBe(2);
    await single.handle.close();
    await linked.handle.close();
  });

  it("refuses a folder and a file that vanished after the check", async () => {
    ws = await createTempWorkspace({ "dir/a.txt": "", "gone.txt": "" });
    const folder = await openVerifiedFile(ws.root, await resolved("dir"));
    expect(folder).toMatchObject({ ok: false, error: { code: "not_a_file" } });
    const gone = await resolved("gone.txt");
    await rm(gone.abs);
    expect(await openVerifiedFile(ws.root, gone)).toMatchObject({ ok: false, error: { code: "not_found" } });
  });
});

describe("openVerifiedDirectory", () => {
  it("refuses a folder swapped for a symlink to an outside folder between check and open", async () => {
    ws = await createTempWorkspace({ "pkg/index.ts": "" });
    await mkdir(path.join(ws.parent, "elsewhere"));
    const checked = await resolved("pkg");
    await rename(checked.abs, path.join(ws.root, "pkg-moved"));
    await symlink(path.join(ws.parent, "elsewhere"), checked.abs);
    const opened = await openVerifiedDirectory(ws.root, checked);
    expect(opened.ok).toBe(false);
  });

  it("names the opened folder through its descriptor", async () => {
    ws = await createTempWorkspace({ "pkg/index.ts": "" });
    const opened = await openVerifiedDirectory(ws.root, await resolved("pkg"));
    if (!opened.ok) throw new Error(opened.error.message);
    expect(opened.path).toMatch(/^\/proc\/self\/fd\/\d+$/);
    await opened.handle.close();
  });
});
