import { describe, expect, it } from "vitest";
import {
  forkToolGate,
  parseForkTurns,
  selectForkTurns,
  validateForkTools,
} from "../../src/subagents/fork.js";

const known: Record<string, string> = {
  view_file: "view_file",
  read_file: "view_file",
  grep_search: "grep_search",
};
const canonical = (name: string) => known[name];

describe("fork_turns", () => {
  it('accepts "all", omitted and positive integers only', () => {
    expect(parseForkTurns(undefined)).toEqual({ ok: true, turns: "all" });
    expect(parseForkTurns("all")).toEqual({ ok: true, turns: "all" });
    expect(parseForkTurns("3")).toEqual({ ok: true, turns: 3 });
    for (const bad of ["0", "-1", "2.5", " 2", "two", "", "03"]) {
      const parsed = parseForkTurns(bad);
      expect(parsed.ok, bad).toBe(false);
      expect(!parsed.ok && parsed.message).toContain("fork_turns");
    }
  });

  it("keeps the last N real user turns; tool responses and reminders are not turns", () => {
    const messages = [
      { role: "user", text: "u1" },
      { role: "assistant", text: "a1" },
      { role: "user", text: "u2" },
      { role: "assistant", text: "a2 calls a tool" },
      { role: "tool", text: "tool result" },
      { role: "user", text: "<system-reminder>", reminder: true },
      { role: "assistant", text: "a2b" },
      { role: "user", text: "u3" },
      { role: "assistant", text: "a3" },
    ];
    const isTurn = (m: (typeof messages)[number]) => m.role === "user" && !("reminder" in m);
    expect(selectForkTurns(messages, 2, isTurn).map((m) => m.text)).toEqual([
      "u2",
      "a2 calls a tool",
      "tool result",
      "<system-reminder>",
      "a2b",
      "u3",
      "a3",
    ]);
    expect(selectForkTurns(messages, 1, isTurn).map((m) => m.text)).toEqual(["u3", "a3"]);
    expect(selectForkTurns(messages, 9, isTurn)).toHaveLength(messages.length);
    expect(selectForkTurns(messages, "all", isTurn)).toHaveLength(messages.length);
  });
});

describe("fork_tools", () => {
  it("canonicalises exact names and accepts trailing MCP patterns", () => {
    expect(
      validateForkTools(["read_file", "grep_search", "mcp__github", "mcp__db__read_*", "mcp__*"], canonical),
    ).toEqual({
      ok: true,
      patterns: ["view_file", "grep_search", "mcp__github", "mcp__db__read_*", "mcp__*"],
    });
  });

  it.each([
    [[" view_file"], "surrounding spaces"],
    [["view_file "], "surrounding spaces"],
    [[""], "empty entry"],
    [["view_*"], "wildcards are only allowed"],
    [["*"], "wildcards are only allowed"],
    [["mcp__gi*hub"], "not an MCP pattern"],
    [["rm_rf"], 'unknown tool "rm_rf"'],
  ])("refuses %j", (entries, message) => {
    const result = validateForkTools(entries, canonical);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toContain(message);
  });

  it("gates calls: exact names, whole MCP servers, prefixes; an empty list allows nothing", () => {
    const gate = forkToolGate(["view_file", "mcp__github", "mcp__db__read_*"]);
    expect(gate("view_file")).toBe(true);
    expect(gate("grep_search")).toBe(false);
    expect(gate("mcp__github__create_issue")).toBe(true);
    expect(gate("mcp__githubx__a")).toBe(false);
    expect(gate("mcp__db__read_rows")).toBe(true);
    expect(gate("mcp__db__write_rows")).toBe(false);
    const none = forkToolGate([]);
    expect(["view_file", "run_command", "mcp__x__y"].some(none)).toBe(false);
  });
});
