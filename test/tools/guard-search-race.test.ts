import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ToolResult } from "../../src/tools/contract.js";
import { type Engine, type SearchFixture, searchFixture } from "./search/support.js";

// Issue 2 point 4 ("a symlink swapped in between check and open"), for the search tools: while a separate
// process flips sub/ between a real folder and a symlink to a folder outside the workspace, no
// grep_search or find_by_name call may show a file of that outside folder, by content or by name.

const RACE_MS = { ripgrep: 5_000, node: 2_500 };

let fixture: SearchFixture | undefined;
let swapper: ChildProcess | undefined;

afterEach(async () => {
  swapper?.kill("SIGKILL");
  swapper = undefined;
  await fixture?.close();
  fixture = undefined;
});

async function startFolderSwapper(sub: string, outsideDir: string) {
  const script = `
    const fs = require("node:fs");
    const [sub, real, outside, link] = process.argv.slice(1);
    const pause = new Int32Array(new SharedArrayBuffer(4));
    process.stdout.write("ready\\n");
    for (;;) {
      try {
        fs.renameSync(sub, real); fs.symlinkSync(outside, link); fs.renameSync(link, sub);
        Atomics.wait(pause, 0, 0, 0.2);
        fs.unlinkSync(sub); fs.renameSync(real, sub);
        Atomics.wait(pause, 0, 0, 0.2);
      } catch {}
    }`;
  const args = [sub, `${sub}-real`, outsideDir, `${sub}-link`];
  swapper = spawn(process.execPath, ["-e", script, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const child = swapper;
  await new Promise<void>((resolve) => child.stdout?.once("data", () => resolve()));
}

describe.each<Engine>(["ripgrep", "node"])(
  "search tools under a parent folder swap (%s engine)",
  (engine) => {
    const cases = [
      ["grep_search", "a literal query", { SearchPath: ".", Query: "needle" }],
      [
        "grep_search",
        "a regex (read by ripgrep itself)",
        { SearchPath: ".", Query: "need+le", IsRegex: true },
      ],
      ["grep_search", "file names only", { SearchPath: ".", Query: "needle", MatchPerLine: false }],
      ["find_by_name", "a glob", { SearchDirectory: ".", Pattern: "*notes*" }],
    ] as const;
    for (const [tool, what, args] of cases) {
      it(`${tool} with ${what} never shows a file of the outside folder swapped in for sub/`, async () => {
        fixture = await searchFixture({ "sub/notes.txt": "INSIDE needle\n" }, { engine });
        const { ws } = fixture;
        await mkdir(path.join(ws.parent, "outside-dir"));
        await writeFile(path.join(ws.parent, "outside-dir", "secret-notes.txt"), "OUTSIDE SECRET needle\n");
        await startFolderSwapper(path.join(ws.root, "sub"), path.join(ws.parent, "outside-dir"));
        const deadline = Date.now() + RACE_MS[engine];
        let calls = 0;
        let leak: ToolResult | undefined;
        while (Date.now() < deadline && !leak) {
          const result = await fixture.run(tool, args);
          calls++;
          if (/OUTSIDE SECRET|secret-notes/.test(result.text)) leak = result;
        }
        expect(leak?.text, `after ${calls} calls`).toBeUndefined();
      });
    }
  },
);
