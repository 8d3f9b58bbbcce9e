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
