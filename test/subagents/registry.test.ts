import { describe, expect, it } from "vitest";
import { z } from "zod";
import { resolveToolAccess } from "../../src/subagents/access.js";
import { type AgentRecord, createRunningAgents, summarizeAgent } from "../../src/subagents/registry.js";
import { defineTool, okResult, type SafetyLevel } from "../../src/tools/contract.js";
import { createToolRegistry } from "../../src/tools/registry.js";

function record(id: string, parentId: string, background: boolean): AgentRecord {
  return {
    id,
    type: "general-purpose",
    description: `agent ${id}`,
    parentId,
    depth: parentId === "main" ? 1 : 2,
    background,
    state: "running",
    startedAt: 0,
    controller: new AbortController(),
    settled: Promise.resolve(),
  };
}

describe("running agents", () => {
  it("killing a parent kills its foreground children, not the other agents", () => {
    const agents = createRunningAgents();
    const parent = record(agents.nextId(), "main", true);
    const child = record(agents.nextId(), parent.id, false);
    const grandchild = record(agents.nextId(), child.id, false);
    const other = record(agents.nextId(), "main", true);
    for (const r of [parent, child, grandchild, other]) agents.add(r);
    expect(agents.kill(parent.id, "stop").sort()).toEqual(["agent-1", "agent-2", "agent-3"]);
    expect([parent, child, grandchild].map((r) => [r.state, r.controller.signal.aborted])).toEqual([
      ["killed", true],
      ["killed", true],
      ["killed", true],
    ]);
    expect(grandchild.error).toBe("its parent agent-2 was killed");
    expect(other.state).toBe("running");
    expect(agents.killAll("bye")).toEqual(["agent-4"]);
    expect(agents.killAll("again")).toEqual([]);
  });

  it("summaries carry the id, state, a result preview and the resume_blocked_reason", () => {
    const r = {
      ...record("agent-1", "main", true),
      state: "completed" as const,
      result: "x".repeat(300),
      resumeBlockedReason: "gone",
    };
    const summary = summarizeAgent(r);
    expect(summary).toMatchObject({ task_id: "agent-1", state: "completed", resume_blocked_reason: "gone" });
    expect(summary.result_preview).toHaveLength(201);
  });
});

describe("subagent tool access", () => {
  const tool = (name: string, safety: SafetyLevel) =>
    defineTool({
      spec: { name, description: name, parameters: z.object({}), safety, group: "Read" },
      execute: async () => okResult(""),
    });
  const registry = createToolRegistry([
    tool("view_file", "read_only"),
    tool("list_dir", "read_only"),
    tool("write_to_file", "write"),
    tool("run_command", "execute"),
    tool("read_url_content", "network"),
    tool("ask_question", "interactive"),
    tool("agent", "read_only"),
    tool("mcp__github__read_issue", "network"),
  ]);
  const allowed = (access: { allows(n: string): boolean }) =>
    registry
      .all()
      .map((t) => t.spec.name)
      .filter((n) => access.allows(n));

  it("all = everything but interactive tools; agent tools only below the depth limit", () => {
    expect(allowed(resolveToolAccess({ kind: "all" }, registry, { allowSubagentTools: true }))).not.toContain(
      "ask_question",
    );
    expect(allowed(resolveToolAccess({ kind: "all" }, registry, { allowSubagentTools: false }))).toEqual([
      "view_file",
      "list_dir",
      "write_to_file",
      "run_command",
      "read_url_content",
      "mcp__github__read_issue",
    ]);
  });

  it("maps Claude Code names in agent files and reports unknown ones", () => {
    const access = resolveToolAccess(
      { kind: "list", names: ["Read", "Bash", "Nope", "mcp__github__*"] },
      registry,
      {
        allowSubagentTools: true,
      },
    );
    expect(allowed(access)).toEqual(["view_file", "list_dir", "run_command", "mcp__github__read_issue"]);
    expect(access.unknown).toEqual(["Nope"]);
  });

  it("define_subagent capabilities start read-only", () => {
    const readOnly = resolveToolAccess(
      { kind: "capabilities", write: false, mcp: false, subagents: false },
      registry,
      {
        allowSubagentTools: true,
      },
    );
    expect(allowed(readOnly)).toEqual(["view_file", "list_dir", "read_url_content"]);
    const full = resolveToolAccess(
      { kind: "capabilities", write: true, mcp: true, subagents: true },
      registry,
      {
        allowSubagentTools: true,
      },
    );
    expect(allowed(full)).toEqual([
      "view_file",
      "list_dir",
      "write_to_file",
      "run_command",
      "read_url_content",
      "agent",
      "mcp__github__read_issue",
    ]);
  });
});
