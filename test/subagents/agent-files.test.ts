import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgentInbox } from "../../src/agent/inbox.js";
import { resolveToolAccess } from "../../src/subagents/access.js";
import { modelForTier } from "../../src/subagents/model-tiers.js";
import { loadSubagentDefinitions, parseSubagentMarkdown } from "../../src/subagents/types.js";
import { createBuiltinTools } from "../../src/tools/builtin.js";
import { defineTool, okResult } from "../../src/tools/contract.js";
import { createToolRegistry } from "../../src/tools/registry.js";
import { createReadLedger } from "../../src/workspace/read-ledger.js";
import { openWorkspace } from "../../src/workspace/workspace.js";
import { runGantry } from "../support/cli.js";
import { type ModelServer, type RecordedRequest, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace | undefined;
let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  await ws?.cleanup();
  ws = undefined;
  server = undefined;
});

/** Gantry's real built-in tools (and a stand-in `agent`), as a subagent's tool list is resolved against them. */
async function builtinRegistry() {
  ws = await createTempWorkspace();
  const agent = defineTool({
    spec: {
      name: "agent",
      description: "stand-in",
      parameters: z.object({ prompt: z.string().describe("task") }),
      safety: "read_only",
      group: "Subagents",
      aliases: ["Task"],
    },
    execute: async () => okResult(""),
  });
  const builtins = createBuiltinTools({
    workspace: openWorkspace(ws.root, {}),
    settings: {},
    reads: createReadLedger(),
    inbox: createAgentInbox(),
    lifecycle: { onDispose: () => undefined },
  });
  return createToolRegistry([...builtins, agent]);
}

const definition = (front: string) => {
  const parsed = parseSubagentMarkdown(`---\nname: a\ndescription: d\n${front}\n---\nbody`, "/x/a.md");
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.definition;
};

async function allowedBy(front: string) {
  const registry = await builtinRegistry();
  const agent = definition(front);
  const access = resolveToolAccess(agent.tools, registry, {
    allowSubagentTools: true,
    ...(agent.disallowedTools ? { disallowed: agent.disallowedTools } : {}),
  });
  const names = registry
    .all()
    .map((tool) => tool.spec.name)
    .filter((name) => access.allows(name));
  return { names, access };
}

describe("agent files name tools in any harness's words", () => {
  it("Qwen Code's tool ids (and its shell) resolve to Gantry's tools", async () => {
    const { names, access } = await allowedBy(
      "tools:\n  - read_file\n  - glob\n  - grep_search\n  - run_shell_command",
    );
    expect(names.sort()).toEqual(["find_by_name", "grep_search", "manage_task", "run_command", "view_file"]);
    expect(access.unknown).toEqual([]);
  });

  it("Gemini CLI's names: replace is both edit tools, list_directory, write_file, web_fetch", async () => {
    const { names } = await allowedBy("tools: [replace, list_directory, write_file, web_fetch]");
    expect(names.sort()).toEqual([
      "list_dir",
      "multi_replace_file_content",
      "read_url_content",
      "replace_file_content",
      "write_to_file",
    ]);
  });

  it("Claude Code's names, Agent(worker), WebSearch (search_web) and TodoWrite (update_plan) included; NotebookEdit is noted, not fatal", async () => {
    const { names, access } = await allowedBy(
      "tools: Read, Grep, Glob, Agent(worker), TodoWrite, NotebookEdit, WebSearch",
    );
    expect(names.sort()).toEqual([
      "agent",
      "find_by_name",
      "grep_search",
      "list_dir",
      "search_web",
      "update_plan",
      "view_file",
    ]);
    expect(access.unknown).toEqual([]);
    expect(access.unavailable).toEqual(["NotebookEdit"]);
  });

  it("disallowedTools takes tools away, in any harness's words", async () => {
    const { names } = await allowedBy("disallowedTools: Bash, Write\n");
    expect(names).not.toContain("run_command");
    expect(names).not.toContain("manage_task");
    expect(names).not.toContain("write_to_file");
    expect(names).toContain("view_file");
    const qwen = await allowedBy(
      "tools: [read_file, run_shell_command, edit]\ndisallowedTools: [run_shell_command]",
    );
    expect(qwen.names.sort()).toEqual(["multi_replace_file_content", "replace_file_content", "view_file"]);
  });

  it("an unknown tool name is reported by name, in tools and in disallowedTools", async () => {
    const { access } = await allowedBy("tools: Read, frobnicate\ndisallowedTools: [bsah]");
    expect(access.unknown).toEqual(["frobnicate", "bsah"]);
  });
});

