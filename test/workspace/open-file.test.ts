import { constants, symlinkSync, writeFileSync } from "node:fs";
import { realpath } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { lstatOf, openFile, realPath, statOf } from "../../src/workspace/open-file.js";
import { REPO_ROOT, runNode } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace({ "a.txt": "alpha\n", "b.txt": "bravo\n" });
});
afterEach(async () => {
  await ws.cleanup();
});

const file = (name: string) => path.join(ws.root, name);

it("a second close does not reach the descriptor number the process handed out again since", async () => {
  const first = await openFile(file("a.txt"), constants.O_RDONLY);
  const number = first.fd;
  await first.close();
  const second = await openFile(file("b.txt"), constants.O_RDONLY);
  // the kernel hands out the lowest free number: the closed one
  expect(second.fd).toBe(number);
  await first.close();
  expect((await second.readFile()).toString()).toBe("bravo\n");
  await second.close();
});

it("a closed file refuses reads with EBADF instead of reading whatever file now has its number", async () => {
  const first = await openFile(file("a.txt"), constants.O_RDONLY);
  await first.close();
  expect(first.fd).toBe(-1);
  const second = await openFile(file("b.txt"), constants.O_RDONLY);
  await expect(first.read(Buffer.alloc(5), 0, 5, 0)).rejects.toMatchObject({ code: "EBADF" });
  await expect(first.readFile()).rejects.toMatchObject({ code: "EBADF" });
  await expect(first.stat()).rejects.toMatchObject({ code: "EBADF" });
  await second.close();
});

it("reads at a position leave the file's position where it was, as FileHandle's do", async () => {
  const opened = await openFile(file("a.txt"), constants.O_RDONLY);
  const buffer = Buffer.alloc(3);
  expect(await opened.read(buffer, 0, 3, 2)).toEqual({ bytesRead: 3, buffer });
  expect(buffer.toString()).toBe("pha");
  expect((await opened.readFile()).toString()).toBe("alpha\n");
  expect((await opened.stat()).size).toBe(6);
  await opened.close();
});

it("fails with the system's error codes: a missing file, a symlink under O_NOFOLLOW, a dangling link", async () => {
  symlinkSync(file("a.txt"), file("link"));
  symlinkSync(file("gone"), file("dangling"));
  await expect(openFile(file("missing"), constants.O_RDONLY)).rejects.toMatchObject({ code: "ENOENT" });
  await expect(openFile(file("link"), constants.O_RDONLY | constants.O_NOFOLLOW)).rejects.toMatchObject({
    code: "ELOOP",
  });
  await expect(realPath(file("dangling"))).rejects.toMatchObject({ code: "ENOENT" });
  expect((await lstatOf(file("dangling"))).isSymbolicLink()).toBe(true);
  await expect(statOf(file("dangling"))).rejects.toMatchObject({ code: "ENOENT" });
});

it("resolves a path as fs/promises' realpath does, through links to folders and files", async () => {
  writeFileSync(file("target.txt"), "t\n");
  symlinkSync(ws.root, path.join(ws.parent, "root-link"));
  symlinkSync(file("target.txt"), file("to-target"));
  for (const named of [path.join(ws.parent, "root-link", "to-target"), file("a.txt"), ws.root])
    expect(await realPath(named)).toBe(await realpath(named));
});

it("bounded calls are made at once; only a long read starts libuv's thread pool", async () => {
  writeFileSync(file("large.bin"), Buffer.alloc(300_000, 7));
  const script = path.join(ws.parent, "threads.mjs");
  writeFileSync(
    script,
    `import { readdirSync, constants } from "node:fs";
import { openFile, realPath, lstatOf, statOf } from ${JSON.stringify(path.join(REPO_ROOT, "dist/workspace/open-file.js"))};
const threads = () => readdirSync("/proc/self/task").length;
const before = threads();
const small = await openFile(${JSON.stringify(file("a.txt"))}, constants.O_RDONLY);
await realPath(${JSON.stringify(file("a.txt"))}); await lstatOf(${JSON.stringify(ws.root)}); await statOf(${JSON.stringify(ws.root)});
const text = (await small.readFile()).toString(); await small.stat(); await small.close();
const afterSmall = threads();
const large = await openFile(${JSON.stringify(file("large.bin"))}, constants.O_RDONLY);
const { bytesRead } = await large.read(Buffer.alloc(200_000), 0, 200_000, 0);
const rest = await large.readFile();
await large.close();
console.log(JSON.stringify({ before, afterSmall, afterLarge: threads(), text, bytesRead, rest: rest.length }));
`,
  );
  const run = await runNode([script]);
  expect(run.stderr).toBe("");
  const seen = JSON.parse(run.stdout) as Record<string, number | string>;
  expect(seen).toMatchObject({ text: "alpha\n", bytesRead: 200_000, rest: 300_000 });
  expect(seen.afterSmall).toBe(seen.before);
  expect(seen.afterLarge as number).toBeGreaterThan(seen.before as number);
});
