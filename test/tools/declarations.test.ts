import { afterEach, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace;
let session: GantrySession;
afterEach(async () => {
  await session.dispose();
  await ws.cleanup();
});

// STYLE rule 12: what the model is sent changes only on purpose (update with `npx vitest run -u`)
it("sends the model the same tool declarations as the snapshot", async () => {
  ws = await createTempWorkspace();
  session = createGantrySession({ workspace: ws.root, home: ws.home });
  const declarations = session.registry.declarations();
  expect(declarations.map((d) => d.name)).toContain("view_file");
  expect(declarations).toMatchSnapshot();
});

it("generates every declaration's parameters from the tool's zod schema, with a description on every field", async () => {
  ws = await createTempWorkspace();
  session = createGantrySession({ workspace: ws.root, home: ws.home });
  const undescribed: string[] = [];
  for (const declaration of session.registry.declarations()) {
    const properties = (declaration.parameters.properties ?? {}) as Record<string, { description?: string }>;
    expect(declaration.parameters.type).toBe("object");
    for (const [field, schema] of Object.entries(properties)) {
      if (!schema.description) undescribed.push(`${declaration.name}.${field}`);
    }
  }
  expect(undescribed).toEqual([]);
});
