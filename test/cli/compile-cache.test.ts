import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Script } from "node:vm";
import { afterEach, beforeEach, expect, it } from "vitest";
import { REPO_ROOT, runGantry } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

// Node's default compile cache folder is the shared temporary one, where another user of the machine
// could plant compiled code that runs as whoever starts gantry: the cache is the user's own.

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace({ "a.txt": "one\n" });
});
afterEach(async () => {
  await ws.cleanup();
});

// runGantry merges these over the test's own environment, which sets NODE_COMPILE_CACHE (vitest.config.ts)
const withoutCacheSettings = () => ({ HOME: ws.home, NODE_COMPILE_CACHE: "", XDG_CACHE_HOME: "" });

it("keeps compiled code in the user's own cache folder, readable by nobody else", async () => {
  const run = await runGantry(["tool", "view_file", '{"AbsolutePath":"a.txt"}', "--workspace", ws.root], {
    env: withoutCacheSettings(),
  });
  expect(run.stderr).toBe("");
  const dir = path.join(ws.home, ".cache", "gantry", "compile-cache");
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  // one folder per Node version, holding the cached modules
  const [version] = readdirSync(dir);
  expect(readdirSync(path.join(dir, version as string)).length).toBeGreaterThan(0);
});

it("uses XDG_CACHE_HOME, and NODE_COMPILE_CACHE when the user set it", async () => {
  const xdg = path.join(ws.parent, "xdg");
  await runGantry(["tools"], { env: { ...withoutCacheSettings(), XDG_CACHE_HOME: xdg } });
  expect(existsSync(path.join(xdg, "gantry", "compile-cache"))).toBe(true);

  const chosen = path.join(ws.parent, "chosen");
  await runGantry(["tools"], { env: { ...withoutCacheSettings(), NODE_COMPILE_CACHE: chosen } });
  expect(readdirSync(chosen).length).toBeGreaterThan(0);
  expect(existsSync(path.join(ws.home, ".cache", "gantry"))).toBe(false);
});

// The bundle's chunks load with V8 code caches made after the command ran (src/cli/code-cache.cts).
const codeCacheFolder = () => {
  const root = path.join(ws.home, ".cache", "gantry", "compile-cache", "gantry-code-cache");
  const [folder] = readdirSync(root);
  return path.join(root, folder as string);
};
const textOf = (stdout: string) => (JSON.parse(stdout) as { text: string }).text;
const viewFile = () =>
  runGantry(["tool", "view_file", '{"AbsolutePath":"a.txt"}', "--workspace", ws.root], {
    env: withoutCacheSettings(),
  });

it("keeps code caches of the chunks a command ran, readable by nobody else, and uses them next time", async () => {
  const first = await viewFile();
  expect(first.stderr).toBe("");
  const folder = codeCacheFolder();
  expect(statSync(folder).mode & 0o777).toBe(0o700);
  const caches = readdirSync(folder);
  // the main chunk and the session's chunks, each named by its chunk and the chunk's length
  expect(caches.some((name) => /^main-[\w-]+\.js\.\d+\.cache$/.test(name))).toBe(true);
  expect(caches.length).toBeGreaterThan(3);
  for (const name of caches) expect(statSync(path.join(folder, name)).mode & 0o777).toBe(0o600);
  const written = new Map(caches.map((name) => [name, statSync(path.join(folder, name)).mtimeMs]));

  // accepted caches are not written again
  const second = await viewFile();
  expect(textOf(second.stdout)).toBe(textOf(first.stdout));
  for (const name of readdirSync(folder))
    expect(statSync(path.join(folder, name)).mtimeMs).toBe(written.get(name));
});

it("caches made by a run that failed early are made again by the command's first run that works, once", async () => {
  const failed = await runGantry(["tool", "view_file", "not json", "--workspace", ws.root], {
    env: withoutCacheSettings(),
  });
  expect(failed.code).toBe(2);
  const folder = codeCacheFolder();
  const sessionChunk = () => {
    const name = readdirSync(folder).find((file) => /^gantry-[\w-]+\.js\.\d+\.cache$/.test(file));
    if (!name) throw new Error("no cache of the session's chunk");
    return statSync(path.join(folder, name));
  };
  const runs = () =>
    readdirSync(folder)
      .filter((name) => name.endsWith(".runs"))
      .map((name) => readFileSync(path.join(folder, name), "utf8"));
  // the failed call loaded the session's chunk but ran none of it: its cache holds little
  const early = sessionChunk().size;
  expect(runs()).toEqual([]);

  const first = await viewFile();
  expect(first.stderr).toBe("");
  // the cache now holds the session and the call too (it was more than a third larger when measured)
  expect(sessionChunk().size).toBeGreaterThan(early * 1.2);
  expect(runs()).toEqual(["tool view_file\n"]);
  const runsFile = readdirSync(folder).find((name) => name.endsWith(".runs")) as string;
  expect(runsFile).toMatch(/^main-[\w-]+\.js\.runs$/);
  expect(statSync(path.join(folder, runsFile)).mode & 0o777).toBe(0o600);

  // a run of the same command saves nothing; another command adds itself
  const saved = sessionChunk().mtimeMs;
  await viewFile();
  expect(sessionChunk().mtimeMs).toBe(saved);
  const tools = await runGantry(["tools"], { env: withoutCacheSettings() });
  expect(tools.code).toBe(0);
  expect(runs()).toEqual(["tool view_file\ntools\n"]);
});

