import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { REPO_ROOT, runNode } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

// The launcher's loader (src/cli/code-cache.cts) serves the bundle's chunks from a table of its own
// instead of Node's resolver; these chunks are made up, so each rule of Node's loader that the bundle
// relies on is checked on its own: cycles, a chunk that throws, Node's modules and packages.

const LOADER = path.join(REPO_ROOT, "dist", "cli", "code-cache.cjs");

let ws: TempWorkspace;
let bundle: string;
beforeEach(async () => {
  ws = await createTempWorkspace({});
  bundle = path.join(ws.parent, "pkg", "bundle");
  mkdirSync(bundle, { recursive: true });
});
afterEach(async () => {
  await ws.cleanup();
});

const chunk = (name: string, code: string) => writeFileSync(path.join(bundle, name), code);

/** Runs `entry` of the made-up bundle through the launcher's loader; what it prints on stdout. */
async function runBundle(entry: string): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const launcher = path.join(ws.parent, "launch.cjs");
  writeFileSync(
    launcher,
    `require(${JSON.stringify(LOADER)})(${JSON.stringify(path.join(bundle, entry))}, ${JSON.stringify(path.join(ws.home, "cache"))});\n`,
  );
  return runNode([launcher], { env: { HOME: ws.home } });
}

it("chunks that require each other get the exports so far, as from Node's loader, and each runs once", async () => {
  chunk("main-a.js", 'exports.a = 1; const b = require("./b.js"); console.log(JSON.stringify(b.seen), b.b);');
  chunk(
    "b.js",
    'globalThis.runs = (globalThis.runs ?? 0) + 1; exports.seen = { ...require("./main-a.js") }; exports.b = require("./c.js").c + globalThis.runs;',
  );
  chunk("c.js", 'require("./b.js"); exports.c = 10;');
  const run = await runBundle("main-a.js");
  expect(run.stderr).toBe("");
  expect(run.stdout).toBe('{"a":1} 11\n');
});

it("a chunk that throws is not kept: requiring it again runs it again", async () => {
  chunk(
    "main-a.js",
    'try { require("./flaky.js"); } catch (e) { console.log("first:", e.message); } console.log("second:", require("./flaky.js").ok);',
  );
  chunk(
    "flaky.js",
    'globalThis.tries = (globalThis.tries ?? 0) + 1; if (globalThis.tries === 1) throw new Error("not yet"); exports.ok = globalThis.tries;',
  );
  const run = await runBundle("main-a.js");
  expect(run.stdout).toBe("first: not yet\nsecond: 2\n");
});

it("Node's modules and packages outside the bundle load through Node; the bundle's chunks never reach Node's module cache", async () => {
  const pkg = path.join(ws.parent, "pkg", "node_modules", "outside");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(path.join(pkg, "package.json"), '{"name":"outside","main":"index.js"}');
  writeFileSync(path.join(pkg, "index.js"), 'exports.where = "outside";');
  chunk(
    "main-a.js",
    [
      'const p = require("node:path"); const fs = require("fs");',
      'console.log(p.basename(__filename), typeof fs.readFileSync, require("outside").where, require("./b.js").b);',
      'console.log(Object.keys(require("node:module")._cache).filter((f) => f.startsWith(__dirname)).length);',
    ].join("\n"),
  );
  chunk("b.js", "exports.b = __dirname === require('node:path').dirname(__filename);");
  const run = await runBundle("main-a.js");
  expect(run.stderr).toBe("");
  expect(run.stdout).toBe("main-a.js function outside true\n0\n");
});

it("a chunk the bundle lacks fails with an error naming the missing file", async () => {
  chunk("main-a.js", 'require("./gone.js");');
  const run = await runBundle("main-a.js");
  expect(run.code).not.toBe(0);
  expect(run.stderr).toContain("ENOENT");
  expect(run.stderr).toContain(path.join(bundle, "gone.js"));
});
