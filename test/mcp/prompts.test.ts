import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runGantry } from "../support/cli.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { EVERYTHING } from "./support.js";

let server: ModelServer | undefined;
let ws: TempWorkspace | undefined;
afterEach(async () => {
  await server?.close();
  await ws?.cleanup();
  server = undefined;
  ws = undefined;
});

describe("MCP prompts as slash commands in the interactive session", () => {
  it("/mcp lists them; /mcp__<server>__<prompt> args runs the prompt's text as the user's turn", async () => {
    ws = await createTempWorkspace();
    await mkdir(path.join(ws.home, ".agents"), { recursive: true });
    await writeFile(
      path.join(ws.home, ".agents", "settings.json"),
      JSON.stringify({
        mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
      }),
    );
    server = await startModelServer([
      {
        expect: (request) => {
          expect(request.text).toContain("What's weather in Paris, France?");
        },
        text: "Sunny in Paris.",
      },
    ]);
    const run = await runGantry(
      ["--model", "openai:test-model", "--base-url", server.baseUrl("openai"), "--workspace", ws.root],
      {
        input: "/mcp\n/mcp__everything__args-prompt\n/mcp__everything__args-prompt Paris France\n",
        env: { HOME: ws.home, OPENAI_API_KEY: "test-key" },
        timeoutMs: 90_000,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    server.assertDone();
    expect(run.stdout).toContain("everything  connected");
    expect(run.stdout).toContain("/mcp__everything__args-prompt <city> [state]");
    expect(run.stdout).toContain("usage: /mcp__everything__args-prompt <city> [state]");
    expect(run.stdout).toContain("Sunny in Paris.");
  }, 120_000);
});
