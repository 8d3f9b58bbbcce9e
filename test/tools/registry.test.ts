import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { lazySchema } from "../../src/config/lazy-schema.js";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { defineTool, okResult, type SafetyLevel } from "../../src/tools/contract.js";
import { createToolRegistry } from "../../src/tools/registry.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

function dummy(name: string, safety: SafetyLevel, aliases: string[] = []) {
  return defineTool({
    spec: {
      name,
      description: `${name} tool`,
      parameters: z.object({ Path: z.string().describe("a path") }),
      safety,
      group: safety === "read_only" ? "Read" : "Edit",
      aliases,
    },
    execute: async () => okResult(name),
  });
}

let ws: TempWorkspace | undefined;
let session: GantrySession | undefined;
afterEach(async () => {
  await session?.dispose();
  await ws?.cleanup();
  session = undefined;
  ws = undefined;
});

describe("tool registry", () => {
  it("ToolRegistry lists enabled read-only tools", () => {
    const registry = createToolRegistry([
      dummy("look", "read_only"),
      dummy("peek", "read_only"),
      dummy("write_it", "write"),
      dummy("run_it", "execute"),
    ]);
    registry.setEnabled("peek", false);
    expect(registry.listEnabled("read_only").map((t) => t.spec.name)).toEqual(["look"]);
    expect(registry.listEnabled().map((t) => t.spec.name)).toEqual(["look", "write_it", "run_it"]);
  });

  it("lists view_file and list_dir among a session's enabled read-only tools", async () => {
    ws = await createTempWorkspace();
    session = createGantrySession({ workspace: ws.root, home: ws.home });
    const names = session.registry.listEnabled("read_only").map((t) => t.spec.name);
    expect(names).toEqual(expect.arrayContaining(["view_file", "list_dir"]));
    for (const tool of session.registry.listEnabled("read_only")) expect(tool.spec.safety).toBe("read_only");
  });

  it("resolves aliases to the canonical tool, also for enabling and disabling", () => {
    const registry = createToolRegistry([dummy("view_file", "read_only", ["read_file", "read"])]);
    expect(registry.lookup("read")?.spec.name).toBe("view_file");
    expect(registry.lookup("read_file")?.spec.name).toBe("view_file");
    registry.setEnabled("read", false);
    expect(registry.isEnabled("view_file")).toBe(false);
    expect(registry.lookup("nope")).toBeUndefined();
    expect(() => registry.setEnabled("nope", true)).toThrow(/unknown tool "nope"/);
  });

  it("refuses a name or alias registered twice", () => {
    const registry = createToolRegistry([dummy("a", "read_only", ["x"])]);
    expect(() => registry.register(dummy("b", "read_only", ["x"]))).toThrow(/"x" is registered twice/);
    expect(() => registry.register(dummy("x", "read_only"))).toThrow(/registered twice/);
  });

  it("names the closest tools to a misspelt name", () => {
    const registry = createToolRegistry([dummy("view_file", "read_only"), dummy("list_dir", "read_only")]);
    expect(registry.closestNames("veiw_file", 1)).toEqual(["view_file"]);
  });

  it("counts an alias close to the name for its tool, names each tool once, and leaves switched-off tools out", () => {
    const registry = createToolRegistry([
      dummy("grep_search", "read_only", ["grep"]),
      dummy("view_file", "read_only", ["read_file", "read"]),
      dummy("agent", "read_only", ["Task"]),
      dummy("list_dir", "read_only", ["ls"]),
    ]);
    const closest = registry.closestNames("grep_s");
    expect(closest[0]).toBe("grep_search");
    expect(closest).toHaveLength(3);
    expect(new Set(closest).size).toBe(3);
    expect(closest.every((name) => ["grep_search", "view_file", "agent", "list_dir"].includes(name))).toBe(
      true,
    );
    expect(registry.closestNames("rea")[0]).toBe("view_file");
    registry.setEnabled("view_file", false);
    expect(registry.closestNames("rea")).not.toContain("view_file");
  });

  it("generates declarations from the zod schema, with a description on every field, for enabled tools only", async () => {
    ws = await createTempWorkspace();
    session = createGantrySession({ workspace: ws.root, home: ws.home });
    session.registry.setEnabled("list_dir", false);
    const declarations = session.registry.declarations();
    expect(declarations.some((d) => d.name === "list_dir")).toBe(false);
    const viewFile = declarations.find((d) => d.name === "view_file");
    expect(viewFile?.parameters).toMatchObject({
      type: "object",
      required: ["AbsolutePath"],
      properties: {
        AbsolutePath: { type: "string" },
        StartLine: { type: "integer", minimum: 1 },
        EndLine: { type: "integer", minimum: 1 },
        ContentOffset: { type: "integer", minimum: 0 },
      },
    });
    const properties = viewFile?.parameters.properties as Record<string, { description?: string }>;
    for (const [field, schema] of Object.entries(properties)) expect(schema.description, field).toBeTruthy();
    expect(properties.ContentOffset?.description).toMatch(/Character offset/);
  });
});

describe("a tool whose schema is built on first use", () => {
  it("builds it once, when the model's declarations or a call read it, and validates calls with it", async () => {
    let built = 0;
    const parameters = lazySchema(() => {
      built++;
      return z.object({ Path: z.string().describe("a path") });
    });
    const tool = defineTool({
      spec: { name: "lazy_look", description: "look", parameters, safety: "read_only", group: "Read" },
      execute: async (args) => okResult(`saw ${args.Path}`),
    });
    const registry = createToolRegistry([tool]);
    expect(built).toBe(0);
    const [declaration] = registry.declarations();
    expect(declaration?.parameters).toMatchObject({ properties: { Path: { type: "string" } } });
    expect(tool.spec.parameters.safeParse({ Path: 1 }).success).toBe(false);
    expect(built).toBe(1);
  });
});
