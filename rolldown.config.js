// Bundles the command into a few files, so `gantry` starts by reading a handful of modules instead of
// several hundred (whole-process start-up is a benchmark target). The library build stays in dist/.
import { defineConfig } from "rolldown";

export default defineConfig({
  // worker thread scripts (search scans, HTML → Markdown) are entries of their own, next to the chunks that start them
  input: {
    main: "dist/cli/main.js",
    "scan-worker": "dist/tools/search/scan-worker.js",
    "markdown-worker": "dist/tools/web/markdown-worker.js",
  },
  platform: "node",
  // loaded on first use through their own module systems (a GopherJS build, a bubblewrap runtime, the
  // Restate SDK's WebAssembly core, which only `gantry worker` loads)
  external: ["mvdan-sh", /^@anthropic-ai\/sandbox-runtime/, /^@restatedev\//],
  output: { dir: "dist/bundle", format: "esm", sourcemap: false, cleanDir: true },
});
