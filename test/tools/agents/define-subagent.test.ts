import { afterEach, describe, expect, it } from "vitest";
import { createSubagentCatalog } from "../../../src/subagents/types.js";
import { createDefineSubagentTool } from "../../../src/tools/agents/define-subagent.js";
import { createToolPipeline } from "../../../src/tools/pipeline.js";
import { createToolRegistry } from "../../../src/tools/registry.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

async function setup() {
  ws = await createTempWorkspace({
    ".agents/agents/tester.md": "---\nname: tester\ndescription: t\n---\nbody",
  });
  const catalog = createSubagentCatalog(ws.root, ws.home);
  const pipeline = createToolPipeline({
    registry: createToolRegistry([createDefineSubagentTool(catalog)]),
    maxOutputChars: 20_000,
  });
  return { catalog, pipeline };
}

describe("define_subagent", () => {
  it("adds a session type with read-only tools unless switched on", async () => {
    const { catalog, pipeline } = await setup();
    const result = await pipeline.run({
      name: "define_subagent",
      args: {
        name: "sql-expert",
        description: "Answers SQL questions",
        system_prompt: "You know SQL.",
        enable_write_tools: true,
      },
    });
    expect(result.error).toBe(false);
    expect(result.text).toContain('Defined subagent type "sql-expert"');
    expect(catalog.get("sql-expert")).toMatchObject({
      systemPrompt: "You know SQL.",
      source: "session",
      tools: { kind: "capabilities", write: true, mcp: false, subagents: false },
    });
  });

  it("refuses to shadow a type defined by a file", async () => {
    const { pipeline } = await setup();
    const result = await pipeline.run({
      name: "define_subagent",
      args: { name: "tester", description: "d", system_prompt: "p" },
    });
    expect(result).toMatchObject({ error: true, errorCode: "conflict" });
    expect(result.text).toContain("already defined by");
  });

  it("names the missing field", async () => {
    const { pipeline } = await setup();
    const result = await pipeline.run({ name: "define_subagent", args: { name: "x", description: "d" } });
    expect(result).toMatchObject({ error: true, errorCode: "invalid_arguments" });
    expect(result.text).toContain("system_prompt");
  });
});
