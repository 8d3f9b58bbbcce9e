import { existsSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { loadSubagentDefinitions, parseSubagentMarkdown } from "../../src/subagents/types.js";
import { put } from "../skills/support.js";
import { runGantry } from "../support/cli.js";
import { type ModelServer, type RecordedRequest, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { gitOut, initRepo } from "./support/git.js";

// Claude Code's agent-file fields: what the agent may do (permissionMode) is never silently widened, and
// what Gantry does not act on is said.

let ws: TempWorkspace | undefined;
let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  await ws?.cleanup();
  ws = undefined;
  server = undefined;
});

const agentFile = (name: string, front: string, body = "You work.") =>
  `---\nname: ${name}\ndescription: does ${name} things\n${front}\n---\n${body}\n`;

describe("Claude Code agent fields", () => {
  it("reads permissionMode, background, isolation, skills and mcpServers names", () => {
    const parsed = parseSubagentMarkdown(
      agentFile(
        "planner",
        "tools: Read, Grep\npermissionMode: plan\nbackground: false\nisolation: worktree\nskills:\n  - review\nmcpServers:\n  - github",
      ),
      "/p/.claude/agents/planner.md",
    );
    expect(parsed.ok && parsed.definition).toMatchObject({
      approvalMode: "plan",
      background: false,
      isolation: "worktree",
      skills: ["review"],
      tools: { kind: "list", names: ["Read", "Grep", "mcp__github"] },
    });
    expect(parsed.ok && parsed.warnings).toEqual([]);
    const bad = parseSubagentMarkdown(agentFile("x", "permissionMode: sometimes"), "/p/.claude/agents/x.md");
    expect(!bad.ok && bad.message).toContain(
      "permissionMode must be default, acceptEdits, auto, dontAsk, bypassPermissions or plan",
    );
  });

  it("keeps an agent whose file has fields Gantry does not act on, and says which", async () => {
    ws = await createTempWorkspace({
      ".claude/agents/keeper.md": agentFile(
        "keeper",
        "memory: project\nhooks:\n  Stop: []\ncolor: blue\nflavour: mint",
      ),
    });
    const { definitions, problems } = loadSubagentDefinitions(ws.root, ws.home);
    expect(definitions.map((d) => d.name)).toContain("keeper");
    expect(problems.map((p) => [p.warning, p.message])).toEqual([
      [true, "memory (a persistent memory folder) is not supported; the agent runs without one"],
      [
        true,
        'hooks in an agent file run for that agent\'s own calls, only once the folder holding the file is trusted ("gantry trust" shows them)',
      ],
      [true, 'unknown field "flavour"; ignored'],
    ]);
    const listed = await runGantry(["agents", "--workspace", ws.root], { env: { HOME: ws.home } });
    expect(listed.stderr).toContain(
      `gantry: ${ws.root}/.claude/agents/keeper.md: unknown field "flavour"; ignored`,
    );
    expect(listed.stderr).not.toContain("skipped");
  });
});

function runMain(approvalMode: string) {
  if (!ws || !server) throw new Error("start the workspace and the server first");
  const args = ["-p", "go", "--model", "openai:test-model", "--base-url", server.baseUrl("openai")];
  return runGantry([...args, "--workspace", ws.root, "--trust", "--approval-mode", approvalMode], {
    env: { HOME: ws.home, OPENAI_API_KEY: "k" },
    timeoutMs: 60_000,
  });
}
const start = (type: string, prompt = "do it") => ({
  name: "agent",
  args: { description: type, prompt, subagent_type: type, run_in_background: false },
});
const write = (file: string) => ({
  name: "write_to_file",
  args: { TargetFile: file, CodeContent: "x\n", Overwrite: false, Description: "write" },
});
const sees = (text: string) => (request: RecordedRequest) => expect(request.text).toContain(text);

