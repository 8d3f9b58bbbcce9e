import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { resolveToolAccess } from "../../src/subagents/access.js";
import { type AnyTool, defineTool, okResult } from "../../src/tools/contract.js";
import { createToolRegistry } from "../../src/tools/registry.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { everythingStdio } from "./support.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;

afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
});

const STRUCTURE = "demo://resource/static/document/structure.md";

describe("mcp_resources", () => {
  it("lists the servers' resources and templates, and reads one", async () => {
    ws = await createTempWorkspace();
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      mcpServers: { everything: everythingStdio() },
    });
    const list = await session.pipeline.run({ name: "mcp_resources", args: { Action: "list" } });
    expect(list.error).toBe(false);
    expect(list.text).toContain(`everything  ${STRUCTURE}`);
    expect(list.text).toContain("demo://resource/dynamic/text/{resourceId}");
    expect(list.text).toContain("(template: fill in the {…} parts)");

    const read = await session.pipeline.run({
      name: "mcp_resources",
      args: { Action: "read", Server: "everything", Uri: "demo://resource/dynamic/text/7" },
    });
    expect(read.error).toBe(false);
    expect(read.text).toContain("7");

    const missing = await session.pipeline.run({
      name: "mcp_resources",
      args: { Action: "read", Server: "nope", Uri: STRUCTURE },
    });
    expect(missing.errorCode).toBe("not_found");
    expect(missing.text).toContain("known: everything");
  }, 60_000);

  it("reads a long resource in parts: each cut result names the next call with Offset", async () => {
    ws = await createTempWorkspace();
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      mcpServers: { everything: everythingStdio() },
      settings: { limits: { maxOutputChars: 2000 } },
    });
    const args = { Action: "read", Server: "everything", Uri: STRUCTURE };
    const first = await session.pipeline.run({ name: "mcp_resources", args });
    expect(first.metadata.truncated).toBe(true);
    const next = /Next call: (\{.*\})/.exec(first.text)?.[1] as string;
    const nextArgs = JSON.parse(next) as { Offset: number };
    expect(nextArgs).toMatchObject(args);
    expect(nextArgs.Offset).toBeGreaterThan(1000);
    const second = await session.pipeline.run({ name: "mcp_resources", args: nextArgs });
    await session.dispose();
    // the whole resource, read at once: the parts join up exactly at Offset
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      mcpServers: { everything: everythingStdio() },
    });
    const whole = await session.pipeline.run({ name: "mcp_resources", args });
    expect(whole.metadata.truncated).toBeUndefined();
    const shown = first.text.slice(0, first.text.lastIndexOf("\n["));
    expect(whole.text.startsWith(shown.slice(0, 500))).toBe(true);
    expect(whole.text.slice(nextArgs.Offset).startsWith(second.text.slice(0, 500))).toBe(true);
  }, 60_000);
});

describe("which agents get a subagent-only server's tools", () => {
  const tool = (name: string, audience?: "subagents"): AnyTool =>
    defineTool({
      spec: {
        name,
        description: name,
        parameters: z.object({}),
        safety: "execute",
        group: "MCP",
        ...(audience ? { audience } : {}),
      },
      execute: async () => okResult("ok"),
    });
  const registry = createToolRegistry([tool("mcp__main__a"), tool("mcp__helper__b", "subagents")]);

  it("define_subagent's enable_mcp_tools and an explicit name get it; all-tools and no-MCP agents do not", () => {
    const allows = (selection: Parameters<typeof resolveToolAccess>[0]) =>
      registry
        .all()
        .map((t) => t.spec.name)
        .filter((name) => resolveToolAccess(selection, registry, { allowSubagentTools: false }).allows(name));
    expect(allows({ kind: "all" })).toEqual(["mcp__main__a"]);
    expect(allows({ kind: "capabilities", write: false, mcp: true, subagents: false })).toEqual([
      "mcp__main__a",
      "mcp__helper__b",
    ]);
    expect(allows({ kind: "capabilities", write: true, mcp: false, subagents: false })).toEqual([]);
    expect(allows({ kind: "list", names: ["mcp__helper"] })).toEqual(["mcp__helper__b"]);
    expect(allows({ kind: "list", names: ["mcp__helper__b"] })).toEqual(["mcp__helper__b"]);
    expect(registry.declarations().map((d) => d.name)).toEqual(["mcp__main__a"]);
  });
});
