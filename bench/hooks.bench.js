// The cost one tool call pays for hooks: 0 hooks, 1 command hook, 1 HTTP hook (local server), beside the
// cost of spawning `true`. Each call goes through the real pipeline with a trivial tool.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { z } from "zod";
import { loadHookConfig } from "../dist/hooks/config.js";
import { createHookStep } from "../dist/hooks/step.js";
import { createToolPipeline } from "../dist/tools/pipeline.js";
import { createToolRegistry } from "../dist/tools/registry.js";

const noop = {
  spec: {
    name: "noop",
    description: "does nothing",
    parameters: z.object({ value: z.string().describe("anything") }),
    safety: "read_only",
    group: "Read",
  },
  execute: async () => ({ text: "ok", error: false, metadata: {} }),
};

function median(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function timeEach(count, fn) {
  for (let i = 0; i < Math.min(20, count); i++) await fn(); // warm-up
  const samples = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await fn();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

function pipelineWith(hooksConfig) {
  const root = mkdtempSync(path.join(tmpdir(), "gantry-bench-hooks-"));
  mkdirSync(path.join(root, ".agents"));
  writeFileSync(path.join(root, ".agents", "hooks.json"), JSON.stringify(hooksConfig));
  const config = loadHookConfig(root, root);
  const hooks = createHookStep({ config, workspaceRoot: root });
  const pipeline = createToolPipeline({
    registry: createToolRegistry([noop]),
    maxOutputChars: 20_000,
    hooks,
  });
  return { root, call: () => pipeline.run({ name: "noop", args: { value: "x" } }) };
}

const spawnTrue = () =>
  new Promise((resolve, reject) => {
    const child = spawn("true", [], { stdio: "ignore" });
    child.on("error", reject);
    child.on("exit", resolve);
  });

const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => res.end("{}"));
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${server.address().port}/hook`;

const none = pipelineWith({});
const command = pipelineWith({
  bench: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "command", command: "echo '{}'" }] }] },
});
const http = pipelineWith({
  bench: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "http", url }] }] },
});

const results = {
  "spawn `true` (no pipeline)": await timeEach(200, spawnTrue),
  "tool call, 0 hooks": await timeEach(5000, none.call),
  "tool call, 1 command hook (bash -c \"echo '{}'\")": await timeEach(200, command.call),
  "tool call, 1 HTTP hook (127.0.0.1)": await timeEach(1000, http.call),
};
server.close();
for (const { root } of [none, command, http]) rmSync(root, { recursive: true, force: true });

const base = results["spawn `true` (no pipeline)"];
const zero = results["tool call, 0 hooks"];
console.log("median per call:");
for (const [name, ms] of Object.entries(results)) {
  const vsSpawn = (ms / base).toFixed(2);
  console.log(`  ${name.padEnd(48)} ${ms.toFixed(3).padStart(9)} ms   ${vsSpawn}x spawn(true)`);
}
console.log(
  `hook overhead per call: command ${(results["tool call, 1 command hook (bash -c \"echo '{}'\")"] - zero).toFixed(2)} ms, ` +
    `HTTP ${(results["tool call, 1 HTTP hook (127.0.0.1)"] - zero).toFixed(2)} ms`,
);
