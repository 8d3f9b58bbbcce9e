import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, link, lstat, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  AtomicWriteRefused,
  isAtomicTempName,
  removeStaleTempFiles,
  writeFileAtomic,
} from "../../src/workspace/atomic-write.js";
import { REPO_ROOT } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace;
afterEach(async () => ws?.cleanup());

const entries = async (folder: string) => (await readdir(folder)).sort();

describe("writeFileAtomic", () => {
  it("replaces the content and keeps the file's mode", async () => {
    ws = await createTempWorkspace({ "f.txt": "old\n" });
    const target = path.join(ws.root, "f.txt");
    await chmod(target, 0o640);
    await writeFileAtomic(target, Buffer.from("new\n"), { root: ws.root, mode: (await stat(target)).mode });
    expect(await readFile(target, "utf8")).toBe("new\n");
    expect((await stat(target)).mode & 0o777).toBe(0o640);
    expect(await entries(ws.root)).toEqual(["f.txt"]);
  });

  it("leaves the old file byte-identical and no temp file when the write fails midway", async () => {
    ws = await createTempWorkspace({ "f.txt": "old content\n" });
    const target = path.join(ws.root, "f.txt");
    const write = writeFileAtomic(target, Buffer.alloc(1024 * 1024, 0x61), {
      root: ws.root,
      chunkBytes: 64 * 1024,
      onChunkWritten: (written) => {
        if (written >= 256 * 1024) throw new Error("disk full (simulated)");
      },
    });
    await expect(write).rejects.toThrow("disk full");
    expect(await readFile(target, "utf8")).toBe("old content\n");
    expect(await entries(ws.root)).toEqual(["f.txt"]);
  });

  it("cancels the rename when the final check throws, leaving the target untouched", async () => {
    ws = await createTempWorkspace({ "f.txt": "old\n" });
    const target = path.join(ws.root, "f.txt");
    const write = writeFileAtomic(target, Buffer.from("new\n"), {
      root: ws.root,
      beforeCommit: async () => {
        throw new Error("changed meanwhile");
      },
    });
    await expect(write).rejects.toThrow("changed meanwhile");
    expect(await readFile(target, "utf8")).toBe("old\n");
    expect(await entries(ws.root)).toEqual(["f.txt"]);
  });

  it("creates only, never clobbering a file that exists, with overwrite false", async () => {
    ws = await createTempWorkspace({ "f.txt": "theirs\n" });
    const write = writeFileAtomic(path.join(ws.root, "f.txt"), Buffer.from("mine\n"), {
      root: ws.root,
      overwrite: false,
    });
    await expect(write).rejects.toMatchObject({ code: "EEXIST" });
    expect(await readFile(path.join(ws.root, "f.txt"), "utf8")).toBe("theirs\n");
    await writeFileAtomic(path.join(ws.root, "g.txt"), Buffer.from("new\n"), {
      root: ws.root,
      overwrite: false,
    });
    expect(await entries(ws.root)).toEqual(["f.txt", "g.txt"]);
  });

  it("replaces a hardlink's name only: the other name outside the workspace keeps its content", async () => {
    ws = await createTempWorkspace({});
    const outside = path.join(ws.parent, "outside.txt");
    await writeFile(outside, "outside\n");
    await link(outside, path.join(ws.root, "inside.txt"));
    await writeFileAtomic(path.join(ws.root, "inside.txt"), Buffer.from("edited\n"), { root: ws.root });
    expect(await readFile(outside, "utf8")).toBe("outside\n");
    expect(await readFile(path.join(ws.root, "inside.txt"), "utf8")).toBe("edited\n");
  });

  it("replaces a symlink swapped in at the target's name, never writing through it", async () => {
    ws = await createTempWorkspace({});
    const outside = path.join(ws.parent, "outside.txt");
    await writeFile(outside, "outside\n");
    await symlink(outside, path.join(ws.root, "swapped.txt"));
    await writeFileAtomic(path.join(ws.root, "swapped.txt"), Buffer.from("edited\n"), { root: ws.root });
    expect(await readFile(outside, "utf8")).toBe("outside\n");
    expect((await lstat(path.join(ws.root, "swapped.txt"))).isSymbolicLink()).toBe(false);
  });

  it("refuses when the temp file's descriptor is not inside the workspace", async () => {
    ws = await createTempWorkspace({});
    const outside = path.join(ws.parent, "outside.txt");
    const write = writeFileAtomic(outside, Buffer.from("x"), { root: ws.root });
    await expect(write).rejects.toBeInstanceOf(AtomicWriteRefused);
    expect((await readdir(ws.parent)).filter(isAtomicTempName)).toEqual([]);
    await expect(stat(outside)).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("a crash mid-write", () => {
  beforeAll(() => {
    // the child runs the built module: build first (npx tsc -p tsconfig.build.json; npm test does)
    if (!existsSync(path.join(REPO_ROOT, "dist/workspace/atomic-write.js")))
      throw new Error("dist/ is not built");
  });

  it("leaves the old file whole when the writing process is SIGKILLed, and the next write removes its temp file", async () => {
    ws = await createTempWorkspace({ "f.txt": "the old content\n" });
    const target = path.join(ws.root, "f.txt");
    const module = path.join(REPO_ROOT, "dist/workspace/atomic-write.js");
    const script = `
      const { writeFileAtomic } = await import(${JSON.stringify(module)});
      await writeFileAtomic(${JSON.stringify(target)}, Buffer.alloc(4 * 1024 * 1024, 0x6e), {
        root: ${JSON.stringify(ws.root)},
        chunkBytes: 64 * 1024,
        onChunkWritten: async (written) => {
          if (written === 512 * 1024) {
            process.stdout.write("mid-write\\n");
            await new Promise((resolve) => setTimeout(resolve, 60_000));
          }
        },
      });`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("mid-write") && resolve());
      child.on("exit", () => reject(new Error(`child ended before the kill: ${stderr}`)));
    });
    child.kill("SIGKILL");
    await new Promise((resolve) => child.on("exit", resolve));

    expect(await readFile(target, "utf8")).toBe("the old content\n");
    const leftovers = (await readdir(ws.root)).filter(isAtomicTempName);
    expect(leftovers).toHaveLength(1);
    expect(leftovers[0]).toMatch(new RegExp(`^\\.gantry-tmp-${child.pid}-`));
    expect((await stat(path.join(ws.root, leftovers[0] as string))).size).toBe(512 * 1024);

    await writeFileAtomic(path.join(ws.root, "other.txt"), Buffer.from("x"), { root: ws.root });
    expect(await entries(ws.root)).toEqual(["f.txt", "other.txt"]);
  });

  it("keeps temp files of processes that still run", async () => {
    ws = await createTempWorkspace({});
    const live = `.gantry-tmp-${process.pid}-abcdef`;
    await writeFile(path.join(ws.root, live), "in progress");
    expect(await removeStaleTempFiles(ws.root)).toBe(0);
    expect(await entries(ws.root)).toEqual([live]);
  });
});
