import { afterEach, describe, expect, it } from "vitest";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { hookHarness, hooksJson, startServer } from "./support.js";

let ws: TempWorkspace;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await ws?.cleanup();
});

async function workspaceWithHttpHook(url: string, extra: Record<string, unknown> = {}, timeout = 5) {
  ws = await createTempWorkspace({
    ".agents/hooks.json": hooksJson({
      remote: {
        ...extra,
        pre_tool_execution: [
          { matcher: ".*", hooks: [{ type: "http", url, timeout, ...(extra.handler ?? {}) }] },
        ],
      },
    }),
  });
}

const call = { name: "view_file", args: { AbsolutePath: "a.txt" } };

describe("HTTP hooks", () => {
  it("denies with the reason from a 2xx JSON body", async () => {
    const server = await startServer((_req, res) => res.end('{"decision":"deny","reason":"not on Fridays"}'));
    closers.push(server.close);
    await workspaceWithHttpHook(server.url);
    const { pipeline } = hookHarness(ws);
    expect((await pipeline.run(call)).text).toBe("Denied by hook remote: not on Fridays");
  });

  it("allows the call on HTTP 500, even with a deny in the body, and logs the status", async () => {
    const server = await startServer((_req, res) => {
      res.statusCode = 500;
      res.end('{"decision":"deny"}');
    });
    closers.push(server.close);
    await workspaceWithHttpHook(server.url);
    const { pipeline, log } = hookHarness(ws);
    expect(await pipeline.run(call)).toMatchObject({ errorCode: "not_found" });
    expect(log).toEqual(['hook remote: HTTP 500: {"decision":"deny"} (fail-open: allowed)']);
  });

  it("gives up on a server that never answers at the timeout", async () => {
    const server = await startServer(() => {});
    closers.push(server.close);
    await workspaceWithHttpHook(server.url, {}, 0.3);
    const { pipeline, log } = hookHarness(ws);
    const started = Date.now();
    await pipeline.run(call);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(log).toEqual(["hook remote: timed out after 0.3 s (fail-open: allowed)"]);
  });

  it("cuts off a body that drips forever: the timeout covers the body too", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"decision":');
      const drip = setInterval(() => res.write(" "), 50);
      res.on("close", () => clearInterval(drip));
    });
    closers.push(server.close);
    await workspaceWithHttpHook(server.url, {}, 0.4);
    const { pipeline, log } = hookHarness(ws);
    const started = Date.now();
    await pipeline.run(call);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(log).toEqual(["hook remote: timed out after 0.4 s (fail-open: allowed)"]);
  });

  it("never follows a 307 redirect (that would re-send the payload elsewhere)", async () => {
    const elsewhere = await startServer((_req, res) => res.end('{"decision":"deny"}'));
    closers.push(elsewhere.close);
    const server = await startServer((_req, res) => {
      res.writeHead(307, { location: `${elsewhere.url}/steal` });
      res.end();
    });
    closers.push(server.close);
    await workspaceWithHttpHook(server.url);
    const { pipeline, log } = hookHarness(ws);
    expect(await pipeline.run(call)).toMatchObject({ errorCode: "not_found" });
    expect(elsewhere.requests).toEqual([]);
    expect(log).toEqual([
      `hook remote: HTTP 307 redirect to ${elsewhere.url}/steal not followed (fail-open: allowed)`,
    ]);
  });

  it("refuses a body larger than the cap", async () => {
    const server = await startServer((_req, res) =>
      res.end(`{"decision":"deny","reason":"${"x".repeat(2 * 1024 * 1024)}"}`),
    );
    closers.push(server.close);
    await workspaceWithHttpHook(server.url);
    const { pipeline, log } = hookHarness(ws);
    expect(await pipeline.run(call)).toMatchObject({ errorCode: "not_found" });
    expect(log).toEqual(["hook remote: response body over 1048576 bytes (fail-open: allowed)"]);
  });

  it("expands ${VAR} in header values from the environment and reports unset ones", async () => {
    const server = await startServer();
    closers.push(server.close);
    await workspaceWithHttpHook(server.url, {
      handler: { headers: { Authorization: "Bearer ${AUDIT_TOKEN}", "X-Team": "${AUDIT_TEAM}-x" } },
    });
    const { pipeline, log } = hookHarness(ws, { AUDIT_TOKEN: "s3cret" });
    await pipeline.run(call);
    expect(server.requests[0]?.headers.authorization).toBe("Bearer s3cret");
    expect(server.requests[0]?.headers["x-team"]).toBe("-x");
    expect(log).toEqual(["hook remote: header references AUDIT_TEAM, which is unset"]);
  });

  it("denies when a failClosed group's endpoint is down", async () => {
    const server = await startServer();
    await server.close();
    await workspaceWithHttpHook(server.url, { failClosed: true });
    const { pipeline, log } = hookHarness(ws);
    const result = await pipeline.run(call);
    expect(result.errorCode).toBe("denied");
    expect(result.text).toMatch(/^Denied by hook remote: the hook failed: request failed: .*ECONNREFUSED/);
    expect(log[0]).toMatch(/\(failClosed: the call is denied\)$/);
  });
});
