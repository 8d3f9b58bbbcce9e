#!/usr/bin/env node
// The command's entry (package.json "bin"): it checks the Node.js version before any other module
// loads, so on an old Node every command (`--help` too) says what is wrong and how to fix it, instead of
// failing on a missing API. No static imports here: an old Node must be able to evaluate this file on
// its own. CommonJS, not an ES module: Node starts a CommonJS entry several ms sooner (no ES module loader
// for `gantry --version`), and start-up is a benchmark target.
const MIN_MAJOR = 22;
const MIN_MINOR = 3;
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
if (major < MIN_MAJOR || (major === MIN_MAJOR && minor < MIN_MINOR)) {
  process.stderr.write(
    `gantry: needs Node.js ${MIN_MAJOR}.${MIN_MINOR} or newer; this is Node.js ${process.versions.node} (${process.execPath}).\n` +
      `Install a current Node.js (https://nodejs.org, or "nvm install ${MIN_MAJOR}") and run gantry again.\n`,
  );
  process.exit(1);
}

/**
 * The bundle's main chunk (`main-<hash>.js`), written in by the build (rolldown.config.js); empty in
 * the unbundled dist/cli, whose main.js is an ES module.
 */
const BUNDLE_MAIN: string = "";

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) {
  // answered here: loading the CLI's main module would make `gantry --version` half again as slow as `node -e 0`
  const { readFileSync } = process.getBuiltinModule("node:fs");
  const { join } = process.getBuiltinModule("node:path");
  // two folders below the package root, built (dist/bundle) or not (dist/cli)
  const pkg = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as {
    version: string;
  };
  process.stdout.write(`${pkg.version}\n`);
} else {
  const cacheRoot = cacheFolder();
  if (BUNDLE_MAIN === "") void import("./main.js");
  else {
    const runWithCodeCache = require("./code-cache.cjs") as typeof import("./code-cache.cjs");
    const { join } = process.getBuiltinModule("node:path");
    runWithCodeCache(join(__dirname, BUNDLE_MAIN), join(cacheRoot, "gantry-code-cache"));
  }
}

/**
 * Node caches compiled code between runs (start-up is what a command-line tool is judged by), but its
 * default folder is the shared temporary one: another user of the machine could create it first and
 * plant compiled code that runs as whoever starts gantry. The cache lives in the user's own cache
 * folder instead, readable by nobody else; NODE_COMPILE_CACHE, when set, is the user's choice and wins.
 * The bundle's own code caches (code-cache.cts) live in a folder inside it. No cache (a read-only home)
 * only makes the start slower. Returns the folder.
 */
function cacheFolder(): string {
  const { mkdirSync } = process.getBuiltinModule("node:fs");
  const { join } = process.getBuiltinModule("node:path");
  const { homedir } = process.getBuiltinModule("node:os");
  const chosen = process.env.NODE_COMPILE_CACHE;
  const dir =
    chosen || join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "gantry", "compile-cache");
  if (!chosen) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch {
      return dir;
    }
  }
  process.getBuiltinModule("node:module").enableCompileCache?.(dir);
  return dir;
}
