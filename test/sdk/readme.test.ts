import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { runNode } from "../support/cli.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace | undefined;
let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  await ws?.cleanup();
});

/** The first ```ts block of README's "Embed it as a library" section. */
function readmeExample(): string {
  const readme = readFileSync(path.resolve(import.meta.dirname, "../../README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Embed it as a library"));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error("README has no library example");
  return block;
}

it("runs the README's three-line library example against the scripted model server", {
  timeout: 60_000,
}, async () => {
  const example = readmeExample();
  expect(example.trim().split("\n")).toHaveLength(3);
  ws = await createTempWorkspace({ "notes.md": "# Notes\nship it\n" });
  server = await startModelServer([
    { toolCalls: [{ name: "view_file", args: { AbsolutePath: "notes.md" } }] },
    { text: "The notes say: ship it." },
  ]);
  // the example names only the model: the endpoint comes from the user's settings, as it would
  mkdirSync(path.join(ws.home, ".agents"));
  writeFileSync(
    path.join(ws.home, ".agents", "settings.json"),
    JSON.stringify({ baseUrl: server.baseUrl("openai") }),
  );
  const library = path.resolve(import.meta.dirname, "../../dist/index.js");
  const script = path.join(ws.parent, "example.mjs");
  writeFileSync(script, example.replace('from "gantry"', `from ${JSON.stringify(library)}`));
  const run = await runNode([script], { cwd: ws.root, env: { HOME: ws.home, OPENAI_API_KEY: "test-key" } });
  expect(run.stderr).toBe("");
  expect(run.stdout).toBe("The notes say: ship it.\n");
  expect(server.requests[1]?.text).toContain("ship it");
  server.assertDone();
});
