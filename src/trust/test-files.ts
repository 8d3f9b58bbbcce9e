import { type Dirent, readdirSync } from "node:fs";
import path from "node:path";

/** Test files as the runners find them by default: `*.test.ts`, `*.spec.js`, `test_x.py`, `x_test.go`. */
export const JS_TESTS = /(?:[.\-_]test|\.spec|^test)\.[cm]?[jt]sx?$/;
export const PYTHON_TESTS = /^(?:test_.*|.*_test|conftest)\.py$/;

/** Folders a test runner does not look in by default (pytest's norecursedirs, vitest's and jest's excludes). */
const SKIPPED = new Set(["node_modules", "venv", "build", "dist", "target", "__pycache__"]);
const MAX_DEPTH = 6;
const MAX_ENTRIES = 4000;

/**
 * The first file below `folder` whose name matches, as a test runner walking it would find one; a tree
 * too large to walk counts as holding one (the runner would walk it all). Undefined when none.
 */
export function firstFileBelow(folder: string, name: RegExp): string | undefined {
  let seen = 0;
  const walk = (dir: string, depth: number): string | undefined => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return undefined;
    }
    for (const entry of entries) {
      if (++seen > MAX_ENTRIES) return dir;
      if (entry.isFile() && name.test(entry.name)) return path.join(dir, entry.name);
    }
    if (depth >= MAX_DEPTH) return undefined;
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name.startsWith(".") || SKIPPED.has(entry.name)) continue;
      const found = walk(path.join(dir, entry.name), depth + 1);
      if (found) return found;
    }
    return undefined;
  };
  return walk(folder, 0);
}
