// Bundles the command into a few files, so `gantry` starts by reading a handful of modules instead of
// several hundred (whole-process start-up is a benchmark target). The library build stays in dist/.
import { defineConfig } from "rolldown";

export default defineConfig({
  input: "dist/cli/main.js",
  platform: "node",
  // loaded on first use through their own module systems (a GopherJS build, a bubblewrap runtime)
  external: ["mvdan-sh", /^@anthropic-ai\/sandbox-runtime/],
  output: { dir: "dist/bundle", format: "esm", sourcemap: false, cleanDir: true },
});
