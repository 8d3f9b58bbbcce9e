import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Agent, type AgentOptions, createAgent, defineAgentTool, z } from "../../src/index.js";
import { sessionsDir } from "../../src/session/jsonl.js";
import { everythingStdio } from "../mcp/support.js";
import { type ModelServer, type ScriptedTurn, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace | undefined;
let server: ModelServer | undefined;
const agents: Agent[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.close();
  await server?.close();
  server = undefined;
  await ws?.cleanup();
  ws = undefined;
});

/** The workspace of the test (made by agentWith unless the test made one first). */
function workspace(): TempWorkspace {
  if (!ws) throw new Error("no workspace");
  return ws;
}

async function agentWith(turns: ScriptedTurn[], options: AgentOptions = {}) {
  ws ??= await createTempWorkspace();
  server = await startModelServer(turns);
  const agent = await createAgent({
    workspace: ws.root,
    home: ws.home,
    model: "openai:gpt-4.1",
    baseUrl: server.baseUrl("openai"),
    apiKey: "test-key",
    ...options,
  });
  agents.push(agent);
  return agent;
}

const write = (file: string) => ({
  name: "write_to_file",
  args: { TargetFile: file, Overwrite: false, CodeContent: "x\n", Description: "d" },
});

describe("createAgent", () => {
  it("is safe by default: the default mode, asks denied without an asker, the workspace untrusted", async () => {
    ws = await createTempWorkspace({
      ".agents/settings.json": JSON.stringify({
        permissions: { allow: ["Edit"] },
        approvalMode: "auto-edit",
      }),
    });
    const agent = await agentWith([{ toolCalls: [write("new.txt")] }, { text: "could not" }]);
    const result = await agent.prompt("write it");
    expect(result).toMatchObject({ reason: "completed", text: "could not", sessionId: agent.sessionId });
    expect(existsSync(path.join(workspace().root, "new.txt"))).toBe(false);
    expect(server?.requests[1]?.text).toContain("Denied by approval mode default");
    expect(agent.session.permissions.mode).toBe("default");
    expect(agent.notices.join("\n")).toContain("ignored");
  });

  it("asks through onPermission, and runs the call when it says yes", async () => {
    const asked: string[] = [];
    const agent = await agentWith([{ toolCalls: [write("yes.txt")] }, { text: "done" }], {
      onPermission: (request) => {
        asked.push(request.tool);
        return { choice: "once" };
      },
    });
    await agent.prompt("write it");
    expect(asked).toEqual(["write_to_file"]);
    expect(readFileSync(path.join(workspace().root, "yes.txt"), "utf8")).toBe("x\n");
  });

  it("runs custom tools from a zod or a JSON schema through the pipeline: validation, rules and hooks", async () => {
    const calls: unknown[] = [];
    const weather = defineAgentTool({
      name: "lookup_weather",
      description: "Weather of a city.",
      parameters: z.object({ city: z.string().describe("the city") }),
      safety: "read_only",
      execute: (args) => {
        calls.push(args);
        return `sunny in ${args.city}`;
      },
    });
    const stock = defineAgentTool({
      name: "stock_price",
      description: "A stock's price.",
      parameters: { type: "object", properties: { symbol: { type: "string" } }, required: ["symbol"] },
      safety: "read_only",
      execute: () => "42",
    });
    const agent = await agentWith(
      [
        {
          toolCalls: [
            { name: "lookup_weather", args: { city: 7 } },
            { name: "lookup_weather", args: { city: "Oslo" } },
            { name: "stock_price", args: { symbol: "ACME" } },
          ],
        },
        { text: "ok" },
      ],
      {
        tools: [weather, stock],
        settings: { permissions: { deny: ["stock_price"] } },
        hooks: {
          postToolUse: [{ matcher: "lookup_weather", handler: () => ({ additionalContext: "hook saw it" }) }],
        },
      },
    );
    const events: string[] = [];
    await agent.prompt("weather?", {
      onEvent: (event) => {
        if (event.type === "tool_result") events.push(`${event.call.name}:${event.result.errorCode ?? "ok"}`);
      },
    });
    expect(calls).toEqual([{ city: "Oslo" }]); // the invalid call never reached execute
    expect(events).toEqual(["lookup_weather:invalid_arguments", "lookup_weather:ok", "stock_price:denied"]);
    const sent = server?.requests[1]?.text ?? "";
    expect(sent).toContain("sunny in Oslo");
    expect(sent).toContain("hook saw it");
    const declared =
      (server?.requests[0]?.body.tools as { function: { name: string; parameters: unknown } }[]) ?? [];
    expect(declared.find((tool) => tool.function.name === "stock_price")?.function.parameters).toMatchObject({
      properties: { symbol: { type: "string" } },
      required: ["symbol"],
    });
  });

  it("takes hook functions with the same decisions as command hooks", async () => {
    const seen: string[] = [];
    const agent = await agentWith(
      [{ toolCalls: [write("a.txt"), { name: "list_dir", args: { DirectoryPath: "." } }] }, { text: "ok" }],
      {
        approvalMode: "yolo",
        hooks: {
          preToolUse: [
            { name: "audit", handler: (event) => void seen.push(event.tool_call.name) },
            {
              name: "no-writes",
              matcher: "write_file",
              handler: () => ({ decision: "deny", reason: "read-only today" }),
            },
          ],
        },
      },
    );
    await agent.prompt("go");
    expect(seen).toEqual(["write_to_file", "list_dir"]);
    expect(existsSync(path.join(workspace().root, "a.txt"))).toBe(false);
    expect(server?.requests[1]?.text).toContain("Denied by hook no-writes: read-only today");
  });

  it("a hook function that throws fails open, unless failClosed", async () => {
    const agent = await agentWith([{ toolCalls: [write("b.txt"), write("c.txt")] }, { text: "ok" }], {
      approvalMode: "yolo",
      hooks: {
        preToolUse: [
          {
            matcher: "write_to_file",
            handler: (event) => {
              if (event.tool_call.args.TargetFile === "c.txt") throw new Error("boom");
            },
          },
          {
            matcher: "write_to_file",
            failClosed: true,
            name: "strict",
            handler: (event) => {
              if (event.tool_call.args.TargetFile === "c.txt") throw new Error("boom");
            },
          },
        ],
      },
    });
    await agent.prompt("go");
    expect(existsSync(path.join(workspace().root, "b.txt"))).toBe(true);
    expect(existsSync(path.join(workspace().root, "c.txt"))).toBe(false);
    expect(server?.requests[1]?.text).toContain(
      "Denied by hook strict: the hook failed: the hook function threw: boom",
    );
  });

  it("saves sessions by default and resumes the last one or one by id", async () => {
    const first = await agentWith([{ text: "first answer" }]);
    await first.prompt("remember the word teapot");
    const id = first.sessionId;
    await first.close();
    expect(readdirSync(sessionsDir(workspace().home, workspace().root))).toContain(`${id}.jsonl`);

    server?.script(
      { text: "teapot", expect: (request) => expect(request.text).toContain("remember the word teapot") },
      { text: "still teapot", expect: (request) => expect(request.text).toContain("first answer") },
    );
    const base = {
      workspace: workspace().root,
      home: workspace().home,
      model: "openai:gpt-4.1",
      apiKey: "k",
    };
    const last = await createAgent({ ...base, baseUrl: server?.baseUrl("openai"), resume: "last" });
    agents.push(last);
    expect(last.sessionId).toBe(id);
    await last.prompt("which word?");
    await last.close();
    const byId = await createAgent({ ...base, baseUrl: server?.baseUrl("openai"), resume: id.slice(0, 18) });
    agents.push(byId);
    expect((await byId.prompt("again?")).text).toBe("still teapot");
    server?.assertDone();
  });

  it("keeps a session in memory only with session: false", async () => {
    const agent = await agentWith([{ text: "hi" }], { session: false });
    await agent.prompt("hello");
    expect(agent.sessionFile).toBe("");
    expect(existsSync(sessionsDir(workspace().home, workspace().root))).toBe(false);
  });

  it("streams the run's typed events, ending with done", async () => {
    const agent = await agentWith([
      { toolCalls: [{ name: "list_dir", args: { DirectoryPath: "." } }] },
      { text: "listed" },
    ]);
    const types: string[] = [];
    for await (const event of agent.stream("list")) types.push(event.type);
    expect(types[0]).toBe("message");
    expect(types).toContain("tool_call");
    expect(types).toContain("tool_start");
    expect(types).toContain("tool_result");
    expect(types.filter((type) => type === "text_delta").length).toBeGreaterThan(0);
    expect(types.at(-1)).toBe("done");
  });

  it("aborts the run when the stream is left early", async () => {
    const agent = await agentWith([{ text: "a long answer that stalls", stall: true }]);
    for await (const event of agent.stream("go")) if (event.type === "text_delta") break;
    const result = agent.conversation.messages.at(-1);
    expect(result).toMatchObject({ role: "assistant" });
    // the agent is free again: a new prompt may start
    server?.script({ text: "again" });
    expect((await agent.prompt("more")).text).toBe("again");
  });

  it("takes the context window from the model's name", async () => {
    const agent = await agentWith([], {
      model: "anthropic:claude-sonnet-4-5",
      baseUrl: "http://127.0.0.1:9/v1",
    });
    expect(agent.model.contextWindow).toBe(200_000);
    expect(agent.contextWindowSource).toBe("the model's name");
  });

  it("changes the approval mode from the next call on", async () => {
    const agent = await agentWith([{ toolCalls: [write("m.txt")] }, { text: "ok" }]);
    agent.setApprovalMode("auto-edit");
    await agent.prompt("write");
    expect(existsSync(path.join(workspace().root, "m.txt"))).toBe(true);
  });

  it("names what is missing when no model is configured", async () => {
    ws = await createTempWorkspace();
    await expect(createAgent({ workspace: workspace().root, home: workspace().home })).rejects.toThrow(
      /createAgent: No model is configured/,
    );
  });

  it("refuses options that could not work, by name and with the fix, before anything starts", async () => {
    ws = await createTempWorkspace();
    const base = {
      workspace: workspace().root,
      home: workspace().home,
      model: "openai:gpt-4.1",
      apiKey: "k",
    };
    await expect(createAgent({ ...base, approvalMode: "ask" as never })).rejects.toThrow(
      'createAgent: approvalMode must be default, auto-edit, yolo or plan, not "ask"',
    );
    const tool = (name: string) =>
      defineAgentTool({ name, description: "d", parameters: z.object({}), execute: () => "x" });
    expect(() => tool("look up")).toThrow(
      'defineAgentTool: the name "look up" is not a tool name providers accept: 1 to 64 letters, digits, "_" or "-"',
    );
    await expect(createAgent({ ...base, tools: [tool("view_file")] })).rejects.toThrow(
      'createAgent: your tool "view_file" has the name of a built-in tool; give it another name',
    );
  });

  it("runs subagents as the CLI does, through the same pipeline", async () => {
    const agent = await agentWith([
      {
        toolCalls: [
          {
            name: "agent",
            args: {
              description: "Count the files here",
              prompt: "TASK-SDK: list the folder",
              run_in_background: false,
            },
          },
        ],
      },
      {
        expect: (request) => expect(request.text).toContain("TASK-SDK"),
        toolCalls: [{ name: "list_dir", args: { DirectoryPath: "." } }],
      },
      { text: "SUB-REPORT: empty folder" },
      {
        text: "The helper says the folder is empty.",
        expect: (request) => expect(request.text).toContain("SUB-REPORT"),
      },
    ]);
    const seen: string[] = [];
    const result = await agent.prompt("how many files?", {
      onEvent: (event) => void (event.type === "tool_call" && seen.push(event.call.name)),
    });
    expect(server?.failures).toEqual([]);
    expect(result.text).toBe("The helper says the folder is empty.");
    expect(seen).toEqual(["agent"]);
    server?.assertDone();
  });

  it("starts the MCP servers it is given and runs their tools through the pipeline", {
    timeout: 60_000,
  }, async () => {
    const agent = await agentWith(
      [
        { toolCalls: [{ name: "mcp__everything__echo", args: { message: "from the sdk" } }] },
        { text: "echoed", expect: (request) => expect(request.text).toContain("from the sdk") },
      ],
      { mcpServers: [{ name: "everything", ...everythingStdio() }], approvalMode: "yolo" },
    );
    expect(agent.session.registry.lookup("mcp__everything__echo")).toBeDefined();
    expect((await agent.prompt("echo")).text).toBe("echoed");
    server?.assertDone();
  });
});
