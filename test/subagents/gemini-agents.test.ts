import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgentInbox } from "../../src/agent/inbox.js";
import { resolveToolAccess } from "../../src/subagents/access.js";
import { loadSubagentDefinitions, parseSubagentMarkdown } from "../../src/subagents/types.js";
import { createBuiltinTools } from "../../src/tools/builtin.js";
import { defineTool, okResult } from "../../src/tools/contract.js";
import { createToolRegistry } from "../../src/tools/registry.js";
import { isProtectedAgentConfig } from "../../src/workspace/protected.js";
import { createReadLedger } from "../../src/workspace/read-ledger.js";
import { openWorkspace } from "../../src/workspace/workspace.js";
import { runGantry } from "../support/cli.js";
import { type ModelServer, type RecordedRequest, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

// Gemini CLI's subagents: `.gemini/agents/*.md` (and the user's), with its own fields and names.

let ws: TempWorkspace | undefined;
let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  await ws?.cleanup();
  ws = undefined;
  server = undefined;
});

const geminiFile = (front: string, name = "auditor") =>
  `---\nname: ${name}\ndescription: audits code\n${front}\n---\nYou audit code.\n`;
const parse = (front: string, file = "/p/.gemini/agents/auditor.md") =>
  parseSubagentMarkdown(geminiFile(front), file);

describe("Gemini CLI agent files", () => {
  it("reads max_turns, timeout_mins and temperature, and a bare Gemini model as google:", () => {
    const parsed = parse(
      "kind: local\ntools:\n  - read_file\nmodel: gemini-3-flash-preview\ntemperature: 0.2\nmax_turns: 10\ntimeout_mins: 5",
    );
    expect(parsed.ok && parsed.definition).toMatchObject({
      name: "auditor",
      model: "google:gemini-3-flash-preview",
      temperature: 0.2,
      maxTurns: 10,
      timeoutMs: 300_000,
      tools: { kind: "list", names: ["read_file"] },
    });
    // a bare Claude model in Claude Code's folder, a tier anywhere, provider:model as written
    const claude = parseSubagentMarkdown(geminiFile("model: claude-sonnet-4-5"), "/p/.claude/agents/a.md");
    expect(claude.ok && claude.definition.model).toBe("anthropic:claude-sonnet-4-5");
    expect(
      parse("model: haiku").ok &&
        (parse("model: haiku") as { definition: { model: string } }).definition.model,
    ).toBe("haiku");
  });

  it("refuses what it cannot honour, saying what to do instead", () => {
    const message = (front: string) => {
      const parsed = parse(front);
      return parsed.ok ? "" : parsed.message;
    };
    expect(message("kind: remote\nagent_card_url: https://a.example/card")).toContain(
      "kind: remote (an A2A agent) is not supported",
    );
    expect(message("mcpServers:\n  s:\n    command: node")).toContain(
      "add the server to mcpServers in settings",
    );
    expect(message("max_turns: 0")).toContain("max_turns must be a whole number above 0");
    expect(message("timeout_mins: -1")).toContain("timeout_mins must be a number of minutes above 0");
    expect(message("temperature: 3")).toContain("temperature must be a number from 0 to 2");
  });

  it("is found in the workspace's .gemini/agents and the user's Gemini folders, and protected like the others", async () => {
    ws = await createTempWorkspace({
      ".gemini/agents/auditor.md": geminiFile(""),
      // the home folders, beside the workspace
      "../home/.gemini/agents/old-home.md": geminiFile("", "old-home"),
      "../home/.config/gemini-cli/agents/new-home.md": geminiFile("", "new-home"),
    });
    const { definitions, problems } = loadSubagentDefinitions(ws.root, ws.home);
    expect(problems).toEqual([]);
    expect(definitions.map((d) => d.name).sort()).toEqual([
      "auditor",
      "general-purpose",
      "new-home",
      "old-home",
    ]);
    expect(isProtectedAgentConfig(".gemini/agents/auditor.md")).toBe(true);
  });

  it("mcp_* and mcp_<server>_* select MCP tools, in Gantry's mcp__ names", () => {
    const mcpTool = (name: string) =>
      defineTool({
        spec: { name, description: "x", parameters: z.object({}), safety: "execute", group: "MCP" },
        execute: async () => okResult(""),
      });
    const workspace = openWorkspace(process.cwd(), {});
    const builtins = createBuiltinTools({
      workspace,
      settings: {},
      reads: createReadLedger(),
      inbox: createAgentInbox(),
      lifecycle: { onDispose: () => undefined },
    });
    const registry = createToolRegistry([...builtins, mcpTool("mcp__gh__issues"), mcpTool("mcp__db__query")]);
    const allows = (names: string[]) => {
      const access = resolveToolAccess({ kind: "list", names }, registry, { allowSubagentTools: false });
      expect(access.unknown).toEqual([]);
      return ["mcp__gh__issues", "mcp__db__query", "view_file"].filter((name) => access.allows(name));
    };
    expect(allows(["mcp_*"])).toEqual(["mcp__gh__issues", "mcp__db__query"]);
    expect(allows(["read_file", "mcp_gh_*"])).toEqual(["mcp__gh__issues", "view_file"]);
    expect(allows(["mcp_db_query"])).toEqual(["mcp__db__query"]);
  });
});

function runMain() {
  if (!ws || !server) throw new Error("start the workspace and the server first");
  const args = ["-p", "go", "--model", "openai:test-model", "--base-url", server.baseUrl("openai")];
  return runGantry([...args, "--workspace", ws.root, "--trust"], {
    env: { HOME: ws.home, OPENAI_API_KEY: "k" },
    timeoutMs: 60_000,
  });
}
const startAuditor = {
  name: "agent",
  args: { description: "audit", prompt: "audit it", subagent_type: "auditor", run_in_background: false },
};
const toolsOf = (request: RecordedRequest) =>
  ((request.body.tools as { function: { name: string } }[] | undefined) ?? [])
    .map((t) => t.function.name)
    .sort();

describe("Gemini CLI agent files end to end (gantry -p)", () => {
  it("runs with its tools and temperature, and stops at its max_turns", { timeout: 120_000 }, async () => {
    ws = await createTempWorkspace({
      ".gemini/agents/auditor.md": geminiFile(
        "tools:\n  - read_file\n  - grep_search\ntemperature: 0.2\nmax_turns: 2",
      ),
      "a.txt": "alpha\n",
    });
    const read = { name: "view_file", args: { AbsolutePath: "a.txt" } };
    server = await startModelServer([
      { toolCalls: [startAuditor] },
      {
        toolCalls: [read],
        expect: (request) => {
          expect(toolsOf(request)).toEqual(["grep_search", "view_file"]);
          expect(request.body.temperature).toBe(0.2);
        },
      },
      // its second and last turn
      { toolCalls: [read] },
      { text: "noted", expect: (request) => expect(request.text).toMatch(/turn limit|max.?turns|2 turns/i) },
    ]);
    const run = await runMain();
    expect(server.failures).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    server.assertDone();
  });

  it("a run longer than its timeout_mins is ended and reported", { timeout: 120_000 }, async () => {
    ws = await createTempWorkspace({ ".gemini/agents/auditor.md": geminiFile("timeout_mins: 0.01") });
    server = await startModelServer([
      { toolCalls: [startAuditor] },
      { hang: true },
      { text: "noted", expect: (request) => expect(request.text).toContain("ran out of its 0.01 minutes") },
    ]);
    const run = await runMain();
    expect(server.failures).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    server.assertDone();
  });
});