it("a cache V8 rejects is replaced, and the caches of chunks no longer in the bundle are removed", async () => {
  const first = await viewFile();
  const folder = codeCacheFolder();
  const [main] = readdirSync(folder).filter((name) => name.startsWith("main-"));
  if (!main) throw new Error("no cache of the main chunk");
  writeFileSync(path.join(folder, main), "not a code cache");
  writeFileSync(path.join(folder, "gone-0123abcd.js.100.cache"), "from an earlier version");
  writeFileSync(path.join(folder, "main-0123abcd.js.runs"), "tool view_file\n");

  const second = await viewFile();
  expect(textOf(second.stdout)).toBe(textOf(first.stdout));
  expect(second.stderr).toBe("");
  expect(readFileSync(path.join(folder, main), "utf8")).not.toBe("not a code cache");
  expect(existsSync(path.join(folder, "gone-0123abcd.js.100.cache"))).toBe(false);
  expect(existsSync(path.join(folder, "main-0123abcd.js.runs"))).toBe(false);
});

it("a code cache folder others may write is neither read nor written: a planted cache runs its own code", async () => {
  await viewFile();
  const folder = codeCacheFolder();
  const bundle = path.join(REPO_ROOT, "dist", "bundle");
  const main = readdirSync(bundle).find((name) => /^main-[\w-]+\.js$/.test(name));
  if (!main) throw new Error("the bundle has no main chunk");
  // V8 checks a cache against its source's length only: one made from other code of the same length runs
  const source = readFileSync(path.join(bundle, main), "latin1");
  const other = source.replace("Usage:\n  gantry [options]", "Usage:\n  PLANTD [options]");
  expect(other.length).toBe(source.length);
  // the build writes the chunk as the function the launcher compiles (rolldown.config.js)
  expect(other.startsWith("(function (exports, require, module, __filename, __dirname) {")).toBe(true);
  const script = new Script(other, { filename: path.join(bundle, main) });
  const planted = path.join(folder, `${main}.${source.length}.cache`);
  writeFileSync(planted, script.createCachedData());
  const help = () => runGantry(["--help"], { env: withoutCacheSettings() });
  // the user's own folder: its caches are trusted (this is what the folder check guards)
  expect((await help()).stdout).toContain("PLANTD [options]");

  chmodSync(folder, 0o777);
  const shared = await help();
  expect(shared.stdout).toContain("gantry [options]");
  expect(shared.stdout).not.toContain("PLANTD");
  // nor written: the planted file stays as it was
  expect(readFileSync(planted)).toEqual(script.createCachedData());

  // the same when the folder holding it is writable by others
  chmodSync(folder, 0o700);
  chmodSync(path.dirname(folder), 0o777);
  expect((await help()).stdout).not.toContain("PLANTD");
});

it("the chunks the launcher loads are written as the function it compiles; what a worker thread loads stays plain", () => {
  const bundle = path.join(REPO_ROOT, "dist", "bundle");
  const head = "(function (exports, require, module, __filename, __dirname) {";
  const text = (name: string) => readFileSync(path.join(bundle, name), "latin1");
  // a worker script and every chunk it requires, as Node's own loader reads them in a worker thread
  const plain = new Set<string>();
  const reach = (name: string) => {
    if (plain.has(name)) return;
    plain.add(name);
    for (const [, required] of text(name).matchAll(/require\("\.\/([\w.-]+\.js)"\)/g))
      reach(required as string);
  };
  reach("scan-worker.js");
  reach("walk-worker.js");
  reach("markdown-worker.js");
  for (const name of plain) expect(text(name).startsWith(head), name).toBe(false);
  const chunks = readdirSync(bundle).filter((name) => name.endsWith(".js"));
  const wrapped = chunks.filter((name) => !plain.has(name));
  expect(wrapped.some((name) => /^main-[\w-]+\.js$/.test(name))).toBe(true);
  for (const name of wrapped) {
    expect(text(name).startsWith(head), name).toBe(true);
    expect(text(name).endsWith("\n})"), name).toBe(true);
  }
});
