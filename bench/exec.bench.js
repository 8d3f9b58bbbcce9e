// run_command's cost beside a bare spawn, and Gantry's peak memory while a command floods 1 GB of output.
// Usage: node bench/exec.bench.js  (after npm run build)
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const gantryModule = path.join(here, "../dist/gantry.js");
const { createGantrySession } = await import(gantryModule);
const { pidNamespaceArgs } = await import(path.join(here, "../dist/tools/exec/process-tree.js"));

const RUNS = 40;
const workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "gantry-bench-exec-")));

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function timeIt(label, once) {
  await once(); // warm-up
  const samples = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await once();
    samples.push(performance.now() - start);
  }
  const ms = median(samples);
  console.log(`${label.padEnd(48)} ${ms.toFixed(2).padStart(8)} ms (median of ${RUNS})`);
  return ms;
}

const bareSpawn = (command, args) =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
    child.stdout.resume();
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", resolve);
  });

function sessionRunner(isolation) {
  const session = createGantrySession({
    workspace,
    home: workspace,
    approvalMode: "yolo",
    settings: { exec: { isolation } },
  });
  const args = { CommandLine: "true", Cwd: ".", WaitMsBeforeAsync: 10_000 };
  return {
    once: async () => {
      const result = await session.pipeline.run({ name: "run_command", args });
      if (result.error || result.metadata.exitCode !== 0) throw new Error(result.text);
    },
    dispose: () => session.dispose(),
  };
}

console.log("-- cost of one command (`true`) --");
const bare = await timeIt("bare child_process.spawn('true')", () => bareSpawn("true", []));
const bareBash = await timeIt("bare child_process.spawn('bash', ['-c', 'true'])", () =>
  bareSpawn("bash", ["-c", "true"]),
);
const group = sessionRunner("process-group");
const groupMs = await timeIt("run_command through the pipeline (process group)", group.once);
await group.dispose();
let namespaceMs;
if (pidNamespaceArgs()) {
  const ns = sessionRunner("pid-namespace");
  namespaceMs = await timeIt("run_command through the pipeline (PID namespace)", ns.once);
  await ns.dispose();
} else {
  console.log("PID namespace: not available here (bwrap cannot create one)");
}
console.log(`ratio run_command (process group) / bare spawn('true'): ${(groupMs / bare).toFixed(1)}x`);
console.log(`ratio run_command (process group) / bare bash -c true: ${(groupMs / bareBash).toFixed(1)}x`);
if (namespaceMs !== undefined) {
  console.log(`ratio run_command (PID namespace) / bare spawn('true'): ${(namespaceMs / bare).toFixed(1)}x`);
  console.log(`PID namespace overhead per command: ${(namespaceMs - groupMs).toFixed(2)} ms`);
}

// The flood runs in a child process so its peak RSS (VmHWM) is Gantry's alone.
function peakOf(command, isolation) {
  const script = path.join(workspace, "flood.mjs");
  writeFileSync(
    script,
    `import { readFileSync } from "node:fs";
const { createGantrySession } = await import(${JSON.stringify(gantryModule)});
const session = createGantrySession({ workspace: ${JSON.stringify(workspace)}, home: ${JSON.stringify(workspace)}, approvalMode: "yolo", settings: { exec: { isolation: ${JSON.stringify(isolation)}, timeoutMs: 600000 } } });
const start = performance.now();
const result = await session.pipeline.run({ name: "run_command", args: { CommandLine: ${JSON.stringify(command)}, Cwd: ".", WaitMsBeforeAsync: 600000 } });
const seconds = (performance.now() - start) / 1000;
await session.dispose();
const peakKb = Number(/VmHWM:\\s+(\\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]);
console.log(JSON.stringify({ peakKb, seconds, totalBytes: result.metadata.totalBytes, textChars: result.text.length }));
`,
  );
  const run = spawnSync(process.execPath, [script], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

console.log("\n-- peak memory of Gantry while a command prints 1 GB (yes | head -c 1G) --");
for (const isolation of pidNamespaceArgs() ? ["pid-namespace", "process-group"] : ["process-group"]) {
  const base = peakOf("true", isolation);
  const flood = peakOf("yes | head -c 1000000000", isolation);
  const mbps = flood.totalBytes / 1e6 / flood.seconds;
  console.log(
    `${isolation.padEnd(14)} peak RSS ${(flood.peakKb / 1024).toFixed(0)} MB (baseline for \`true\`: ${(base.peakKb / 1024).toFixed(0)} MB, growth ${((flood.peakKb - base.peakKb) / 1024).toFixed(0)} MB); ${flood.totalBytes} bytes captured in ${flood.seconds.toFixed(1)} s (${mbps.toFixed(0)} MB/s); ${flood.textChars} characters returned to the model`,
  );
}

rmSync(workspace, { recursive: true, force: true });
