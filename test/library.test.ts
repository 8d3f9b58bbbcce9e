import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import {
  buildSystemPrompt,
  createCallbackAsker,
  createConversation,
  createGantrySession,
  createLanguageModel,
  createModelClient,
  type GantrySession,
  loadProjectInstructions,
  runAgentLoop,
} from "../src/index.js";
import { type ModelServer, startModelServer } from "./support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "./support/workspace.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;
let server: ModelServer | undefined;
afterEach(async () => {
  await session?.dispose();
  await server?.close();
  await ws.cleanup();
});

// the building blocks under createAgent, put together by hand, against the scripted model server
it("puts a session, a model and the loop together by hand, with a callback asker", async () => {
  ws = await createTempWorkspace({ "notes.md": "# Notes\nship it\n" });
  server = await startModelServer([
    { toolCalls: [{ name: "view_file", args: { AbsolutePath: "notes.md" } }] },
    {
      toolCalls: [
        {
          name: "write_to_file",
          args: { TargetFile: "done.md", Overwrite: false, CodeContent: "done\n", Description: "mark" },
        },
      ],
    },
    { text: "The notes say: ship it." },
  ]);
  const asked: string[] = [];

  session = createGantrySession({
    workspace: ws.root,
    home: ws.home,
    approvalMode: "default",
    asker: createCallbackAsker({
      onPermission: async (request) => {
        asked.push(request.tool);
        return { choice: "once" };
      },
    }),
  });
  const made = createLanguageModel({
    model: "openai:gpt-4.1",
    baseUrl: server.baseUrl("openai"),
    env: { OPENAI_API_KEY: "k" },
  });
  if (!made.ok) throw new Error(made.message);
  const model = createModelClient(made.value.spec, made.value.model, 128_000);
  const system = buildSystemPrompt({
    workspaceRoot: session.workspace.root,
    declarations: session.registry.declarations(),
    instructions: loadProjectInstructions(session.workspace.root),
  });
  const result = await runAgentLoop(createConversation(), model, session.pipeline, {
    system,
    input: [{ role: "user", text: "What do my notes say?" }],
    inbox: session.inbox,
    onEvent: (event) => void event,
  });

  expect(result.reason).toBe("completed");
  expect(result.text).toBe("The notes say: ship it.");
  expect(asked).toEqual(["write_to_file"]);
  expect(readFileSync(path.join(ws.root, "done.md"), "utf8")).toBe("done\n");
  expect(server.requests[1]?.text).toContain("ship it");
  server.assertDone();
});
