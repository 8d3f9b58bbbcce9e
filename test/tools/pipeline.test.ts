import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { type AnyTool, defineTool, okResult } from "../../src/tools/contract.js";
import { createToolPipeline } from "../../src/tools/pipeline.js";
import { createToolRegistry } from "../../src/tools/registry.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace | undefined;
let session: GantrySession | undefined;
afterEach(async () => {
  await session?.dispose();
  await ws?.cleanup();
  session = undefined;
  ws = undefined;
});

async function realSession(files: Record<string, string> = {}, settings?: object) {
  ws = await createTempWorkspace(files);
  if (settings) await ws.write(".agents/settings.json", JSON.stringify(settings));
  session = createGantrySession({ workspace: ws.root, home: ws.home });
  return session;
}

const echoTool = defineTool({
  spec: {
    name: "echo_text",
    description: "Echoes text.",
    parameters: z.object({
      Text: z.string().describe("text to echo"),
      Times: z.number().int().min(1).max(5).optional().describe("how often"),
    }),
    safety: "read_only",
    group: "Read",
    aliases: ["echo"],
  },
  execute: async (args) => okResult(args.Text.repeat(args.Times ?? 1), { echoed: true }),
});

function pipelineOf(tools: AnyTool[], maxOutputChars = 20_000) {
  return createToolPipeline({ registry: createToolRegistry(tools), maxOutputChars });
}

describe("tool pipeline", () => {
  it("answers an unknown tool with an error naming the closest tools", async () => {
    const s = await realSession();
    const result = await s.pipeline.run({ name: "view_fil", args: {} });
    expect(result).toMatchObject({ error: true, errorCode: "unknown_tool" });
    expect(result.text).toMatch(/Unknown tool "view_fil"\. Closest tools: view_file/);
    const other = await s.pipeline.run({ name: "lst_dir", args: {} });
    expect(other.text).toContain("list_dir");
  });

  it("answers invalid arguments with the field and what was expected", async () => {
    const s = await realSession();
    const wrongType = await s.pipeline.run({ name: "view_file", args: { AbsolutePath: 42 } });
    expect(wrongType).toMatchObject({ error: true, errorCode: "invalid_arguments" });
    expect(wrongType.text).toMatch(/AbsolutePath: .*expected string/i);
    const missing = await s.pipeline.run({ name: "view_file", args: {} });
    expect(missing.text).toMatch(/AbsolutePath: .*expected string/i);
    const badNumber = await s.pipeline.run({ name: "view_file", args: { AbsolutePath: "a", StartLine: 0 } });
    expect(badNumber.text).toMatch(/StartLine: .*>=\s*1/);
    const notJson = await s.pipeline.run({ name: "view_file", args: "{not json" });
    expect(notJson).toMatchObject({ error: true, errorCode: "invalid_arguments" });
    expect(notJson.text).toContain("not valid JSON");
  });

  it("takes arguments as a JSON string, as providers send them", async () => {
    const s = await realSession({ "a.txt": "alpha\n" });
    const result = await s.pipeline.run({ name: "view_file", args: '{"AbsolutePath":"a.txt"}' });
    expect(result.text).toContain("alpha");
  });

  it("refuses a disabled tool, named by its alias in settings", async () => {
    const s = await realSession({ "a.txt": "a" }, { tools: { disabled: ["ls"] } });
    expect(s.registry.isEnabled("list_dir")).toBe(false);
    const result = await s.pipeline.run({ name: "list_dir", args: { DirectoryPath: "." } });
    expect(result).toMatchObject({ error: true, errorCode: "disabled_tool" });
    expect((await s.pipeline.run({ name: "view_file", args: { AbsolutePath: "a.txt" } })).error).toBe(false);
  });

  it("runs a tool by any of its aliases", async () => {
    const s = await realSession({ "a.txt": "alpha\n" });
    for (const name of ["view_file", "read_file", "read"]) {
      const result = await s.pipeline.run({ name, args: { AbsolutePath: "a.txt" } });
      expect(result.text, name).toBe("    1\talpha");
    }
    for (const name of ["list_dir", "list_files", "ls"]) {
      expect((await s.pipeline.run({ name, args: { DirectoryPath: "." } })).text, name).toContain("a.txt");
    }
  });

  it("truncates output past the limit, marks metadata.truncated and ends with the notice line", async () => {
    const pipeline = pipelineOf([echoTool], 100);
    const result = await pipeline.run({ name: "echo", args: { Text: "0123456789\n".repeat(3), Times: 5 } });
    expect(result.error).toBe(false);
    expect(result.metadata).toMatchObject({ truncated: true, echoed: true, totalChars: 165 });
    const lines = result.text.split("\n");
    expect(lines.at(-1)).toMatch(/^\[output truncated: showing \d+ of 165 characters; \d+ omitted\.\]$/);
    expect(lines.slice(0, -1).every((line) => line === "0123456789" || line === "")).toBe(true);
    const short = await pipeline.run({ name: "echo", args: { Text: "short" } });
    expect(short.metadata.truncated).toBeUndefined();
    expect(short.text).toBe("short");
  });

  it("keeps a truncated result, notice and next step included, within the output limit", async () => {
    const paged = defineTool({
      ...echoTool,
      spec: {
        ...echoTool.spec,
        name: "paged_echo",
        aliases: [],
        output: { continuation: (_args, shown) => `Call again with Offset: ${shown}.` },
      },
    });
    const pipeline = pipelineOf([paged], 1000);
    const result = await pipeline.run({
      name: "paged_echo",
      args: { Text: `${"line of text\n".repeat(100)}`, Times: 2 },
    });
    expect(result.metadata.truncated).toBe(true);
    expect(result.text.length).toBeLessThanOrEqual(1000);
    expect(result.text.split("\n").at(-1)).toMatch(/omitted\. Call again with Offset: \d+\.\]$/);
    const exact = await pipeline.run({ name: "paged_echo", args: { Text: "x".repeat(1000) } });
    expect(exact.metadata.truncated).toBeUndefined();
  });

  it("passes the abort signal to the running tool", async () => {
    let sawAbort = false;
    const waiting = defineTool({
      spec: {
        name: "wait_for_abort",
        description: "Waits until aborted.",
        parameters: z.object({}),
        safety: "read_only",
        group: "Read",
      },
      execute: (_args, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener("abort", () => {
            sawAbort = true;
            reject(new Error("stopped"));
          });
        }),
    });
    const controller = new AbortController();
    const running = pipelineOf([waiting]).run(
      { name: "wait_for_abort", args: {} },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 20);
    const result = await running;
    expect(sawAbort).toBe(true);
    expect(result).toMatchObject({ error: true, errorCode: "aborted" });
  });

  it("turns a throwing tool into an error result", async () => {
    const throwing = defineTool({
      spec: {
        name: "explode",
        description: "Throws.",
        parameters: z.object({}),
        safety: "read_only",
        group: "Read",
      },
      execute: async () => {
        throw new Error("disk on fire");
      },
    });
    const result = await pipelineOf([throwing]).run({ name: "explode", args: {} });
    expect(result).toMatchObject({ error: true, errorCode: "execution_failed" });
    expect(result.text).toContain("disk on fire");
  });

  it("reports how long the call took", async () => {
    const result = await pipelineOf([echoTool]).run({ name: "echo_text", args: { Text: "x" } });
    expect(typeof result.metadata.durationMs).toBe("number");
  });
});
