import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/agent/events.js";
import { createRenderer } from "../../../src/cli/tui/renderer.js";
import { wantsColor } from "../../../src/cli/tui/style.js";
import type { DisplayGroup } from "../../../src/tools/contract.js";

const ROOT = "/w";
const GROUPS: Record<string, DisplayGroup> = {
  view_file: "Read",
  grep_search: "Search",
  replace_file_content: "Edit",
  run_command: "Command",
};

function render(events: AgentEvent[], color = false): string {
  let out = "";
  const renderer = createRenderer({
    write: (text) => {
      out += text;
    },
    color,
    workspaceRoot: ROOT,
    groupOf: (name) => GROUPS[name],
  });
  for (const event of events) renderer.event(event);
  return out;
}

const call = (callId: string, name: string, args: unknown): AgentEvent => ({
  agentId: "main",
  type: "tool_call",
  turn: 1,
  call: { callId, name, args },
});
const result = (callId: string, name: string, text: string, error = false, metadata = {}): AgentEvent => ({
  agentId: "main",
  type: "tool_result",
  turn: 1,
  call: { callId, name, args: {} },
  result: { text, error, metadata },
});
const text = (value: string): AgentEvent => ({ agentId: "main", type: "text_delta", turn: 1, text: value });
const done: AgentEvent = {
  agentId: "main",
  type: "done",
  reason: "completed",
  turns: 2,
  text: "",
  usage: { inputTokens: 120, outputTokens: 7 },
};
const DIFF = "--- a/a.ts\n+++ b/a.ts\n@@ -1 +1 @@\n-old\n+new\n";

describe("the interactive renderer", () => {
  it("streams text, collapses reads, shows the edit and its diff, then the usage", () => {
    const out = render([
      text("Let me "),
      text("look."),
      call("1", "view_file", { AbsolutePath: "/w/a.ts" }),
      call("2", "view_file", { AbsolutePath: "/w/b.ts" }),
      call("3", "grep_search", { SearchPath: "/w", Query: "TODO" }),
      result("1", "view_file", "1: old"),
      result("2", "view_file", "no such file", true),
      result("3", "grep_search", "a.ts:1"),
      call("4", "replace_file_content", { TargetFile: "/w/a.ts" }),
      result("4", "replace_file_content", "edited", false, { diff: DIFF }),
      text("Done."),
      done,
    ]);
    expect(out).toBe(
      [
        "Let me look.",
        '  Read a.ts, b.ts · Search "TODO" in .',
        "  view_file failed: no such file",
        "  Edit replace_file_content a.ts",
        "    --- a/a.ts",
        "    +++ b/a.ts",
        "    @@ -1 +1 @@",
        "    -old",
        "    +new",
        "Done.",
        "(2 model turns · 120 tokens in · 7 out)",
        "",
      ].join("\n"),
    );
  });

  it("colours added lines green and removed lines red only when asked to", () => {
    const events = [
      call("4", "replace_file_content", { TargetFile: "/w/a.ts" }),
      result("4", "replace_file_content", "edited", false, { diff: DIFF }),
    ];
    const coloured = render(events, true);
    expect(coloured).toContain("\x1b[32m    +new\x1b[39m");
    expect(coloured).toContain("\x1b[31m    -old\x1b[39m");
    expect(render(events, false)).not.toContain("\x1b[");
  });

  it("says when a turn was interrupted", () => {
    expect(render([{ ...done, reason: "aborted" }])).toContain("(interrupted)");
  });

  it("shows a subagent's tool calls as dim lines tagged with its id", () => {
    const out = render([
      { ...call("9", "run_command", { CommandLine: "ls" }), agentId: "agent-1" } as AgentEvent,
    ]);
    expect(out).toBe("  [agent-1] Command run_command ls\n");
  });
});

describe("wantsColor", () => {
  it("colours a terminal unless NO_COLOR is set", () => {
    expect(wantsColor({ isTTY: true }, {})).toBe(true);
    expect(wantsColor({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(wantsColor({ isTTY: false }, {})).toBe(false);
    expect(wantsColor({}, {})).toBe(false);
  });
});
