// Edit tools: one replace in a 50 MB file (time, peak memory) and 1,000 small replaces in a row,
// each through the real pipeline in-process (dist/), against a bare read-modify-write baseline.
// Each scenario runs in its own child process so its peak memory (maxRSS) is its own.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
// GANTRY_DIST: a private build folder, for measuring while someone else rebuilds dist/
const dist = process.env.GANTRY_DIST ?? path.join(here, "..", "dist");
const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1);

async function pipelineFor(root, limits) {
  const { createBuiltinTools } = await import(path.join(dist, "tools/builtin.js"));
  const { createToolPipeline } = await import(path.join(dist, "tools/pipeline.js"));
  const { createToolRegistry } = await import(path.join(dist, "tools/registry.js"));
  const { openWorkspace } = await import(path.join(dist, "workspace/workspace.js"));
  const { createReadLedger } = await import(path.join(dist, "workspace/read-ledger.js"));
  const { createAgentInbox } = await import(path.join(dist, "agent/inbox.js"));
  const workspace = openWorkspace(root, { limits });
  const tools = createBuiltinTools({
    workspace,
    settings: { limits },
    reads: createReadLedger(),
    inbox: createAgentInbox(),
    lifecycle: { onDispose: () => undefined },
  });
  const registry = createToolRegistry(tools);
  return createToolPipeline({ registry, maxOutputChars: workspace.limits.maxOutputChars });
}

const replaceArgs = (file, target, replacement, line) => ({
  TargetFile: file,
  Instruction: "bench",
  Description: "bench",
  TargetContent: target,
  ReplacementContent: replacement,
  StartLine: line,
  EndLine: line,
  AllowMultiple: false,
});

async function must(promise) {
  const result = await promise;
  if (result.error) throw new Error(`${result.errorCode}: ${result.text}`);
  return result;
}

async function bigFileScenario(root) {
  const pipeline = await pipelineFor(root, { maxFileBytes: 64 * 1024 * 1024 });
  await must(
    pipeline.run({ name: "view_file", args: { AbsolutePath: "big.txt", StartLine: 1, EndLine: 5 } }),
  );
  const rssBefore = process.resourceUsage().maxRSS * 1024;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const line = 1_000_000;
  const result = await must(
    pipeline.run({
      name: "replace_file_content",
      args: replaceArgs("big.txt", `row ${line} `, `ROW ${line} `, line),
    }),
  );
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const rssPeak = process.resourceUsage().maxRSS * 1024;

  const naiveStart = performance.now();
  const text = readFileSync(path.join(root, "big.txt"), "utf8");
  writeFileSync(path.join(root, "big.txt"), text.replace(`ROW ${line} `, `row ${line} `));
  const naiveMs = performance.now() - naiveStart;
  return { ms, cpuMs, rssBefore, rssPeak, naiveMs, diffChars: result.metadata.diff.length };
}

async function manySmallScenario(root) {
  const pipeline = await pipelineFor(root, {});
  await must(pipeline.run({ name: "view_file", args: { AbsolutePath: "small.ts" } }));
  const times = [];
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < 1000; i++) {
    const line = (i % 200) + 1;
    const round = Math.floor(i / 200);
    const t0 = performance.now();
    await must(
      pipeline.run({
        name: "replace_file_content",
        args: replaceArgs("small.ts", `value${line} = ${round};`, `value${line} = ${round + 1};`, line),
      }),
    );
    times.push(performance.now() - t0);
  }
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  times.sort((a, b) => a - b);

  const file = path.join(root, "small.ts");
  const naiveStart = performance.now();
  for (let i = 0; i < 1000; i++) {
    const line = (i % 200) + 1;
    const round = Math.floor(i / 200) + 5;
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace(`value${line} = ${round};`, `value${line} = ${round + 1};`));
  }
  const naiveMs = performance.now() - naiveStart;
  return { ms, cpuMs, p50: times[499], p95: times[949], max: times[999], naiveMs };
}

function runScenario(name, root) {
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), name, root], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (child.status !== 0) throw new Error(`${name} scenario failed (${child.status ?? child.signal})`);
  return JSON.parse(child.stdout);
}

async function main() {
  const [scenario, scenarioRoot] = process.argv.slice(2);
  if (scenario === "big")
    return void process.stdout.write(JSON.stringify(await bigFileScenario(scenarioRoot)));
  if (scenario === "small") {
    return void process.stdout.write(JSON.stringify(await manySmallScenario(scenarioRoot)));
  }

  const root = realpathSync(mkdtempSync(path.join(tmpdir(), "gantry-bench-edit-")));
  try {
    const rows = [];
    for (let i = 1, size = 0; size < 50 * 1024 * 1024; i++) {
      rows.push(`row ${i} ${"x".repeat(36)}\n`);
      size += rows[rows.length - 1].length;
    }
    const big = rows.join("");
    writeFileSync(path.join(root, "big.txt"), big);
    const small = Array.from({ length: 200 }, (_, i) => `export const value${i + 1} = 0;\n`).join("");
    writeFileSync(path.join(root, "small.ts"), small);

    const b = runScenario("big", root);
    console.log(`one replace in a ${mb(big.length)} MB file (${rows.length} lines), through the pipeline:`);
    console.log(
      `  time ${b.ms.toFixed(0)} ms (CPU ${b.cpuMs.toFixed(0)} ms; the rest is waiting on the disk); bare readFile+replace+writeFile ${b.naiveMs.toFixed(0)} ms (ratio ${(b.ms / b.naiveMs).toFixed(1)}x)`,
    );
    console.log(
      `  peak RSS ${mb(b.rssPeak)} MB (before the replace ${mb(b.rssBefore)} MB; ${(b.rssPeak / big.length).toFixed(1)}x the file size)`,
    );
    console.log(`  diff in metadata: ${b.diffChars} chars`);

    const s = runScenario("small", root);
    console.log("1,000 small replaces in a row (200-line file), through the pipeline:");
    console.log(
      `  total ${s.ms.toFixed(0)} ms (CPU ${s.cpuMs.toFixed(0)} ms), ${(s.ms / 1000).toFixed(2)} ms per edit (p50 ${s.p50.toFixed(2)}, p95 ${s.p95.toFixed(2)}, max ${s.max.toFixed(1)} ms)`,
    );
    console.log(
      `  bare readFile+writeFile (no fsync, no checks): ${s.naiveMs.toFixed(0)} ms (ratio ${(s.ms / s.naiveMs).toFixed(1)}x)`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
