import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { edgeStdio } from "./support.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;

afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
});

async function open(mcpServers: Record<string, unknown>, notices: string[] = []) {
  ws = await createTempWorkspace();
  session = createGantrySession({ workspace: ws.root, home: ws.home, mcpServers, approvalMode: "yolo" });
  notices.push(...(await session.mcp.startMain()));
  return session;
}

const declared = (s: GantrySession) =>
  s.registry
    .declarations()
    .map((d) => d.name)
    .filter((name) => name.startsWith("mcp__"));

describe("a server's tool list", () => {
  it("a tool whose input schema cannot be used is skipped and named; the server and its other tools work", async () => {
    const notices: string[] = [];
    const s = await open({ edge: edgeStdio("bad-schema") }, notices);
    const lines = notices.join("\n");
    expect(s.mcp.get("edge")?.state).toBe("ready");
    expect(lines).toContain('MCP server "edge": the tool "broken" is skipped: its input schema');
    expect(declared(s)).toEqual([
      "mcp__edge__audio",
      "mcp__edge__swap",
      "mcp__edge__count",
      "mcp__edge__removed",
    ]);
    const result = await s.pipeline.run({ name: "mcp__edge__count", args: { n: 2 } });
    expect(result.text).toBe('ran count {"n":2}');
  }, 30_000);

  it("follows tools/list_changed: a withdrawn tool leaves the model's list, a new one joins it", async () => {
    const s = await open({ edge: edgeStdio() });
    expect(declared(s)).toContain("mcp__edge__removed");
    expect((await s.pipeline.run({ name: "mcp__edge__swap", args: {} })).text).toBe("swapped");
    for (let tries = 0; tries < 50 && !declared(s).includes("mcp__edge__added"); tries++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(declared(s)).toEqual([
      "mcp__edge__audio",
      "mcp__edge__swap",
      "mcp__edge__count",
      "mcp__edge__added",
    ]);
    expect((await s.pipeline.run({ name: "mcp__edge__added", args: {} })).text).toBe("ran added {}");
    const gone = await s.pipeline.run({ name: "mcp__edge__removed", args: {} });
    expect(gone.error).toBe(true);
  }, 30_000);

  it("names audio content, with its type and size, without inlining it", async () => {
    const s = await open({ edge: edgeStdio() });
    const result = await s.pipeline.run({ name: "mcp__edge__audio", args: {} });
    expect(result.text).toBe("[audio audio/wav, 6 bytes, not shown]");
    expect(result.metadata.mcpContent).toEqual(["audio"]);
  }, 30_000);
});
