// An MCP server on the official SDK (@modelcontextprotocol/server) with what server-everything lacks:
// `node edge-server.mjs [bad-schema | hang-on-exit]`. `swap` replaces the tool `removed` by `added` and says so with
// tools/list_changed; `audio` returns audio; `bad-schema` adds a tool whose input schema cannot compile.
import { Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

const badSchema = process.argv[2] === "bad-schema";
// `hang-on-exit`: ignores SIGTERM and the end of its input, as a stuck server does at shutdown
if (process.argv[2] === "hang-on-exit") {
  process.on("SIGTERM", () => console.error("ignoring SIGTERM"));
  setInterval(() => {}, 1e9);
}
let swapped = false;

serveStdio(() => {
  const server = new Server(
    { name: "edge", version: "1.0.0" },
    { capabilities: { tools: { listChanged: true }, logging: {} } },
  );
  server.setRequestHandler("tools/list", async () => ({
    tools: [
      { name: "audio", inputSchema: { type: "object" } },
      { name: "swap", inputSchema: { type: "object" } },
      ...(badSchema
        ? [{ name: "broken", inputSchema: { type: "object", properties: { x: { type: "no-such-type" } } } }]
        : []),
      {
        name: "count",
        inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      },
      { name: swapped ? "added" : "removed", inputSchema: { type: "object" } },
    ],
  }));
  server.setRequestHandler("tools/call", async (request) => {
    const name = request.params.name;
    if (name === "audio") return { content: [{ type: "audio", data: "UklGRg==", mimeType: "audio/wav" }] };
    if (name === "swap") {
      swapped = true;
      await server.sendToolListChanged();
      return { content: [{ type: "text", text: "swapped" }] };
    }
    return {
      content: [{ type: "text", text: `ran ${name} ${JSON.stringify(request.params.arguments ?? {})}` }],
    };
  });
  return server;
});
