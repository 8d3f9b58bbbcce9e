import { afterEach, describe, expect, it } from "vitest";
import { type Agent, createAgent } from "../../src/index.js";
import { type ModelServer, type ScriptedTurn, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace | undefined;
let server: ModelServer | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await server?.close();
  await ws?.cleanup();
  agent = undefined;
});

/** A scripted OpenAI-compatible server that also answers one local server's "about me" endpoint. */
async function localAgent(
  routes: Record<string, unknown>,
  model = "local",
  turns: ScriptedTurn[] = [],
  settings = {},
) {
  ws = await createTempWorkspace();
  server = await startModelServer(turns, { routes });
  agent = await createAgent({
    workspace: ws.root,
    home: ws.home,
    model: `openai-compatible:${model}`,
    baseUrl: server.baseUrl("openai"),
    settings,
  });
  return agent;
}

describe("the context window of a local server is read from the server", () => {
  it("llama.cpp: /props", async () => {
    const made = await localAgent({ "GET /props": { default_generation_settings: { n_ctx: 12_288 } } });
    expect(made.model.contextWindow).toBe(12_288);
    expect(made.contextWindowSource).toBe("llama.cpp /props");
  });

  it("Ollama: num_ctx from /api/show, else the model's context_length", async () => {
    const withNumCtx = await localAgent(
      {
        "POST /api/show": {
          parameters: "temperature 0.7\nnum_ctx 16384",
          model_info: { "qwen3.context_length": 40_960 },
        },
      },
      "qwen3",
    );
    expect(withNumCtx.model.contextWindow).toBe(16_384);
    expect(server?.probes.find((probe) => probe.path === "/api/show")?.body).toEqual({ model: "qwen3" });
    await withNumCtx.close();
    await server?.close();
    await ws?.cleanup();
    const trained = await localAgent(
      { "POST /api/show": { model_info: { "qwen3.context_length": 40_960 } } },
      "qwen3",
    );
    expect(trained.model.contextWindow).toBe(40_960);
    expect(trained.contextWindowSource).toBe("Ollama /api/show");
  });

  it("LM Studio: the loaded context length from /api/v0/models", async () => {
    const made = await localAgent(
      {
        "GET /api/v0/models": {
          data: [
            { id: "other", loaded_context_length: 4096 },
            { id: "qwen3-8b", loaded_context_length: 20_000, max_context_length: 32_768 },
          ],
        },
      },
      "qwen3-8b",
    );
    expect(made.model.contextWindow).toBe(20_000);
    expect(made.contextWindowSource).toBe("LM Studio /api/v0/models");
  });

  it("vLLM: max_model_len from /v1/models", async () => {
    const made = await localAgent(
      { "GET /v1/models": { data: [{ id: "Qwen/Qwen3-8B", max_model_len: 40_960 }] } },
      "Qwen/Qwen3-8B",
    );
    expect(made.model.contextWindow).toBe(40_960);
  });

  it("a contextWindow in settings wins and nothing is asked", async () => {
    const made = await localAgent(
      { "GET /props": { default_generation_settings: { n_ctx: 4096 } } },
      "local",
      [],
      {
        contextWindow: 65_536,
      },
    );
    expect(made.model.contextWindow).toBe(65_536);
    expect(server?.probes).toEqual([]);
  });

  it("a server that says nothing leaves the guess from the name, and says it is a guess", async () => {
    const made = await localAgent({});
    expect(made.model.contextWindow).toBe(32_768);
    expect(made.contextWindowSource).toContain("a guess");
  });

  it("says when the system prompt and tool declarations already fill most of the window", async () => {
    const made = await localAgent({ "GET /props": { default_generation_settings: { n_ctx: 8192 } } });
    const count = made.session.registry.declarations().length;
    expect(made.notices.join("\n")).toMatch(
      new RegExp(
        `the system prompt and ${count} tool declarations take about [\\d,]+ tokens, \\d+% of openai-compatible:local's 8,192-token context window`,
      ),
    );
  });
});

describe("compact declarations for small models", () => {
  it("sends first sentences and no field descriptions, only the chosen tools, and refuses the others", async () => {
    const made = await localAgent(
      { "GET /props": { default_generation_settings: { n_ctx: 8192 } } },
      "local",
      [
        {
          toolCalls: [{ name: "run_command", args: { CommandLine: "ls", Cwd: ".", WaitMsBeforeAsync: 100 } }],
        },
        { text: "ok" },
      ],
      { tools: { compact: true, only: ["view_file", "list_dir", "grep_search"] } },
    );
    expect(made.notices).toEqual([]); // small enough now
    const events: string[] = [];
    await made.prompt("go", {
      onEvent: (event) => event.type === "tool_result" && events.push(event.result.errorCode ?? "ok"),
    });
    expect(events).toEqual(["disabled_tool"]);
    const tools = server?.requests[0]?.body.tools as {
      function: { name: string; description: string; parameters: object };
    }[];
    expect(tools.map((tool) => tool.function.name)).toEqual(["view_file", "list_dir", "grep_search"]);
    for (const tool of tools) {
      expect(tool.function.description).not.toContain("\n");
      expect(JSON.stringify(tool.function.parameters)).not.toContain('"description"');
    }
    expect(JSON.stringify(tools[0]?.function.parameters)).toContain('"AbsolutePath"');
  });
});
