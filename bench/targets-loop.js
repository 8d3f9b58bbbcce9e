// The loop half of bench/targets.bench.js (the hook target is bench/targets-hook.js): one createAgent
// session (saved to its session file, hooks and permissions on) runs N view_file turns against the
// scripted model server. Per turn it separates the model's request (time inside the model stream), the
// tool call (the pipeline's run) and the rest: Gantry's own work in the loop (turn start to next turn
// start, minus the other two).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { toModelMessages } from "../dist/models/messages.js";
import { createAgent } from "../dist/sdk/agent.js";
import { scriptedModelClient, startServerChild, viewFileTurns } from "./model-server-child.js";

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * The model client, with the time spent waiting on its stream added up (that is the model's request).
 * Gantry's conversion of the conversation into the AI SDK's messages (src/models/messages.ts) runs inside
 * the client's stream, so it is done here first, on the session's own message list and out of the model's
 * clock: Gantry's work, as the session does it (the client's own call then finds nothing new to convert).
 */
function timedModel(model, clock) {
  return {
    id: model.id,
    contextWindow: model.contextWindow,
    streamTurn(request) {
      const converting = performance.now();
      toModelMessages(request.messages, {
        toolsDeclared: request.tools.length > 0,
        imagesInToolResults: false,
      });
      clock.conversionMs.push(performance.now() - converting);
      const started = performance.now();
      const iterator = model.streamTurn(request)[Symbol.asyncIterator]();
      clock.modelMs += performance.now() - started;
      return {
        [Symbol.asyncIterator]: () => ({
          async next() {
            const before = performance.now();
            const part = await iterator.next();
            clock.modelMs += performance.now() - before;
            return part;
          },
          return: (value) => iterator.return?.(value) ?? Promise.resolve({ done: true, value }),
        }),
      };
    },
  };
}

async function runSession(turns) {
  const parent = realpathSync(mkdtempSync(path.join(tmpdir(), "gantry-targets-loop-")));
  const root = path.join(parent, "ws");
  const home = path.join(parent, "home");
  const file = path.join(root, "notes.txt");
  mkdirSync(root);
  mkdirSync(path.join(home, ".agents"), { recursive: true });
  writeFileSync(file, "line one\nline two\nline three\n");
  const script = viewFileTurns(file, turns);
  const server = startServerChild();
  const { baseUrl } = await server.ask({ type: "start", turns: script, protocol: "openai" }, "started");

  const clock = { modelMs: 0, toolMs: 0, conversionMs: [] };
  const model = timedModel(await scriptedModelClient(baseUrl), clock);
  const agent = await createAgent({ model, workspace: root, home, trust: true, maxTurns: turns + 1 });
  const pipeline = agent.session.pipeline;
  const run = pipeline.run.bind(pipeline);
  pipeline.run = async (...args) => {
    const started = performance.now();
    try {
      return await run(...args);
    } finally {
      clock.toolMs += performance.now() - started;
    }
  };
  const perTurn = [];
  let last;
  const mark = () => {
    const now = performance.now();
    if (last)
      perTurn.push({
        ms: now - last.at,
        modelMs: clock.modelMs - last.modelMs,
        toolMs: clock.toolMs - last.toolMs,
      });
    last = { at: now, modelMs: clock.modelMs, toolMs: clock.toolMs };
  };
  const result = await agent.prompt("read the file again and again", {
    onEvent(event) {
      if (event.type === "turn_start") mark();
    },
  });
  const { failures } = await server.ask({ type: "stats" }, "stats");
  server.child.send({ type: "stop" });
  await agent.close();
  rmSync(parent, { recursive: true, force: true });
  if (result.reason !== "completed" || failures.length > 0)
    throw new Error(`loop bench failed: ${result.reason} ${JSON.stringify(failures)}`);
  // the turns that called a tool (the last one only answers)
  const measured = perTurn
    .slice(0, turns)
    .map((turn) => ({ ...turn, ownMs: turn.ms - turn.modelMs - turn.toolMs }));
  return {
    turns: measured,
    conversionMs: clock.conversionMs.slice(0, turns),
  };
}

export async function runLoop(turns) {
  const { turns: plain, conversionMs } = await runSession(turns);
  // the conversion is part of each turn's own work; also given alone
  const own = plain.map((turn) => turn.ownMs);
  const window = Math.min(100, Math.floor(turns / 2));
  return {
    overheadMs: median(own),
    earlyMs: median(own.slice(0, window)),
    lateMs: median(own.slice(-window)),
    requestBuilding: {
      earlyMs: median(conversionMs.slice(0, window)),
      lateMs: median(conversionMs.slice(-window)),
    },
    modelMs: median(plain.map((turn) => turn.modelMs)),
    toolMs: median(plain.map((turn) => turn.toolMs)),
  };
}
