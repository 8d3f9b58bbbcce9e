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
});
