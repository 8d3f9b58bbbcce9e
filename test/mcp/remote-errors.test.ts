import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { loginMcpServer } from "../../src/mcp/oauth.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { freePort } from "./support.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;
const servers: Server[] = [];

afterEach(async () => {
  await session?.dispose();
  session = undefined;
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  await ws?.cleanup();
});

/** An HTTP server on 127.0.0.1 that answers every request with one status (no OAuth metadata either). */
async function answering(status: number, body: string): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(status, { "content-type": "text/plain" });
    res.end(body);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/mcp`;
}

async function startFailure(entry: Record<string, unknown>): Promise<string> {
  ws = await createTempWorkspace();
  session = createGantrySession({ workspace: ws.root, home: ws.home, mcpServers: { remote: entry } });
  const failures = await session.mcp.startMain();
  expect(failures).toHaveLength(1);
  expect(failures[0]).toContain('MCP server "remote" did not start: ');
  return failures[0] ?? "";
}

describe("a remote MCP server that cannot be used says why, and what to do", () => {
  it("nothing listening: the address and connection refused", async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    for (const type of ["http", "sse"]) {
      const failure = await startFailure({ type, url });
      expect(failure, type).toContain(`nothing answers at ${url} (connection refused)`);
      await session?.dispose();
    }
  }, 30_000);

  it("a port fetch refuses (the bad-port list): says so, not 'fetch failed'", async () => {
    const failure = await startFailure({ type: "http", url: "http://127.0.0.1:6000/mcp" });
    expect(failure).toContain(
      'fetch refuses the port of http://127.0.0.1:6000/mcp (it is on the "bad port" list',
    );
  }, 30_000);

  it("an unknown host: its name", async () => {
    const failure = await startFailure({ type: "http", url: "http://no-such-host.invalid/mcp" });
    expect(failure).toContain('the host "no-such-host.invalid" was not found');
  }, 30_000);

  it("credentials in the headers refused (401): the header to check, not an OAuth sign-in", async () => {
    for (const type of ["http", "sse"]) {
      const url = await answering(401, "bad token");
      const failure = await startFailure({ type, url, headers: { Authorization: "Bearer stale" } });
      expect(failure, type).toContain(
        'the server refused the credentials in its "Authorization" header (HTTP 401)',
      );
      expect(failure, type).not.toContain("gantry mcp login");
      await session?.dispose();
    }
  }, 30_000);

  it("access denied (403): says the credentials do not give access", async () => {
    for (const type of ["http", "sse"]) {
      const url = await answering(403, "forbidden");
      const failure = await startFailure({ type, url, headers: { "X-Api-Key": "k" } });
      expect(failure, type).toContain("the server denied access (HTTP 403)");
      expect(failure, type).toContain('"X-Api-Key"');
      await session?.dispose();
    }
  }, 30_000);

  it("a wrong path (404): no MCP endpoint at that URL", async () => {
    for (const type of ["http", "sse"]) {
      const url = await answering(404, "nope");
      const failure = await startFailure({ type, url });
      expect(failure, type).toContain(`no MCP endpoint at ${url} (HTTP 404)`);
      await session?.dispose();
    }
  }, 30_000);

  it("a 401 from a server that publishes no OAuth metadata: say so, and point at headers, not at a login that fails", async () => {
    const url = await answering(401, "who are you");
    const failure = await startFailure({ type: "http", url });
    expect(failure).toContain("publishes no OAuth metadata");
    expect(failure).toContain('"headers"');
    expect(failure).not.toContain("gantry mcp login");
    const config = session?.mcp.get("remote")?.config;
    if (!config) throw new Error("no config");
    await expect(loginMcpServer(config, ws.home, () => undefined)).rejects.toThrow(
      /publishes no OAuth metadata/,
    );
  }, 30_000);
});
