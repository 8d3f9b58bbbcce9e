import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";

// Most test files wait on real processes (gantry, MCP servers, restate-server, tmux) more than they
// compute: two files per core keep the cores busy (vitest's default of cores - 1 ran one file at a time
// on a 2-core machine, with the CPU a third used).
const workers = Math.min(8, Math.max(3, availableParallelism() * 2));

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    maxWorkers: workers,
    reporters: ["default", "./test/support/summary-reporter.ts"],
    // every test gives gantry a home of its own; one compile cache keeps its start warm across them
    env: { NODE_COMPILE_CACHE: path.join(tmpdir(), "gantry-test-compile-cache") },
  },
});
