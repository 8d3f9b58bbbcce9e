// Permission policy: the shell parser's load and split cost (mvdan-sh, the GopherJS build of mvdan/sh,
// beside sh-syntax, its WASM build, which was not used: its tree drops the commands inside a statement
// and it starts a fresh Go instance per call), and the policy's cost per tool call through the real
// pipeline (dist/) against the same pipeline with no policy. Each load is timed in a fresh child.
// Usage: node bench/policy.bench.js  (after npm run build)
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = process.env.GANTRY_DIST ?? path.join(here, "..", "dist");
const COMMAND =
  "npm run test:unit -- --reporter=dot 2>&1 | tee build.log && git status --short || echo failed";
const RUNS = 300;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function inChild(source) {
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", source], {
    cwd: path.join(here, ".."),
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

const mvdan = inChild(`
  const t0 = performance.now();
  const { parseShellScript } = await import(${JSON.stringify(path.join(dist, "policy/shell-parser.js"))});
  const t1 = performance.now();
  if (!parseShellScript("true").ok) throw new Error("the shell parser refused: true");
  const t2 = performance.now();
  const samples = [];
  for (let i = 0; i < ${RUNS}; i++) { const s = performance.now(); parseShellScript(${JSON.stringify(COMMAND)}); samples.push(performance.now() - s); }
  samples.sort((a, b) => a - b);
  console.log(JSON.stringify({ importMs: t1 - t0, firstMs: t2 - t1, splitMs: samples[samples.length >> 1] }));
`);
const shSyntax = inChild(`
  const t0 = performance.now();
  const { parse } = await import("sh-syntax");
  const t1 = performance.now();
  await parse("true");
  const t2 = performance.now();
  const samples = [];
  for (let i = 0; i < 50; i++) { const s = performance.now(); await parse(${JSON.stringify(COMMAND)}); samples.push(performance.now() - s); }
  samples.sort((a, b) => a - b);
  console.log(JSON.stringify({ importMs: t1 - t0, firstMs: t2 - t1, splitMs: samples[samples.length >> 1] }));
`);
console.log(`shell parser on: ${COMMAND}`);
console.log(
  `  mvdan-sh (used):      import ${mvdan.importMs.toFixed(1)} ms, first parse ${mvdan.firstMs.toFixed(1)} ms, then ${mvdan.splitMs.toFixed(3)} ms per parse (median)`,
);
console.log(
  `  sh-syntax (not used): import ${shSyntax.importMs.toFixed(1)} ms, first parse ${shSyntax.firstMs.toFixed(1)} ms, then ${shSyntax.splitMs.toFixed(3)} ms per parse (median)`,
);
console.log(`  per-call ratio sh-syntax / mvdan-sh: ${(shSyntax.splitMs / mvdan.splitMs).toFixed(1)}x`);

const { createToolPipeline } = await import(path.join(dist, "tools/pipeline.js"));
const { createToolRegistry } = await import(path.join(dist, "tools/registry.js"));
const { openWorkspace } = await import(path.join(dist, "workspace/workspace.js"));
const { createSessionPermissions } = await import(path.join(dist, "policy/permissions.js"));
const { createPolicyStep } = await import(path.join(dist, "policy/policy-step.js"));
const { createConsentStep } = await import(path.join(dist, "policy/consent-step.js"));
const { z } = await import("zod");

const root = realpathSync(mkdtempSync(path.join(tmpdir(), "gantry-bench-policy-")));
try {
  // a tool that does nothing, so the figures are the gates' own cost
  const noop = (name, safety, field) => ({
    spec: {
      name,
      description: name,
      parameters: z.object({ [field]: z.string().describe(field) }),
      safety,
      group: "Read",
    },
    execute: async () => ({ text: "ok", error: false, metadata: {} }),
  });
  const registry = createToolRegistry([
    noop("run_command", "execute", "CommandLine"),
    noop("view_file", "read_only", "AbsolutePath"),
  ]);
  const rules = {
    permissions: {
      allow: [
        "Bash(npm run test:*)",
        "Bash(tee:*)",
        "Edit(/build.log)",
        "Bash(git status:*)",
        "Bash(echo:*)",
        "Read(src/**)",
      ],
      deny: ["Bash(curl:*)", "Read(./secrets/**)"],
      ask: ["Bash(git push:*)"],
    },
  };
  const permissions = createSessionPermissions({
    workspace: openWorkspace(root),
    home: root,
    settings: rules,
    approvalMode: "default",
    resolveTool: (name) => registry.lookup(name)?.spec.name,
  });
  const withPolicy = createToolPipeline({
    registry,
    maxOutputChars: 20_000,
    policy: createPolicyStep(permissions),
    consent: createConsentStep(permissions),
  });
  const without = createToolPipeline({ registry, maxOutputChars: 20_000 });
  const time = async (pipeline, request) => {
    await pipeline.run(request);
    const samples = [];
    for (let i = 0; i < RUNS; i++) {
      const start = performance.now();
      const result = await pipeline.run(request);
      samples.push(performance.now() - start);
      if (result.error) throw new Error(result.text);
    }
    return median(samples);
  };
  for (const [label, request] of [
    ["run_command (5 parts, 1 redirection)", { name: "run_command", args: { CommandLine: COMMAND } }],
    ["view_file src/../src/a.ts", { name: "view_file", args: { AbsolutePath: "src/../src/a.ts" } }],
  ]) {
    const bare = await time(without, request);
    const gated = await time(withPolicy, request);
    console.log(
      `pipeline call, ${label}: ${gated.toFixed(3)} ms with the policy, ${bare.toFixed(3)} ms without (policy adds ${(gated - bare).toFixed(3)} ms, ${(gated / bare).toFixed(1)}x)`,
    );
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
