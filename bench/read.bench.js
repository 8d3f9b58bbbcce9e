// view_file of 100 lines near the end of a 100 MB file vs `sed -n`, and `gantry --version` vs `node -e 0`,
// as whole processes: median wall time and peak memory (RSS). Targets from issue 2:
// range read <= 0.3 s and < 100 MB peak; `gantry --version` <= 1.6x `node -e 0`.
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const GANTRY = path.resolve(here, "../dist/bundle/gantry.cjs");
const NODE = process.execPath;
const FILE_BYTES = 100 * 1024 * 1024;

if (!existsSync(GANTRY)) {
  console.error(
    "dist/bundle/gantry.cjs is missing: run `npx tsc -p tsconfig.build.json` (npm run bench builds it)",
  );
  process.exit(1);
}

/** Writes numbered lines of about 100 bytes until the file holds FILE_BYTES; returns the line count. */
function writeBigFile(file) {
  const fd = openSync(file, "w");
  const filler = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor";
  let written = 0;
  let line = 0;
  while (written < FILE_BYTES) {
    const block = [];
    for (let i = 0; i < 10_000; i++) block.push(`${String(++line).padStart(9, "0")} ${filler} ${line % 97}`);
    const text = `${block.join("\n")}\n`;
    writeSync(fd, text);
    written += Buffer.byteLength(text);
  }
  closeSync(fd);
  return line;
}

const timeBinary = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

/**
 * One whole-process run: wall seconds, CPU seconds (user + system: steadier than wall time on a busy
 * machine) and peak RSS in MB, via /usr/bin/time, else python's rusage.
 */
function measure(command, args, env) {
  let argv;
  if (timeBinary) argv = [timeBinary, "-f", "%M %U %S", command, ...args];
  else {
    const script =
      "import resource,subprocess,sys;subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL);" +
      "u=resource.getrusage(resource.RUSAGE_CHILDREN);sys.stderr.write(f'{u.ru_maxrss} {u.ru_utime} {u.ru_stime}')";
    argv = ["python3", "-c", script, command, ...args];
  }
  const started = process.hrtime.bigint();
  const run = spawnSync(argv[0], argv.slice(1), { env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (run.status !== 0) throw new Error(`${command} ${args.join(" ")} failed: ${run.stderr}`);
  const [kb, user, system] = (run.stderr.trim().split("\n").at(-1) ?? "").split(" ").map(Number);
  return { seconds, cpuSeconds: user + system, peakMb: kb / 1024, stdout: run.stdout };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function medianOf(runs, command, args, env) {
  const results = [];
  for (let i = 0; i < runs; i++) results.push(measure(command, args, env));
  return {
    seconds: median(results.map((r) => r.seconds)),
    cpuSeconds: median(results.map((r) => r.cpuSeconds)),
    peakMb: median(results.map((r) => r.peakMb)),
    stdout: results[0].stdout,
    outputs: results.map((r) => r.stdout),
  };
}

const ms = (seconds) => `${(seconds * 1000).toFixed(0)} ms`;
const fmt = (run) => `${ms(run.seconds)} (cpu ${ms(run.cpuSeconds)}), peak ${run.peakMb.toFixed(0)} MB`;
const verdict = (ok) => (ok ? "within target" : "OVER TARGET");

const dir = mkdtempSync(path.join(tmpdir(), "gantry-read-bench-"));
try {
  const home = path.join(dir, "home");
  const workspace = path.join(dir, "ws");
  mkdirSync(home);
  mkdirSync(workspace);
  const file = path.join(workspace, "big.log");
  const totalLines = writeBigFile(file);
  const endLine = totalLines - 1000;
  const startLine = endLine - 99;
  const env = { ...process.env, HOME: home };
  console.log(`file: 100 MB, ${totalLines} lines; reading lines ${startLine}-${endLine}; median of 5 runs`);

  const toolArgs = JSON.stringify({ AbsolutePath: "big.log", StartLine: startLine, EndLine: endLine });
  measure(NODE, [GANTRY, "tool", "view_file", toolArgs, "--workspace", workspace], env); // warm the page cache
  const gantry = medianOf(5, NODE, [GANTRY, "tool", "view_file", toolArgs, "--workspace", workspace], env);
  const sed = medianOf(5, "sed", ["-n", `${startLine},${endLine}p`, file], env);
  const result = JSON.parse(gantry.stdout);
  if (result.error || !result.text.includes(String(endLine).padStart(9, "0"))) {
    throw new Error(`view_file returned the wrong lines: ${gantry.stdout.slice(0, 300)}`);
  }
  console.log(
    `gantry tool view_file: ${fmt(gantry)} | sed -n: ${fmt(sed)} | ratio ${(gantry.seconds / sed.seconds).toFixed(2)}x`,
  );
  const readMs = median(gantry.outputs.map((out) => JSON.parse(out).metadata.durationMs));
  console.log(`  of which the read itself (metadata.durationMs): ${readMs} ms; the rest is process start-up`);
  console.log(
    `  target <= 300 ms: ${verdict(gantry.seconds <= 0.3)}; target < 100 MB peak: ${verdict(gantry.peakMb < 100)}`,
  );

  const version = medianOf(10, NODE, [GANTRY, "--version"], env);
  const bare = medianOf(10, NODE, ["-e", "0"], env);
  const ratio = version.seconds / bare.seconds;
  console.log(
    `gantry --version: ${fmt(version)} | node -e 0: ${fmt(bare)} | ratio ${ratio.toFixed(2)}x (median of 10)`,
  );
  console.log(`  target <= 1.6x: ${verdict(ratio <= 1.6)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
