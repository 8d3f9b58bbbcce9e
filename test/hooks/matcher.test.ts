import { describe, expect, it } from "vitest";
import { compileMatcher } from "../../src/hooks/matcher.js";

const viewFile = { gantryNames: ["view_file", "read_file", "read"] };
const runCommand = { gantryNames: ["run_command", "code_execution"] };

describe("native matchers (RE2, whole name, canonical or alias)", () => {
  it('matches every tool with "", "*" and ".*"', () => {
    for (const pattern of ["", "*", ".*", undefined])
      expect(compileMatcher(pattern, "native").test(viewFile)).toBe(true);
  });

  it("matches exact names, aliases and lists, never a part of a name", () => {
    expect(compileMatcher("read_file", "native").test(viewFile)).toBe(true);
    expect(compileMatcher("view_file", "native").test(viewFile)).toBe(true);
    expect(compileMatcher("read_file|write_file", "native").test(viewFile)).toBe(true);
    expect(compileMatcher("run_command|write_to_file", "native").test(viewFile)).toBe(false);
    expect(compileMatcher("file", "native").test(viewFile)).toBe(false);
    expect(compileMatcher("code", "native").test(runCommand)).toBe(false);
  });

  it('matches ".*_file" by regex', () => {
    expect(compileMatcher(".*_file", "native").test(viewFile)).toBe(true);
    expect(compileMatcher(".*_file", "native").test(runCommand)).toBe(false);
  });

  it('reports the shell glob "*_file" as invalid and matches nothing with it', () => {
    const matcher = compileMatcher("*_file", "native");
    expect(matcher.problem).toMatch(/invalid RE2 pattern "\*_file".*in RE2 write "\.\*_file"/);
    expect(matcher.test(viewFile)).toBe(false);
  });

  it("answers a pathological pattern in linear time", () => {
    const longName = `${"a".repeat(100_000)}!`;
    const started = performance.now();
    expect(compileMatcher("(a+)+$", "native").test({ gantryNames: [longName] })).toBe(false);
    expect(compileMatcher("(a|aa)*c", "native").test({ gantryNames: [longName] })).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe("dialect matchers", () => {
  const bash = { ...runCommand, dialectName: "Bash" };
  const edit = { gantryNames: ["replace_file_content"], dialectName: "Edit" };

  it("Claude: letters, digits, _ , | space and - are exact names or a list", () => {
    expect(compileMatcher("Bash", "claude").test(bash)).toBe(true);
    expect(compileMatcher("Edit|Write", "claude").test(edit)).toBe(true);
    expect(compileMatcher("Edit, Write", "claude").test(edit)).toBe(true);
    expect(compileMatcher("Ba", "claude").test(bash)).toBe(false);
    expect(compileMatcher("run_command", "claude").test(bash)).toBe(true);
  });

  it("Claude: anything else is an unanchored regex on Claude's name", () => {
    expect(compileMatcher("Ed.*", "claude").test(edit)).toBe(true);
    expect(compileMatcher("^B", "claude").test(bash)).toBe(true);
    expect(compileMatcher("mcp__.*", "claude").test(bash)).toBe(false);
  });

  it("Gemini: an unanchored regex; an invalid one compares the text exactly", () => {
    const shell = { ...runCommand, dialectName: "run_shell_command" };
    expect(compileMatcher("shell", "gemini").test(shell)).toBe(true);
    expect(compileMatcher("read_.*", "gemini").test(shell)).toBe(false);
    const invalid = compileMatcher("run_shell_command(", "gemini");
    expect(invalid.problem).toBeDefined();
    expect(invalid.test(shell)).toBe(false);
  });

  describe("Qwen: exact first, then a | list of exact names, then an unanchored regex (its hook-matcher.ts)", () => {
    const shell = { ...runCommand, dialectName: "run_shell_command", dialectAliases: ["Shell"] };
    const read = { ...viewFile, dialectName: "read_file", dialectAliases: ["ReadFile"] };

    it("matches a part of Qwen's name, as its unanchored regex does", () => {
      expect(compileMatcher("shell", "qwen").test(shell)).toBe(true);
      expect(compileMatcher("read_", "qwen").test(read)).toBe(true);
      expect(compileMatcher("read_", "qwen").test(shell)).toBe(false);
      expect(compileMatcher("^run_", "qwen").test(shell)).toBe(true);
    });

    it("matches aliases and Gantry's names exactly, never through the regex", () => {
      expect(compileMatcher("Shell", "qwen").test(shell)).toBe(true);
      expect(compileMatcher("run_command", "qwen").test(shell)).toBe(true);
      expect(compileMatcher("Shel", "qwen").test(shell)).toBe(false);
      expect(compileMatcher("execution", "qwen").test(shell)).toBe(false);
    });

    it("reads a | list entry by entry, trimmed, and never as a match-all for a stray |", () => {
      expect(compileMatcher("edit | Shell", "qwen").test(shell)).toBe(true);
      expect(compileMatcher("edit|write_", "qwen").test(shell)).toBe(false);
      expect(compileMatcher("edit|shell", "qwen").test(shell)).toBe(true);
      expect(compileMatcher("edit|", "qwen").test(shell)).toBe(false);
      expect(compileMatcher("|", "qwen").test(shell)).toBe(false);
      expect(compileMatcher("edit|*", "qwen").test(shell)).toBe(true);
    });

    it("has no comma lists (contrast: Claude's)", () => {
      expect(compileMatcher("edit, run_shell_command", "qwen").test(shell)).toBe(false);
      expect(compileMatcher("Edit, Bash", "claude").test({ ...runCommand, dialectName: "Bash" })).toBe(true);
    });

    it("valid matchers report no problem; a pattern RE2 cannot compile is reported and matches nothing", () => {
      for (const pattern of ["shell", "read_", "edit|write_file", "^(read|write)_file$", "mcp__.*"])
        expect(compileMatcher(pattern, "qwen").problem).toBeUndefined();
      const lookahead = compileMatcher("(?!read)_file", "qwen");
      expect(lookahead.problem).toMatch(/invalid RE2 pattern/);
      expect(lookahead.test(read)).toBe(false);
    });

    it("lifecycle facts follow the same rule", () => {
      expect(compileMatcher("start", "qwen").testValue("startup")).toBe(true);
      expect(compileMatcher("resume|clear", "qwen").testValue("clear")).toBe(true);
      expect(compileMatcher("resume|clear", "qwen").testValue("startup")).toBe(false);
    });
  });
});
