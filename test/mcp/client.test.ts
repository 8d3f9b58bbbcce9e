import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { GANTRY_BIN } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { everythingStdio, startEverythingHttp } from "./support.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;

afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
});

async function open(
  mcpServers: Record<string, unknown>,
  extra: Parameters<typeof createGantrySession>[0] = {},
) {
  ws = await createTempWorkspace();
  session = createGantrySession({ workspace: ws.root, home: ws.home, mcpServers, ...extra });
  return session;
}

describe("MCP client over stdio (server-everything)", () => {
  it("registers the server's tools as mcp__<server>__<tool> with the server's own schema, and runs them", async () => {
    const s = await open({ everything: everythingStdio() });
    expect(s.registry.lookup("mcp__everything__echo")).toBeUndefined(); // lazy: nothing started yet
    expect(await s.mcp.startMain()).toEqual([]);
    const declaration = s.registry.declarations().find((d) => d.name === "mcp__everything__echo");
    expect(declaration?.parameters).toMatchObject({
      type: "object",
      properties: { message: { type: "string" } },
      required: ["message"],
    });
    expect(declaration?.parameters).not.toHaveProperty("$schema");
    const result = await s.pipeline.run({ name: "mcp__everything__echo", args: { message: "hello mcp" } });
    expect(result.error).toBe(false);
    expect(result.text).toContain("hello mcp");
    expect(s.mcp.get("everything")?.protocolVersion).toBe("2025-11-25");
  }, 60_000);

  it("validates arguments with the server's JSON schema before anything is sent", async () => {
    const s = await open({ everything: everythingStdio() });
    await s.mcp.startMain();
    const result = await s.pipeline.run({ name: "mcp__everything__get-sum", args: { a: "one", b: 2 } });
    expect(result.errorCode).toBe("invalid_arguments");
    expect(result.text).toMatch(/a.*must be number/);
  }, 60_000);

  it("passes images on for models that take them", async () => {
    const s = await open({ everything: everythingStdio() });
    await s.mcp.startMain();
    const result = await s.pipeline.run({ name: "mcp__everything__get-tiny-image", args: {} });
    expect(result.error).toBe(false);
    expect(result.images?.[0]?.mimeType).toBe("image/png");
    expect(result.images?.[0]?.data.length).toBeGreaterThan(50);
  }, 60_000);

  it("gives embedded resources to the model as text, with their URI", async () => {
    const s = await open({ everything: everythingStdio() });
    await s.mcp.startMain();
    const result = await s.pipeline.run({
      name: "mcp__everything__get-resource-reference",
      args: { resourceType: "Text", resourceId: 2 },
    });
    expect(result.error).toBe(false);
    expect(result.text).toMatch(/\[resource [^\]]*2\]/);
  }, 60_000);

  it("shows a long tool's progress notifications as the call's live updates", async () => {
    const s = await open({ everything: everythingStdio() });
    await s.mcp.startMain();
    const updates: string[] = [];
    const result = await s.pipeline.run(
      { name: "mcp__everything__trigger-long-running-operation", args: { duration: 1.5, steps: 3 } },
      { onUpdate: (partial) => updates.push(partial) },
    );
    expect(result.text).toContain("Long running operation completed");
    // the last notification may cross the result on the wire; the ones before it are shown in order
    expect(updates.slice(0, 2)).toEqual(["progress 1/3", "progress 2/3"]);
  }, 60_000);

  it("cuts a long result at the output limit with the usual notice", async () => {
    const s = await open(
      { everything: everythingStdio() },
      { settings: { limits: { maxOutputChars: 400 } } },
    );
    await s.mcp.startMain();
    const result = await s.pipeline.run({
      name: "mcp__everything__echo",
      args: { message: "x".repeat(5000) },
    });
    expect(result.metadata.truncated).toBe(true);
    expect(result.text.length).toBeLessThanOrEqual(400);
  }, 60_000);

  it("applies includeTools / excludeTools and leaves a disabled server unstarted", async () => {
    const s = await open({
      only: everythingStdio({ includeTools: ["echo", "get-sum"], excludeTools: ["get-sum"] }),
      off: everythingStdio({ enabled: false }),
    });
    await s.mcp.startMain();
    const names = s.registry
      .all()
      .map((t) => t.spec.name)
      .filter((n) => n.startsWith("mcp__"));
    expect(names).toEqual(["mcp__only__echo"]);
    expect(s.mcp.get("off")?.state).toBe("disabled");
  }, 60_000);

  it("expands ${VAR} in env, and reports a server whose variable is unset instead of starting it", async () => {
    ws = await createTempWorkspace();
    process.env.GANTRY_TEST_GREETING = "hi";
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      mcpServers: {
        env: everythingStdio({ env: { GREETING: "${GANTRY_TEST_GREETING}-${GANTRY_TEST_UNSET:-fallback}" } }),
        broken: everythingStdio({ env: { TOKEN: "${GANTRY_TEST_NOT_SET}" } }),
      },
    });
    delete process.env.GANTRY_TEST_GREETING;
    const failures = await session.mcp.startMain();
    expect(failures).toEqual([
      expect.stringMatching(
        /^MCP server "broken" is not started: .*\$\{GANTRY_TEST_NOT_SET\}, which is not set/,
      ),
    ]);
    expect(session.mcp.get("broken")?.state).toBe("failed");
    const result = await session.pipeline.run({ name: "mcp__env__get-env", args: {} });
    expect(result.text).toContain('"GREETING": "hi-fallback"');
  }, 60_000);
});

describe("MCP client against a 2026-07-28 server", () => {
  it("negotiates 2026-07-28 with gantry mcp serve (an SDK v2 server) and calls its tools", async () => {
    ws = await createTempWorkspace({ "hello.txt": "hello from the served workspace\n" });
    const served = await createTempWorkspace({});
    try {
      session = createGantrySession({
        workspace: served.root,
        home: served.home,
        mcpServers: {
          gantry: { command: process.execPath, args: [GANTRY_BIN, "mcp", "serve", "--workspace", ws.root] },
        },
      });
      expect(await session.mcp.startMain()).toEqual([]);
      expect(session.mcp.get("gantry")?.protocolVersion).toBe("2026-07-28");
      const result = await session.pipeline.run({
        name: "mcp__gantry__view_file",
        args: { AbsolutePath: "hello.txt" },
      });
      expect(result.text).toContain("hello from the served workspace");
    } finally {
      await session?.dispose();
      session = undefined;
      await served.cleanup();
    }
  }, 60_000);
});

describe("MCP client over HTTP", () => {
  it("talks streamable HTTP to a server on 127.0.0.1", async () => {
    const server = await startEverythingHttp("streamableHttp");
    try {
      const s = await open({ remote: { type: "http", url: server.url } });
      expect(await s.mcp.startMain()).toEqual([]);
      const result = await s.pipeline.run({ name: "mcp__remote__get-sum", args: { a: 2, b: 40 } });
      expect(result.text).toContain("42");
    } finally {
      await session?.dispose();
      session = undefined;
      await server.stop();
    }
  }, 60_000);

  it("talks the legacy SSE transport (Gemini CLI's bare url)", async () => {
    const server = await startEverythingHttp("sse");
    try {
      const s = await open({ legacy: { type: "sse", url: server.url } });
      expect(await s.mcp.startMain()).toEqual([]);
      const result = await s.pipeline.run({ name: "mcp__legacy__echo", args: { message: "over sse" } });
      expect(result.text).toContain("over sse");
    } finally {
      await session?.dispose();
      session = undefined;
      await server.stop();
    }
  }, 60_000);
});
