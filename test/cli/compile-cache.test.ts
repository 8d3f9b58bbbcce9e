import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { runGantry } from "../support/cli.js";
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