describe("permissionMode end to end (gantry -p)", () => {
  it("plan narrows a yolo session to read-only for the agent and every agent it starts", {
    timeout: 120_000,
  }, async () => {
    ws = await createTempWorkspace({
      ".claude/agents/planner.md": agentFile("planner", "permissionMode: plan"),
    });
    server = await startModelServer([
      { toolCalls: [start("planner")] },
      { toolCalls: [write("by-planner.txt")] },
      { toolCalls: [start("general-purpose")], expect: sees("Denied by approval mode plan") },
      // the planner's own agent is held to plan too
      { toolCalls: [write("by-child.txt")] },
      { text: "could not", expect: sees("Denied by approval mode plan") },
      { text: "planned" },
      { text: "done" },
    ]);
    const run = await runMain("yolo");
    expect(server.failures).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    server.assertDone();
    expect(existsSync(`${ws.root}/by-planner.txt`)).toBe(false);
    expect(existsSync(`${ws.root}/by-child.txt`)).toBe(false);
  });

  it("bypassPermissions does not widen the session's mode; the session's own agents keep it", {
    timeout: 120_000,
  }, async () => {
    ws = await createTempWorkspace({
      ".claude/agents/bold.md": agentFile("bold", "permissionMode: bypassPermissions"),
    });
    server = await startModelServer([
      { toolCalls: [start("bold")] },
      { toolCalls: [write("by-bold.txt")] },
      { text: "blocked", expect: sees("Denied by approval mode default") },
      { text: "done" },
    ]);
    const run = await runMain("default");
    expect(server.failures).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    server.assertDone();
    expect(existsSync(`${ws.root}/by-bold.txt`)).toBe(false);
  });

  it("acceptEdits lets the agent edit but not run commands in a yolo session", {
    timeout: 120_000,
  }, async () => {
    ws = await createTempWorkspace({
      ".claude/agents/editor.md": agentFile("editor", "permissionMode: acceptEdits"),
    });
    const touch = {
      name: "run_command",
      args: { CommandLine: "touch by-command.txt", Cwd: ".", WaitMsBeforeAsync: 10_000 },
    };
    server = await startModelServer([
      { toolCalls: [start("editor")] },
      { toolCalls: [write("by-editor.txt"), touch] },
      { text: "half done", expect: sees("approval mode auto-edit") },
      { text: "done" },
    ]);
    const run = await runMain("yolo");
    expect(server.failures).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    server.assertDone();
    expect(existsSync(`${ws.root}/by-editor.txt`)).toBe(true);
    expect(existsSync(`${ws.root}/by-command.txt`)).toBe(false);
  });

  it("skills: the named skill's SKILL.md is in the agent's prompt from its start", {
    timeout: 120_000,
  }, async () => {
    ws = await createTempWorkspace({
      ".claude/agents/reviewer.md": agentFile("reviewer", "skills: review, absent"),
    });
    await put(
      ws.root,
      ".agents/skills/review/SKILL.md",
      "---\nname: review\ndescription: how we review\n---\nAlways check the tests first.\n",
    );
    server = await startModelServer([
      { toolCalls: [start("reviewer")] },
      {
        text: "reviewed",
        expect: (request) => {
          sees("Always check the tests first.")(request);
          sees("Skills named in your definition but not found: absent")(request);
        },
      },
      { text: "done" },
    ]);
    const run = await runMain("default");
    expect(server.failures).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    server.assertDone();
  });

  it("isolation: worktree makes the agent's calls run in a worktree of its own", {
    timeout: 120_000,
  }, async () => {
    ws = await createTempWorkspace({
      ".claude/agents/isolated.md": agentFile("isolated", "isolation: worktree"),
      "a.txt": "a\n",
    });
    initRepo(ws.root);
    server = await startModelServer([
      { toolCalls: [start("isolated")] },
      { toolCalls: [write("fresh.txt")] },
      { text: "wrote it" },
      { text: "done", expect: sees("fresh.txt") },
    ]);
    const run = await runMain("auto-edit");
    expect(server.failures).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    server.assertDone();
    // the change came back as a patch; the main tree is untouched
    expect(existsSync(`${ws.root}/fresh.txt`)).toBe(false);
    expect(gitOut(ws.root, "status", "--porcelain")).toBe("");
  });

  it("hooks: the agent's own, for its calls only; its Stop is its SubagentStop", {
    timeout: 120_000,
  }, async () => {
    const guard = {
      PreToolUse: [
        {
          matcher: "Bash",
          hooks: [{ type: "command", command: "echo 'no commands for the guarded agent' >&2; exit 2" }],
        },
      ],
      Stop: [
        { hooks: [{ type: "command", command: 'echo stopped >> "$CLAUDE_PROJECT_DIR/../agent-stops"' }] },
      ],
    };
    ws = await createTempWorkspace({
      ".claude/agents/guarded.md": agentFile("guarded", `hooks: ${JSON.stringify(guard)}`),
    });
    const touch = (file: string) => ({
      name: "run_command",
      args: { CommandLine: `touch ${file}`, Cwd: ".", WaitMsBeforeAsync: 10_000 },
    });
    server = await startModelServer([
      { toolCalls: [start("guarded")] },
      { toolCalls: [touch("by-guarded")] },
      { text: "blocked", expect: sees("no commands for the guarded agent") },
      // the main agent is not held by the agent's hooks
      { toolCalls: [touch("by-main")] },
      { text: "done" },
    ]);
    const run = await runMain("yolo");
    expect(server.failures).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    server.assertDone();
    expect(existsSync(`${ws.root}/by-guarded`)).toBe(false);
    expect(existsSync(`${ws.root}/by-main`)).toBe(true);
    expect(readFileSync(`${ws.parent}/agent-stops`, "utf8")).toBe("stopped\n");
  });

  it("an untrusted folder's agent file adds no hooks, and says so", { timeout: 120_000 }, async () => {
    const hooks = {
      PreToolUse: [
        { matcher: "*", hooks: [{ type: "command", command: 'touch "$CLAUDE_PROJECT_DIR/../hook-ran"' }] },
      ],
    };
    ws = await createTempWorkspace({
      ".claude/agents/sneaky.md": agentFile("sneaky", `hooks: ${JSON.stringify(hooks)}`),
      "a.txt": "a\n",
    });
    server = await startModelServer([
      { toolCalls: [start("sneaky")] },
      { toolCalls: [{ name: "view_file", args: { AbsolutePath: "a.txt" } }] },
      { text: "read" },
      { text: "done" },
    ]);
    const args = ["-p", "go", "--model", "openai:test-model", "--base-url", server.baseUrl("openai")];
    const run = await runGantry([...args, "--workspace", ws.root], {
      env: { HOME: ws.home, OPENAI_API_KEY: "k" },
      timeoutMs: 60_000,
    });
    expect(server.failures).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(`${ws.parent}/hook-ran`)).toBe(false);
    expect(run.stderr).toContain('agent type "sneaky"');
    expect(run.stderr).toContain("its hooks do not run (this folder is not trusted)");
  });
});
