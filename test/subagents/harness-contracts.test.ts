import { afterEach, describe, expect, it } from "vitest";
import { loadSubagentDefinitions, parseSubagentMarkdown } from "../../src/subagents/types.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

// Agent-file fields as Claude Code (code.claude.com/docs/en/sub-agents), Gemini CLI
// (packages/core/src/agents/agentLoader.ts) and Qwen Code (packages/core/src/subagents/subagent-manager.ts,
// agent-frontmatter-schema.ts) define them: each is read as written, or named as not acted on.

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

const file = (front: string, name = "worker") =>
  `---\nname: ${name}\ndescription: does ${name} things\n${front}\n---\nYou work on the task.\n`;
const parse = (front: string, where = "/p/.claude/agents/worker.md") =>
  parseSubagentMarkdown(file(front), where);
const definitionOf = (front: string, where?: string) => {
  const parsed = parse(front, where);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed;
};
const refusal = (front: string, where?: string) => {
  const parsed = parse(front, where);
  return parsed.ok ? "(loaded)" : parsed.message;
};

describe("Claude Code fields", () => {
  it("permissionMode auto (Claude Code's classifier mode) loads, as acceptEdits, and says so", () => {
    const parsed = definitionOf("permissionMode: auto");
    expect(parsed.definition.approvalMode).toBe("auto-edit");
    expect(parsed.warnings).toEqual([
      "permissionMode auto (Claude Code's classifier) has no counterpart here; the agent runs as with acceptEdits: edits run, commands and network tools ask",
    ]);
  });

  it("names effort and initialPrompt as not acted on", () => {
    expect(definitionOf("effort: high\ninitialPrompt: start here").warnings).toEqual([
      "effort (the model's reasoning effort) is not supported; the agent runs at the model's default",
      "initialPrompt applies when the agent is the main session's agent (claude --agent); a subagent starts from the prompt its parent gives",
    ]);
  });
});

describe("Qwen Code fields", () => {
  const where = "/p/.qwen/agents/worker.md";

  it("approvalMode narrows the agent as Qwen Code's does (bubble: as default)", () => {
    expect(definitionOf("approvalMode: plan", where).definition.approvalMode).toBe("plan");
    expect(definitionOf("approvalMode: auto-edit", where).definition.approvalMode).toBe("auto-edit");
    const bubble = definitionOf("approvalMode: bubble", where);
    expect(bubble.definition.approvalMode).toBe("default");
    expect(bubble.warnings).toEqual([]);
    expect(refusal("approvalMode: sometimes", where)).toContain(
      "approvalMode must be default, plan, auto-edit, yolo or bubble",
    );
  });

  it("an external executor is refused, not run in-process in its stead", () => {
    expect(refusal("executor:\n  kind: acp\n  command: other-agent", where)).toContain(
      "executor (an external agent process) is not supported",
    );
  });
});

describe("Gemini CLI fields and files", () => {
  const where = "/p/.gemini/agents/worker.md";

  it("display_name is known; inline mcp_servers are refused like Claude Code's inline mcpServers", () => {
    expect(definitionOf("display_name: Worker Bee", where).warnings).toEqual([]);
    expect(refusal("mcp_servers:\n  gh:\n    command: gh-mcp", where)).toContain(
      "add the server to mcpServers in settings",
    );
  });

  it("a list of remote agents in the front matter is refused as what it is", () => {
    const parsed = parseSubagentMarkdown(
      "---\n- kind: remote\n  name: far\n  agent_card_url: https://a.example/card\n---\n",
      where,
    );
    expect(!parsed.ok && parsed.message).toContain("remote (A2A) agents are not supported");
  });

  it("reads what Gemini CLI reads in its folders: no _ files, no subfolders", async () => {
    ws = await createTempWorkspace({
      ".gemini/agents/_draft.md": file("", "draft"),
      ".gemini/agents/team/nested.md": file("", "nested"),
      ".gemini/agents/kept.md": file("", "kept"),
      ".claude/agents/_claude.md": file("", "claude-underscore"),
    });
    const { definitions, problems } = loadSubagentDefinitions(ws.root, ws.home);
    const names = definitions.map((d) => d.name);
    expect(names).toContain("kept");
    expect(names).not.toContain("draft");
    expect(names).not.toContain("nested");
    // Claude Code has no such rule
    expect(names).toContain("claude-underscore");
    expect(problems).toEqual([]);
  });
});
