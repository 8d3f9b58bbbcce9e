// Runs every bench/*.bench.js in turn (each prints its own figures and ratios).
// Usage: npm run bench [-- name-filter]
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2] ?? "";
const scripts = readdirSync(here)
  .filter((name) => name.endsWith(".bench.js") && name.includes(filter))
  .sort();
let failed = 0;
for (const script of scripts) {
  console.log(`\n=== ${script} ===`);
  const run = spawnSync(process.execPath, [path.join(here, script)], { stdio: "inherit" });
  if (run.status !== 0) {
    failed++;
    console.log(`${script} exited with ${run.status ?? run.signal}`);
  }
}
process.exitCode = failed > 0 ? 1 : 0;
