import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runGantry, runGantryTool } from "../support/cli.js";
import { startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { EVERYTHING } from "./support.js";

let ws: TempWorkspace;
afterEach(async () => ws?.cleanup());

const env = () => ({ HOME: ws.home, GANTRY_TRUST_WORKSPACE: "" });
const gantry = (args: string[]) =>
  runGantry(["--workspace", ws.root, ...args], { env: env(), timeoutMs: 60_000 });

describe("gantry mcp add | get | list | remove", () => {
  it("adds a stdio server to the user's settings, lists it connected with its tools, and removes it", async () => {
    ws = await createTempWorkspace();
    const added = await gantry([
      "mcp",
      "add",
      "--scope",
      "user",
      "-e",
      "GREETING=hi",
      "everything",
      "--",
      process.execPath,
      EVERYTHING,
      "stdio",
    ]);
    expect(added.stderr).toBe("");
    expect(added.stdout).toContain('Added MCP server "everything"');
    const settings = JSON.parse(readFileSync(path.join(ws.home, ".agents", "settings.json"), "utf8"));
    expect(settings.mcpServers.everything).toEqual({
      type: "stdio",
      command: process.execPath,
      args: [EVERYTHING, "stdio"],
      env: { GREETING: "hi" },
    });

    const list = await gantry(["mcp", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/everything {2}✓ connected \(protocol 2025-11-25\)/);
    expect(list.stdout).toContain("mcp__everything__echo");

    const get = await gantry(["mcp", "get", "everything"]);
    expect(get.stdout).toContain("file: ~/.agents/settings.json");
    expect(get.stdout).toContain("env: GREETING (values not shown)");
    expect(get.stdout).not.toContain("hi\n");
    expect(get.stdout).toContain("mcp__everything__get-sum:");

    const removed = await gantry(["mcp", "remove", "everything"]);
    expect(removed.stdout).toContain('Removed MCP server "everything"');
    expect(
      JSON.parse(readFileSync(path.join(ws.home, ".agents", "settings.json"), "utf8")).mcpServers,
    ).toEqual({});
  }, 90_000);

  it("adds an HTTP server to .mcp.json (project scope) and says it starts once the folder is trusted", async () => {
    ws = await createTempWorkspace();
    const added = await gantry([
      "mcp",
      "add",
      "--transport",
      "http",
      "-H",
      "Authorization: Bearer ${API_TOKEN}",
      "remote",
      "https://mcp.example.com/mcp",
    ]);
    expect(added.stdout).toContain("starts once you trust this folder");
    expect(JSON.parse(readFileSync(path.join(ws.root, ".mcp.json"), "utf8"))).toEqual({
      mcpServers: {
        remote: {
          type: "http",
          url: "https://mcp.example.com/mcp",
          headers: { Authorization: "Bearer ${API_TOKEN}" },
        },
      },
    });
    const list = await gantry(["mcp", "list"]);
    expect(list.stdout).toContain(
      "remote  - not started: https://mcp.example.com/mcp (headers Authorization: Bearer ${API_TOKEN})  (.mcp.json: this folder is not trusted",
    );
    const again = await gantry(["mcp", "add", "--transport", "http", "remote", "https://other.example/mcp"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already has a server "remote"');
  }, 60_000);

  it("refuses bad input with the fix, and changes nothing", async () => {
    ws = await createTempWorkspace();
    const badUrl = await gantry(["mcp", "add", "--transport", "http", "x", "not a url"]);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain('"not a url" is not a URL');
    const badName = await gantry(["mcp", "add", "a__b", "cmd"]);
    expect(badName.stderr).toContain('may not contain "__"');
    const local = await gantry(["mcp", "add", "--scope", "local", "x", "cmd"]);
    expect(local.stderr).toContain("--scope local is not supported");
    await writeFile(path.join(ws.root, ".mcp.json"), "{ broken");
    const broken = await gantry(["mcp", "add", "y", "cmd"]);
    expect(broken.stderr).toContain("is not valid JSON");
    expect(readFileSync(path.join(ws.root, ".mcp.json"), "utf8")).toBe("{ broken");
  }, 60_000);

  it("lists a server that fails with its stderr and log", async () => {
    ws = await createTempWorkspace();
    await mkdir(path.join(ws.home, ".agents"), { recursive: true });
    await writeFile(
      path.join(ws.home, ".agents", "settings.json"),
      JSON.stringify({
        mcpServers: {
          broken: {
            command: process.execPath,
            args: ["-e", "console.error('no credentials'); process.exit(1)"],
          },
        },
      }),
    );
    const list = await gantry(["mcp", "list"]);
    expect(list.stdout).toContain("broken  ✗ failed");
    expect(list.stdout).toContain("no credentials");
    expect(list.stdout).toMatch(/full log: .*broken\.log/);
  }, 60_000);
});

describe("gantry -p with MCP servers", () => {
  it("starts the main servers before the first turn: the model sees their tools and its call runs", async () => {
    ws = await createTempWorkspace();
    await mkdir(path.join(ws.home, ".agents"), { recursive: true });
    await writeFile(
      path.join(ws.home, ".agents", "settings.json"),
      JSON.stringify({
        mcpServers: {
          everything: { command: process.execPath, args: [EVERYTHING, "stdio"] },
          broken: {
            command: process.execPath,
            args: ["-e", "console.error('cannot start'); process.exit(1)"],
          },
        },
        permissions: { allow: ["mcp__everything"] },
      }),
    );
    const model = await startModelServer([
      {
        expect: (request) => {
          const names = (request.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
          expect(names).toContain("mcp__everything__echo");
          expect(names).toContain("mcp_resources");
        },
        toolCalls: [{ name: "mcp__everything__echo", args: { message: "via the agent loop" } }],
      },
      {
        expect: (request) => expect(request.text).toContain("Echo: via the agent loop"),
        text: "echoed",
      },
    ]);
    try {
      const run = await runGantry(
        [
          "-p",
          "echo something",
          "--model",
          "openai:m",
          "--base-url",
          model.baseUrl("openai"),
          "--workspace",
          ws.root,
        ],
        { env: { ...env(), OPENAI_API_KEY: "k" }, timeoutMs: 60_000 },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe("echoed");
      expect(run.stderr).toContain('MCP server "broken" did not start');
      model.assertDone();
    } finally {
      await model.close();
    }
  }, 90_000);
});

describe("gantry tool with an MCP tool", () => {
  it("starts the server and runs the call through the pipeline, asking first (denied headless)", async () => {
    ws = await createTempWorkspace();
    await mkdir(path.join(ws.home, ".agents"), { recursive: true });
    await writeFile(
      path.join(ws.home, ".agents", "settings.json"),
      JSON.stringify({
        mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
      }),
    );
    const denied = await runGantryTool(
      "mcp__everything__echo",
      { message: "hi" },
      { workspace: ws.root, env: env() },
    );
    expect(denied.result.errorCode).toBe("denied");
    expect(denied.result.text).toContain('add "mcp__everything__echo" to permissions.allow');
    const ran = await runGantryTool(
      "mcp__everything__echo",
      { message: "from the command line" },
      { workspace: ws.root, env: env(), extra: ["--approval-mode", "yolo"] },
    );
    expect(ran.result.error).toBe(false);
    expect(ran.result.text).toContain("from the command line");
  }, 60_000);
});
