// The scripted model server (test/support/model-server.ts) in a child process of its own, as a real
// provider would be: the benchmark's process then only pays for the client side.
import { fork } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

// The server child: imports the TypeScript test support directly (Node 22 strips the types); its
// imports name the .js files tsc would emit, so a missing ./x.js resolves to ./x.ts.
const SERVER_CHILD = `
const { registerHooks } = await import("node:module");
registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      if (!specifier.startsWith(".") || !specifier.endsWith(".js")) throw error;
      return nextResolve(specifier.slice(0, -3) + ".ts", context);
    }
  },
});
const { startModelServer } = await import(${JSON.stringify(path.join(here, "../test/support/model-server.ts"))});
let server;
process.on("message", async (message) => {
  if (message.type === "start") {
    server = await startModelServer(message.turns, { record: false });
    process.send({ type: "started", baseUrl: server.baseUrl(message.protocol) });
  } else if (message.type === "stats") {
    process.send({ type: "stats", stats: server.stats, failures: server.failures.slice(0, 3) });
  } else if (message.type === "stop") {
    await server.close();
    process.exit(0);
  }
});
`;

export function startServerChild() {
  const child = fork("--input-type=module", [], {
    execArgv: ["--input-type=module", "-e", SERVER_CHILD],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ask = (message, replyType) =>
    new Promise((resolve) => {
      const onMessage = (reply) => {
        if (reply.type !== replyType) return;
        child.off("message", onMessage);
        resolve(reply);
      };
      child.on("message", onMessage);
      child.send(message);
    });
  return { child, ask };
}

const PROVIDER_OF = { openai: "openai", anthropic: "anthropic", gemini: "google" };

/** The model client of a bench, pointed at the scripted server's `baseUrl` (or at nothing, never asked). */
export async function scriptedModelClient(
  baseUrl,
  { protocol = "openai", contextWindow = 100_000_000 } = {},
) {
  const { createLanguageModel } = await import("../dist/models/provider.js");
  const { createModelClient } = await import("../dist/models/client.js");
  const made = createLanguageModel({
    model: `${PROVIDER_OF[protocol]}:bench-model`,
    baseUrl,
    env: { OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k", GEMINI_API_KEY: "k" },
  });
  if (!made.ok) throw new Error(made.message);
  return createModelClient(made.value.spec, made.value.model, contextWindow);
}

/** `turns` model turns that each call view_file on `file`, then a closing answer. */
export function viewFileTurns(file, turns) {
  const script = [];
  for (let i = 0; i < turns; i++)
    script.push({
      toolCalls: [{ name: "view_file", args: { AbsolutePath: file } }],
      usage: { input: 100, output: 10 },
    });
  script.push({ text: "done" });
  return script;
}
