// The hook half of bench/targets.bench.js: what a command hook `true` (before every call, from the user's
// hooks.json) adds to a tool call inside a full createAgent session (session file, hooks, permissions),
// against the same command spawned bare from the same process. One round calls view_file in a session
// without the hook, in one with it, then spawns the bare command and the same command in the hooks' PID
// namespace; every figure is a median of per-round values, so a load change on the shared cores hits all
// four sides of a round alike (two sessions measured minutes apart drifted by ±5 ms). The session starts
// its hooks from the hook runner (src/hooks/hook-runner.ts), a small process whose fork does not copy
// this one's page tables: in a process grown as large as this bench's, the hook costs less than the
// bare spawn from here.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pidNamespacePrefix } from "../dist/hooks/pid-namespace.js";
import { createAgent } from "../dist/sdk/agent.js";
import { scriptedModelClient } from "./model-server-child.js";

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** A full session in `root` whose home holds `hooks` (none: no hooks file); its model is never asked. */
async function sessionWith(parent, root, name, hooks) {
  const home = path.join(parent, name);
  mkdirSync(path.join(home, ".agents"), { recursive: true });
  if (hooks) writeFileSync(path.join(home, ".agents", "hooks.json"), JSON.stringify({ bench: hooks }));
  // a closed port: the model is never asked
  const model = await scriptedModelClient("http://127.0.0.1:9/v1");
  return createAgent({ model, workspace: root, home, trust: true });
}

/** The hook's command (`true` through the shell, with pipes and its input) spawned and awaited to its end. */
function spawnOnce(prefix) {
  // `--norc` as hooks run: a bench started without SHLVL (or 0) would otherwise time ~/.bashrc too
  const [program, ...args] = [...prefix, "/bin/bash", "--norc", "-c", "true"];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(program, args, { stdio: ["pipe", "pipe", "pipe"], detached: true });
    child.on("error", reject);
    child.on("close", () => resolve(performance.now() - started));
    child.stdin.on("error", () => {});
    child.stdin.end("{}");
  });
}

async function callOnce(agent, file) {
  const started = performance.now();
  const result = await agent.session.pipeline.run({ name: "view_file", args: { AbsolutePath: file } });
  if (result.error) throw new Error(`hook bench: view_file failed: ${result.text}`);
  return performance.now() - started;
}

export async function runHookRounds(rounds) {
  const parent = realpathSync(mkdtempSync(path.join(tmpdir(), "gantry-targets-hook-")));
  const root = path.join(parent, "ws");
  mkdirSync(root);
  const file = path.join(root, "notes.txt");
  writeFileSync(file, "line one\nline two\nline three\n");
  const command = process.env.BENCH_HOOK_COMMAND ?? "true";
  const hook = { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "command", command }] }] };
  const plain = await sessionWith(parent, root, "home-plain", undefined);
  const hooked = await sessionWith(parent, root, "home-hooked", hook);
  const namespace = pidNamespacePrefix();
  const samples = { hook: [], bare: [], namespaced: [] };
  try {
    for (let i = 0; i < rounds + 10; i++) {
      // the order inside a round alternates, so neither side always runs first
      const plainMs = i % 2 === 0 ? await callOnce(plain, file) : undefined;
      const hookedMs = await callOnce(hooked, file);
      const withoutMs = plainMs ?? (await callOnce(plain, file));
      const bare = await spawnOnce([]);
      const namespaced = await spawnOnce(namespace);
      if (i < 10) continue; // warm-up
      samples.hook.push(hookedMs - withoutMs);
      samples.bare.push(bare);
      samples.namespaced.push(namespaced);
    }
  } finally {
    await plain.close();
    await hooked.close();
    rmSync(parent, { recursive: true, force: true });
  }
  return {
    hookMs: median(samples.hook),
    bareSpawnMs: median(samples.bare),
    namespacedSpawnMs: median(samples.namespaced),
  };
}
