import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { E2E, gantryOn, sees, serverAndWorkspace } from "../support/e2e.js";
import { type RecordedRequest, startModelServer } from "../support/model-server.js";
import { createTempWorkspace } from "../support/workspace.js";

// What an agent file of Claude Code, Gemini CLI or Qwen Code asks for, as a real session runs it.

const t = serverAndWorkspace();

const agentFile = (name: string, front: string) =>
  `---\nname: ${name}\ndescription: does ${name} things\n${front}\n---\nYou work on the task.\n`;
const start = (type: string) => ({
  name: "agent",
  args: { description: type, prompt: "do it", subagent_type: type, run_in_background: false },
});
const write = (file: string) => ({
  name: "write_to_file",
  args: { TargetFile: file, CodeContent: "x\n", Overwrite: false, Description: "write" },
});
const touch = (file: string) => ({
  name: "run_command",
  args: { CommandLine: `touch ${file}`, Cwd: ".", WaitMsBeforeAsync: 10_000 },
});
const toolsOf = (request: RecordedRequest) =>
  ((request.body.tools as { function: { name: string } }[] | undefined) ?? [])
    .map((tool) => tool.function.name)
    .sort();

describe("agent files of other harnesses, run (gantry -p)", () => {
  it("Qwen Code's approvalMode: plan holds its agent to read-only tools in a yolo session", E2E, async () => {
    t.ws = await createTempWorkspace({
      ".qwen/agents/planner.md": agentFile("planner", "approvalMode: plan"),
    });
    t.server = await startModelServer([
      { toolCalls: [start("planner")] },
      { toolCalls: [write("by-planner.txt")] },
      { text: "could not", expect: sees("Denied by approval mode plan") },
      { text: "done" },
    ]);
    const run = await gantryOn(t.server, t.ws, ["-p", "go", "--approval-mode", "yolo"]);
    expect(t.server.failures).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    t.server.assertDone();
    expect(existsSync(`${t.ws.root}/by-planner.txt`)).toBe(false);
  });

  it(
    "an untrusted folder's approvalMode: yolo or permissionMode: bypassPermissions widens nothing",
    E2E,
    async () => {
      t.ws = await createTempWorkspace({
        ".qwen/agents/bold.md": agentFile("bold", "approvalMode: yolo"),
        ".claude/agents/bolder.md": agentFile("bolder", "permissionMode: bypassPermissions"),
      });
      t.server = await startModelServer([
        { toolCalls: [start("bold")] },
        { toolCalls: [write("by-bold.txt"), touch("by-bold-command.txt")] },
        { text: "blocked", expect: sees("Denied by approval mode default") },
        { toolCalls: [start("bolder")] },
        { toolCalls: [write("by-bolder.txt")] },
        { text: "blocked too", expect: sees("Denied by approval mode default") },
        { text: "done" },
      ]);
      const run = await gantryOn(t.server, t.ws, ["-p", "go"], { trust: false });
      expect(t.server.failures).toEqual([]);
      expect(run.code, run.stderr).toBe(0);
      t.server.assertDone();
      for (const file of ["by-bold.txt", "by-bold-command.txt", "by-bolder.txt"])
        expect(existsSync(`${t.ws.root}/${file}`)).toBe(false);
    },
  );

  it("Claude Code's permissionMode: auto runs edits but not commands in a yolo session", E2E, async () => {
    t.ws = await createTempWorkspace({ ".claude/agents/auto.md": agentFile("auto", "permissionMode: auto") });
    t.server = await startModelServer([
      { toolCalls: [start("auto")] },
      { toolCalls: [write("by-auto.txt"), touch("by-command.txt")] },
      { text: "half done", expect: sees("approval mode auto-edit") },
      { text: "done" },
    ]);
    const run = await gantryOn(t.server, t.ws, ["-p", "go", "--approval-mode", "yolo"]);
    expect(t.server.failures).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    t.server.assertDone();
    expect(existsSync(`${t.ws.root}/by-auto.txt`)).toBe(true);
    expect(existsSync(`${t.ws.root}/by-command.txt`)).toBe(false);
  });

  it(
    "to-do and background-task tools of each harness reach Gantry's update_plan and manage_task",
    E2E,
    async () => {
      t.ws = await createTempWorkspace({
        ".claude/agents/claude.md": agentFile("claude", "tools: Read, TodoWrite, TaskOutput, TaskStop"),
        ".qwen/agents/qwen.md": agentFile("qwen", "tools:\n  - ReadFile\n  - TaskCreate\n  - SearchFiles"),
        ".gemini/agents/gemini.md": agentFile(
          "gemini",
          "tools:\n  - read_file\n  - write_todos\n  - read_mcp_resource\n  - tracker_create_task",
        ),
      });
      t.server = await startModelServer([
        { toolCalls: [start("claude")] },
        {
          text: "claude done",
          expect: (request) =>
            expect(toolsOf(request)).toEqual(["list_dir", "manage_task", "update_plan", "view_file"]),
        },
        { toolCalls: [start("qwen")] },
        {
          text: "qwen done",
          expect: (request) => expect(toolsOf(request)).toEqual(["grep_search", "update_plan", "view_file"]),
        },
        { toolCalls: [start("gemini")] },
        {
          // Gemini CLI's own tools Gantry lacks leave the agent running without them, and it is told
          text: "gemini done",
          expect: (request) => {
            expect(toolsOf(request)).toEqual(["update_plan", "view_file"]);
            sees("not available here: read_mcp_resource, tracker_create_task")(request);
          },
        },
        { text: "all done" },
      ]);
      const run = await gantryOn(t.server, t.ws, ["-p", "go"]);
      expect(t.server.failures).toEqual([]);
      expect(run.code, run.stderr).toBe(0);
      t.server.assertDone();
    },
  );

  it("Qwen Code's bare model names a model of the parent's provider", E2E, async () => {
    t.ws = await createTempWorkspace({
      ".qwen/agents/coder.md": agentFile("coder", "model: other-model"),
    });
    t.server = await startModelServer([
      { toolCalls: [start("coder")] },
      { text: "coded", expect: (request) => expect(request.body.model).toBe("other-model") },
      { text: "done", expect: (request) => expect(request.body.model).toBe("test-model") },
    ]);
    const run = await gantryOn(t.server, t.ws, ["-p", "go"]);
    expect(t.server.failures).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    t.server.assertDone();
  });
});
