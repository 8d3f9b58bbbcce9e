import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ToolResult } from "../../src/tools/contract.js";
import { type Engine, resultLines, type SearchFixture, searchFixture } from "./search/support.js";

// SPEC §3 / issue 2 point 4: FIFOs and device files inside the workspace never block a call, and the
// search tools never list or read them, whichever grep engine answers.
//
// A call that opened a FIFO for reading would block until a writer appears. So that such a regression
// fails instead of hanging the run, a separate "rescuer" process opens the FIFO for writing some seconds
// later (non-blocking: it only succeeds when a reader is stuck there) and writes the needle into it. A
// stuck call is thus released, takes longer than the bound, and shows the needle.

const RESCUE_AFTER_MS = 6_000;
const PROMPT_MS = 5_000;
const FIFO_TEXT = "needle-from-the-fifo";

let fixture: SearchFixture | undefined;
const rescuers: ChildProcess[] = [];

afterEach(async () => {
  for (const child of rescuers.splice(0)) child.kill();
  await fixture?.close();
  fixture = undefined;
});

function makeFifo(abs: string) {
  execFileSync("mkfifo", [abs]);
  const script = `
    const fs = require("node:fs");
    setTimeout(() => {
      let fd;
      try { fd = fs.openSync(${JSON.stringify(abs)}, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK); }
      catch { process.exit(0); } // ENXIO: nobody is reading the FIFO, as it should be
      fs.writeSync(fd, ${JSON.stringify(`${FIFO_TEXT}\n`)});
      fs.closeSync(fd);
    }, ${RESCUE_AFTER_MS});`;
  const child = spawn(process.execPath, ["-e", script], { stdio: "ignore" });
  rescuers.push(child);
}

/** Runs one call and fails (rather than hangs the suite) when it does not answer within PROMPT_MS. */
async function prompt(call: () => Promise<ToolResult>): Promise<ToolResult> {
  const started = Date.now(); // before the call starts: a synchronous block inside it counts too
  let timer: NodeJS.Timeout | undefined;
  const blocked = new Promise<"blocked">((resolve) => {
    timer = setTimeout(() => resolve("blocked"), PROMPT_MS + RESCUE_AFTER_MS);
  });
  const result = await Promise.race([call(), blocked]);
  clearTimeout(timer);
  expect(result, "the call blocked").not.toBe("blocked");
  expect(Date.now() - started, "the call took too long (blocked on a special file?)").toBeLessThan(PROMPT_MS);
  const done = result as ToolResult;
  expect(done.text).not.toContain(FIFO_TEXT);
  return done;
}

function canMakeDeviceNodes(): boolean {
  const probe = path.join(tmpdir(), `gantry-mknod-probe-${process.pid}-special`);
  try {
    execFileSync("mknod", [probe, "c", "1", "5"], { stdio: "ignore" });
    execFileSync("rm", ["-f", probe]);
    return true;
  } catch {
    return false;
  }
}

const deviceNodes = canMakeDeviceNodes();

const FILES = {
  "src/a.txt": "needle in a regular file\n",
  "src/pipes/b.txt": "needle again\n",
};

describe.each<Engine>(["ripgrep", "node"])("special files in searched folders (%s engine)", (engine) => {
  async function workspaceWithSpecialFiles() {
    fixture = await searchFixture(FILES, { engine });
    const { root } = fixture.ws;
    // named like the files the calls look for, so only their kind can keep them out
    makeFifo(path.join(root, "pipe.txt"));
    makeFifo(path.join(root, "src/pipes/needle.txt"));
    await symlink("pipe.txt", path.join(root, "link-to-pipe.txt"));
    if (deviceNodes) {
      execFileSync("mknod", [path.join(root, "zero.txt"), "c", "1", "5"]); // same device as /dev/zero
      execFileSync("mknod", [path.join(root, "src/pipes/random.txt"), "c", "1", "9"]); // /dev/urandom
    }
    return fixture;
  }

  it("grep_search returns promptly and neither searches nor counts a FIFO or a device", async () => {
    const f = await workspaceWithSpecialFiles();
    for (const args of [
      { SearchPath: ".", Query: "needle" },
      { SearchPath: "src", Query: "needle" },
      { SearchPath: ".", Query: "need.e", IsRegex: true },
      { SearchPath: ".", Query: "NEEDLE", CaseInsensitive: true },
      { SearchPath: ".", Query: "needle", MatchPerLine: false },
      { SearchPath: ".", Query: "needle", Includes: ["*.txt"] },
    ]) {
      const result = await prompt(() => f.run("grep_search", args));
      expect(result.error, JSON.stringify(args)).toBe(false);
      expect(result.metadata.engine).toBe(engine);
      const lines = resultLines(result).map((line) => line.split(":")[0]);
      expect(lines, JSON.stringify(args)).toEqual(["src/a.txt", "src/pipes/b.txt"]);
      // a device read as a file would show up as a skipped binary (/dev/zero) or large file
      expect(result.metadata).toMatchObject({ skippedBinaryFiles: 0, skippedLargeFiles: 0, matchedFiles: 2 });
    }
    // a query no regular file holds: nothing matches, nothing is skipped, and the call still ends at once
    const none = await prompt(() => f.run("grep_search", { SearchPath: ".", Query: "absent" }));
    expect(none.metadata).toMatchObject({ matches: 0, skippedBinaryFiles: 0, skippedLargeFiles: 0 });
  });

  it("find_by_name returns promptly and lists no FIFO or device, whatever the Type", async () => {
    const f = await workspaceWithSpecialFiles();
    for (const Type of ["any", "file", undefined]) {
      const result = await prompt(() =>
        f.run("find_by_name", { SearchDirectory: ".", Pattern: "*.txt", ...(Type ? { Type } : {}) }),
      );
      expect(result.error).toBe(false);
      expect(resultLines(result), String(Type)).toEqual(["src/a.txt", "src/pipes/b.txt"]);
    }
    const deep = await prompt(() => f.run("find_by_name", { SearchDirectory: "src/pipes", Pattern: "*" }));
    expect(resultLines(deep)).toEqual(["src/pipes/b.txt"]);
  });

  it("grep_search with SearchPath at a FIFO (or a link to one) is refused with a clear error, promptly", async () => {
    const f = await workspaceWithSpecialFiles();
    for (const SearchPath of [
      "pipe.txt",
      "src/pipes/needle.txt",
      "link-to-pipe.txt",
      f.ws.root + "/pipe.txt",
    ]) {
      const result = await prompt(() => f.run("grep_search", { SearchPath, Query: "needle" }));
      expect(result.error, SearchPath).toBe(true);
      expect(result.errorCode).toBe("special_file");
      // the message names the path and why it cannot be searched
      expect(result.text).toBe(
        `"${SearchPath}" is a FIFO, not a file or folder; give a file or a folder to search in.`,
      );
    }
    const find = await prompt(() => f.run("find_by_name", { SearchDirectory: "pipe.txt", Pattern: "*" }));
    expect(find.error).toBe(true);
    expect(find.text).toContain("pipe.txt");
  });

  it.runIf(deviceNodes)("grep_search with SearchPath at a device node is refused, promptly", async () => {
    const f = await workspaceWithSpecialFiles();
    for (const SearchPath of ["zero.txt", "src/pipes/random.txt"]) {
      const result = await prompt(() => f.run("grep_search", { SearchPath, Query: "needle" }));
      expect(result.error, SearchPath).toBe(true);
      expect(result).toMatchObject({
        errorCode: "special_file",
        text: expect.stringContaining("is a device"),
      });
      expect(result.text).toContain(SearchPath);
    }
  });
});
