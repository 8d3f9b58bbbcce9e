import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { Client, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterEach, describe, expect, it } from "vitest";
import { GANTRY_BIN } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace;
let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  client = undefined;
  await ws?.cleanup();
});

interface ConnectOptions {
  approvalMode?: string;
  /** Answers elicitations (the client then declares the capability). */
  elicit?: (request: ElicitRequest) => ElicitResult;
  modern?: boolean;
}

/** The SDK's own client driving `gantry mcp serve` over stdio, as any MCP client would. */
async function connect(options: ConnectOptions = {}): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      GANTRY_BIN,
      "mcp",
      "serve",
      "--workspace",
      ws.root,
      ...(options.approvalMode ? ["--approval-mode", options.approvalMode] : []),
    ],
    env: { HOME: ws.home, PATH: process.env.PATH ?? "" },
    stderr: "pipe",
  });
  client = new Client(
    { name: "test-client", version: "1.0.0" },
    {
      capabilities: options.elicit ? { elicitation: { form: {} } } : {},
      ...(options.modern ? { versionNegotiation: { mode: "auto" as const } } : {}),
    },
  );
  const answer = options.elicit;
  if (answer) client.setRequestHandler("elicitation/create", async (request) => answer(request));
  await client.connect(transport, { timeout: 20_000 });
  return client;
}

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>) =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("\n");

describe("gantry mcp serve, driven by the SDK's client", () => {
  it("lists the built-in tools (not the agent tools) and runs a call through the guard", async () => {
    ws = await createTempWorkspace({ "notes.txt": "first line\nsecond line\n", ".env": "TOKEN=secret\n" });
    const c = await connect();
    const { tools } = await c.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(["view_file", "grep_search", "run_command", "write_to_file"]),
    );
    expect(names).not.toContain("agent");
    expect(names).not.toContain("ask_question");
    expect(tools.find((t) => t.name === "view_file")?.inputSchema).toMatchObject({
      type: "object",
      required: ["AbsolutePath"],
    });

    const read = await c.callTool({ name: "view_file", arguments: { AbsolutePath: "notes.txt" } });
    expect(read.isError).toBe(false);
    expect(textOf(read)).toContain("second line");

    const outside = await c.callTool({ name: "view_file", arguments: { AbsolutePath: "../home/x" } });
    expect(outside.isError).toBe(true);
    expect(outside.structuredContent).toMatchObject({ errorCode: "outside_workspace" });

    const secret = await c.callTool({ name: "view_file", arguments: { AbsolutePath: ".env" } });
    expect(secret.isError).toBe(true);
    expect(secret.structuredContent).toMatchObject({ errorCode: "secret_path" });
    expect(textOf(secret)).not.toContain("TOKEN=secret");

    const invalid = await c.callTool({ name: "view_file", arguments: { Path: "notes.txt" } });
    expect(textOf(invalid)).toContain("AbsolutePath");
  }, 60_000);

  it("denies an ask with the reason when the client cannot elicit", async () => {
    ws = await createTempWorkspace();
    const c = await connect();
    const result = await c.callTool({
      name: "run_command",
      arguments: { CommandLine: "touch ran.txt", Cwd: ".", WaitMsBeforeAsync: 5000 },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("does not support elicitation");
    expect(textOf(result)).toMatch(/--approval-mode yolo|permissions\.allow/);
  }, 60_000);

  for (const modern of [false, true]) {
    it(`asks through elicitation (${modern ? "2026-07-28" : "2025-11-25"} client): yes runs the call, no denies it`, async () => {
      ws = await createTempWorkspace();
      const asked: string[] = [];
      let decision = "once";
      const c = await connect({
        modern,
        elicit: (request) => {
          asked.push(String(request.params.message));
          return { action: "accept", content: { decision } };
        },
      });
      const run = (file: string) =>
        c.callTool({
          name: "run_command",
          arguments: { CommandLine: `touch ${file}`, Cwd: ".", WaitMsBeforeAsync: 5000 },
        });
      expect(c.getNegotiatedProtocolVersion()).toBe(modern ? "2026-07-28" : "2025-11-25");
      const yes = await run("yes.txt");
      expect(textOf(yes)).not.toContain("Denied");
      expect(yes.isError).toBe(false);
      expect(asked[0]).toContain("run_command");
      expect(asked[0]).toContain("touch yes.txt");
      decision = "deny";
      const no = await run("no.txt");
      expect(no.isError).toBe(true);
      expect(textOf(no)).toContain("Denied");
    }, 60_000);
  }

  it("applies the user's deny rules and hooks to every served call, in yolo too", async () => {
    ws = await createTempWorkspace();
    await mkdir(path.join(ws.home, ".agents"), { recursive: true });
    await writeFile(
      path.join(ws.home, ".agents", "settings.json"),
      JSON.stringify({ permissions: { deny: ["Bash(curl:*)"] } }),
    );
    await writeFile(
      path.join(ws.home, ".agents", "hooks.json"),
      JSON.stringify({
        gate: {
          pre_tool_execution: [
            {
              matcher: "write_to_file",
              hooks: [
                { type: "command", command: `echo '{"decision":"deny","reason":"writes are reviewed"}'` },
              ],
            },
          ],
        },
      }),
    );
    const c = await connect({ approvalMode: "yolo" });
    const curl = await c.callTool({
      name: "run_command",
      arguments: { CommandLine: "curl -s http://127.0.0.1:9", Cwd: ".", WaitMsBeforeAsync: 5000 },
    });
    expect(textOf(curl)).toContain("Denied by rule deny Bash(curl:*)");
    const write = await c.callTool({
      name: "write_to_file",
      arguments: { TargetFile: "a.txt", Overwrite: false, CodeContent: "x", Description: "d" },
    });
    expect(textOf(write)).toContain("writes are reviewed");
    const echo = await c.callTool({
      name: "run_command",
      arguments: { CommandLine: "echo served", Cwd: ".", WaitMsBeforeAsync: 5000 },
    });
    expect(textOf(echo)).toContain("served");
  }, 60_000);
});
