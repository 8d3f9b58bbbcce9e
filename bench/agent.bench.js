// Harness overhead of the agent loop: N tool-calling turns (default 1,000) of one conversation
// against the scripted model server, which runs in its own process (as a real provider would).
// Prints wall time per turn, the server's own time per response, the tools' time, the harness's
// overhead (the rest), and heap growth. Usage: node bench/agent.bench.js [turns] [protocol]
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { createConversation } from "../dist/agent/conversation.js";
import { runAgentLoop } from "../dist/agent/loop.js";
import { createGantrySession } from "../dist/gantry.js";
import { scriptedModelClient, startServerChild, viewFileTurns } from "./model-server-child.js";

const turns = Number(process.argv[2] ?? process.env.BENCH_TURNS ?? 1000);
const protocol = process.argv[3] ?? "openai";

const parent = realpathSync(mkdtempSync(path.join(tmpdir(), "gantry-agent-bench-")));
const root = path.join(parent, "ws");
const file = path.join(root, "notes.txt");
mkdirSync(root);
writeFileSync(file, "line one\nline two\nline three\n");

const script = viewFileTurns(file, turns);

const server = startServerChild();
const { baseUrl } = await server.ask({ type: "start", turns: script, protocol }, "started");

const model = await scriptedModelClient(baseUrl, { protocol, contextWindow: 10_000_000 });
const session = createGantrySession({ workspace: root, home: parent });
const conversation = createConversation();

// a forced collection before each heap reading, so growth means retained memory, not garbage
v8.setFlagsFromString("--expose-gc");
const collectGarbage = vm.runInNewContext("gc");
const heap = () => {
  collectGarbage();
  return process.memoryUsage().heapUsed;
};
let toolMs = 0;
let heapAt100 = 0;
let turnStartedAt = 0;
const turnTimes = [];
const heapBefore = heap();
const started = performance.now();
const result = await runAgentLoop(conversation, model, session.pipeline, {
  system: "bench",
  input: [{ role: "user", text: "read the file again and again" }],
  maxTurns: turns + 1,
  onEvent(event) {
    if (event.type === "turn_start") turnStartedAt = performance.now();
    if (event.type === "turn_end") turnTimes.push(performance.now() - turnStartedAt);
    if (event.type === "tool_result") toolMs += event.result.metadata.durationMs ?? 0;
    if (event.type === "turn_end" && event.turn === 100) heapAt100 = heap();
  },
});
const wallMs = performance.now() - started;
const heapAfter = heap();
const { stats, failures } = await server.ask({ type: "stats" }, "stats");
server.child.send({ type: "stop" });
await session.dispose();
rmSync(parent, { recursive: true, force: true });

if (result.reason !== "completed" || failures.length > 0) {
  console.error("bench run failed:", result, failures);
  process.exit(1);
}
const perTurn = wallMs / result.turns;
const serverPerResponse = stats.serveMs / stats.responses;
const toolPerTurn = toolMs / turns;
const overhead = perTurn - serverPerResponse - toolPerTurn;
const early = turnTimes.slice(0, 100).reduce((a, b) => a + b, 0) / 100;
const late = turnTimes.slice(-100).reduce((a, b) => a + b, 0) / 100;
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const conversationBytes = JSON.stringify(conversation).length;

console.log(`agent loop, ${result.turns} turns (${turns} with a view_file call), ${protocol} protocol`);
console.log(`  wall time per turn            ${perTurn.toFixed(2)} ms`);
console.log(`  server's own time / response  ${serverPerResponse.toFixed(2)} ms`);
console.log(`  tool time per turn            ${toolPerTurn.toFixed(2)} ms (view_file through the pipeline)`);
console.log(
  `  harness overhead per turn     ${overhead.toFixed(2)} ms  (${(overhead / serverPerResponse).toFixed(1)}x the server's time)`,
);
console.log(
  `  turn time, first 100 vs last 100: ${early.toFixed(2)} ms vs ${late.toFixed(2)} ms (the whole conversation is sent every turn)`,
);
const steadyGrowth = (heapAfter - heapAt100) / (result.turns - 100) / 1024;
console.log(`  heap: ${mb(heapBefore)} before, ${mb(heapAt100)} at turn 100 (warm), ${mb(heapAfter)} after`);
console.log(
  `  heap growth after warm-up: ${steadyGrowth.toFixed(2)} KB per turn (the conversation itself: ${(conversationBytes / result.turns / 1024).toFixed(2)} KB per turn)`,
);
console.log(
  `  conversation held: ${conversation.messages.length} messages, ${mb(conversationBytes)} as JSON`,
);