describe("model tiers", () => {
  it("opus, sonnet, haiku and inherit are accepted in agent files", () => {
    for (const model of ["opus", "sonnet", "haiku", "fast"])
      expect(definition(`model: ${model}`).model).toBe(model);
    expect(definition("model: inherit").model).toBeUndefined();
  });

  it("the configured provider's model of the tier, else the parent's with a notice; settings choose first", () => {
    expect(modelForTier("opus", "anthropic:claude-sonnet-4-5")).toEqual({
      model: "anthropic:claude-opus-4-1",
    });
    expect(modelForTier("sonnet", "anthropic:claude-sonnet-4-5-20250929")).toEqual({
      model: "anthropic:claude-sonnet-4-5-20250929",
    });
    const other = modelForTier("haiku", "openai:gpt-4.1");
    expect(other.model).toBe("openai:gpt-4.1");
    expect(other.notice).toContain("no haiku tier");
    expect(modelForTier("haiku", "openai:gpt-4.1", { haiku: "openai:gpt-4.1-mini" })).toEqual({
      model: "openai:gpt-4.1-mini",
    });
  });
});

describe("agent folders", () => {
  const file = (name: string) => `---\nname: ${name}\ndescription: ${name} agent\n---\nYou are ${name}.\n`;

  it("finds agent files in subfolders of every agents folder, not through symlinked folders", async () => {
    ws = await createTempWorkspace({
      ".claude/agents/team/validator.md": file("validator"),
      ".qwen/agents/deep/er/finder.md": file("finder"),
      ".agents/agents/top.md": file("top"),
    });
    const outside = path.join(ws.parent, "elsewhere");
    await mkdir(outside);
    await writeFile(path.join(outside, "sneaky.md"), file("sneaky"));
    await symlink(outside, path.join(ws.root, ".claude/agents/linked"));
    const { definitions, problems } = loadSubagentDefinitions(ws.root, ws.home);
    expect(definitions.map((d) => d.name).sort()).toEqual(["finder", "general-purpose", "top", "validator"]);
    expect(problems).toEqual([]);
  });
});

/** `gantry -p` in the test's workspace against its model server. */
function runMain() {
  if (!ws || !server) throw new Error("start the workspace and the server first");
  const args = ["-p", "go", "--model", "openai:test-model", "--base-url", server.baseUrl("openai")];
  return runGantry([...args, "--workspace", ws.root], {
    env: { HOME: ws.home, OPENAI_API_KEY: "k" },
    timeoutMs: 60_000,
  });
}

describe("agent files end to end (gantry -p)", () => {
  const toolsOf = (request: RecordedRequest) =>
    ((request.body.tools as { function: { name: string } }[] | undefined) ?? [])
      .map((t) => t.function.name)
      .sort();

  it("a Qwen agent's subagent is declared exactly its tools; model: opus on OpenAI uses the parent's model, said once", {
    timeout: 120_000,
  }, async () => {
    ws = await createTempWorkspace({
      ".qwen/agents/finder.md":
        "---\nname: finder\ndescription: finds files\ntools:\n  - read_file\n  - glob\n  - run_shell_command\nmodel: opus\n---\nFind files.\n",
    });
    server = await startModelServer([
      {
        toolCalls: [
          {
            name: "agent",
            args: {
              description: "find",
              prompt: "find it",
              subagent_type: "finder",
              run_in_background: false,
            },
          },
        ],
      },
      {
        text: "found",
        expect: (request) => {
          expect(toolsOf(request)).toEqual(["find_by_name", "manage_task", "run_command", "view_file"]);
          expect(request.body.model).toBe("test-model");
        },
      },
      {
        toolCalls: [
          {
            name: "agent",
            args: {
              description: "again",
              prompt: "again",
              subagent_type: "finder",
              run_in_background: false,
            },
          },
        ],
      },
      { text: "found again" },
      { text: "both found" },
    ]);
    const run = await runMain();
    expect(run.code).toBe(0);
    server.assertDone();
    expect(run.stderr.match(/no opus tier/g)).toHaveLength(1);
  });

  it("an agent file with an unknown tool does not start, and the model is told which name is wrong", {
    timeout: 120_000,
  }, async () => {
    ws = await createTempWorkspace({
      ".claude/agents/broken.md": "---\nname: broken\ndescription: b\ntools: Read, Bassh\n---\nx\n",
    });
    server = await startModelServer([
      {
        toolCalls: [
          {
            name: "agent",
            args: { description: "x", prompt: "x", subagent_type: "broken", run_in_background: false },
          },
        ],
      },
      {
        text: "ok",
        expect: (request) => expect(request.text).toMatch(/names unknown tool .{0,4}Bassh/),
      },
    ]);
    const run = await runMain();
    expect(server.failures).toEqual([]);
    expect(run.code).toBe(0);
    server.assertDone();
    const agents = await runGantry(["agents", "--workspace", ws.root], { env: { HOME: ws.home } });
    expect(agents.stderr).toContain('names unknown tool "Bassh"');
  });
});
