import { mkdir, symlink } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../../src/gantry.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

let ws: TempWorkspace | undefined;
let session: GantrySession | undefined;

afterEach(async () => {
  await session?.dispose();
  await ws?.cleanup();
  session = undefined;
  ws = undefined;
});

async function open(files: Record<string, string>, settings?: object) {
  ws = await createTempWorkspace(files);
  if (settings) await ws.write(".agents/settings.json", JSON.stringify(settings));
  session = createGantrySession({ workspace: ws.root, home: ws.home });
  const s = session;
  return (DirectoryPath: string, name = "list_dir") => s.pipeline.run({ name, args: { DirectoryPath } });
}

describe("list_dir", () => {
  it("lists folders first with a trailing /, then files with sizes, sorted by name", async () => {
    const list = await open({
      "b.txt": "12345",
      "a.md": "x".repeat(2048),
      "src/index.ts": "",
      "docs/guide.md": "",
      "Zeta.txt": "",
    });
    const result = await list(".");
    expect(result.error).toBe(false);
    expect(result.text.split("\n")).toEqual([
      "docs/",
      "src/",
      "Zeta.txt (0 B)",
      "a.md (2.0 KB)",
      "b.txt (5 B)",
    ]);
    expect(result.metadata).toMatchObject({ path: ".", entries: 5, shown: 5, hidden: 0, truncated: false });
  });

  it("does not list the temporary file of a write in progress or cut short by a crash", async () => {
    const list = await open({ "a.txt": "a", ".gantry-tmp-4242-0a1b2c3d": "half-written" });
    const result = await list(".");
    expect(result.text).toBe("a.txt (1 B)");
    expect(result.metadata).toMatchObject({ entries: 1, hidden: 0 });
  });

  it("lists a subfolder by relative or absolute path, under its aliases too", async () => {
    const list = await open({ "src/a.ts": "a", "src/lib/b.ts": "b" });
    expect((await list("src")).text).toBe("lib/\na.ts (1 B)");
    expect((await list(path.join(ws!.root, "src/lib"), "ls")).text).toBe("b.ts (1 B)");
    expect((await list("src/lib", "list_files")).text).toBe("b.ts (1 B)");
  });

  it("hides secret entries and .git, and says how many were hidden", async () => {
    const list = await open({
      ".env": "A=1",
      ".env.example": "A=",
      id_rsa: "k",
      ".git/HEAD": "r",
      "main.go": "",
    });
    const result = await list(".");
    expect(result.text).toBe(
      ".env.example (2 B)\nmain.go (0 B)\n[3 entries hidden: secret files and .git are not listed]",
    );
    expect(result.metadata).toMatchObject({ entries: 2, hidden: 3 });
  });

  it("marks symlinks with their target, and says when one leads outside or nowhere", async () => {
    const list = await open({ "real/a.txt": "a", "file.txt": "f" });
    await symlink("real", path.join(ws!.root, "to-dir"));
    await symlink("file.txt", path.join(ws!.root, "to-file"));
    await symlink("/etc/passwd", path.join(ws!.root, "to-outside"));
    await symlink("missing.txt", path.join(ws!.root, "to-nowhere"));
    const lines = (await list(".")).text.split("\n");
    expect(lines).toContain("to-dir@ -> real (folder)");
    expect(lines).toContain("to-file@ -> file.txt");
    expect(lines).toContain("to-outside@ -> /etc/passwd (outside the workspace)");
    expect(lines).toContain("to-nowhere@ -> missing.txt (broken)");
  });

  it("caps the listing at maxDirEntries with a line counting what was left out", async () => {
    const files = Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [`f${String(i).padStart(2, "0")}.txt`, ""]),
    );
    const list = await open(files, { limits: { maxDirEntries: 5 } });
    const result = await list(".");
    const lines = result.text.split("\n");
    // .agents/ (holding the settings) is listed too: 13 entries
    expect(lines.slice(0, 5)).toEqual([
      ".agents/",
      "f00.txt (0 B)",
      "f01.txt (0 B)",
      "f02.txt (0 B)",
      "f03.txt (0 B)",
    ]);
    expect(lines.at(-1)).toBe(
      '[truncated: entries 1-5 of 13 shown; 8 left out. Next call: {"DirectoryPath":".","Offset":5}]',
    );
    expect(result.metadata).toMatchObject({ entries: 13, offset: 0, shown: 5, truncated: true });
  });

  it("pages through a long listing with the next call each part names, missing and repeating nothing", async () => {
    const files = Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [`f${String(i).padStart(2, "0")}.txt`, ""]),
    );
    await open(files, { limits: { maxDirEntries: 5 } });
    const seen: string[] = [];
    let args: Record<string, unknown> = { DirectoryPath: "." };
    for (let part = 0; part < 10; part++) {
      const result = await session!.pipeline.run({ name: "list_dir", args });
      const lines = result.text.split("\n");
      const next = /Next call: (\{.*\})\]$/.exec(lines.at(-1) ?? "");
      seen.push(...(next ? lines.slice(0, -1) : lines));
      if (!next) break;
      args = JSON.parse(next[1] as string);
    }
    expect(seen).toEqual([".agents/", ...Object.keys(files).map((name) => `${name} (0 B)`)]);
    const past = await session!.pipeline.run({ name: "list_dir", args: { DirectoryPath: ".", Offset: 40 } });
    expect(past.text).toBe("[no more entries: the folder has 13, and Offset 40 skips them all]");
    expect(past.metadata).toMatchObject({ shown: 0, truncated: false });
  });

  it("stays within the output limit for a folder of long names", async () => {
    const files = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`${"n".repeat(80)}${i}.txt`, ""]));
    const list = await open(files, { limits: { maxOutputChars: 1000 } });
    const result = await list(".");
    expect(result.text.length).toBeLessThanOrEqual(1000);
    expect(result.metadata.truncated).toBe(true);
    expect(result.text.split("\n").at(-1)).toMatch(
      /left out\. Next call: \{"DirectoryPath":"\.","Offset":\d+\}\]$/,
    );
  });

  it("says so for an empty folder, a file and a missing folder", async () => {
    const list = await open({ "file.txt": "" });
    await mkdir(path.join(ws!.root, "empty"));
    expect((await list("empty")).text).toBe("[empty folder]");
    expect(await list("file.txt")).toMatchObject({ error: true, errorCode: "not_a_directory" });
    expect(await list("nope")).toMatchObject({ error: true, errorCode: "not_found" });
  });
});
