import { mkdir, symlink } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checksForCall } from "../../src/policy/checks.js";
import { type Check, commandMatcher, compileRule, type RuleContext } from "../../src/policy/rules.js";
import type { AnyTool } from "../../src/tools/contract.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { standInTools } from "./support.js";

const writeTool = standInTools([]).find((tool) => tool.spec.name === "write_to_file") as AnyTool;

describe("command specifiers", () => {
  it("`prefix:*` matches the prefix itself and anything after a word boundary", () => {
    const rule = commandMatcher("npm run test:*");
    expect(rule("npm run test")).toBe(true);
    expect(rule("npm run test:unit")).toBe(true);
    expect(rule("npm run test -- --watch")).toBe(true);
    expect(rule("npm run testing")).toBe(false);
    expect(rule("npm run lint")).toBe(false);
  });

  it("`*` anywhere matches any text; a trailing ` *` may match nothing", () => {
    expect(commandMatcher("git * main")("git push origin main")).toBe(true);
    expect(commandMatcher("git * main")("git push origin dev")).toBe(false);
    expect(commandMatcher("ls *")("ls")).toBe(true);
    expect(commandMatcher("ls *")("ls -la")).toBe(true);
    expect(commandMatcher("ls *")("lsof")).toBe(false);
    expect(commandMatcher("ls*")("lsof")).toBe(true);
  });

  it("wildcard pieces match in order, never overlapping, and `*` spans newlines", () => {
    expect(commandMatcher("a*a")("a")).toBe(false);
    expect(commandMatcher("a*a")("aa")).toBe(true);
    expect(commandMatcher("ab*b")("ab")).toBe(false);
    expect(commandMatcher("ab*b")("abb")).toBe(true);
    expect(commandMatcher("git * --force * main")("git push --force origin main")).toBe(true);
    expect(commandMatcher("git * --force * main")("git push origin main --force x")).toBe(false);
    expect(commandMatcher("echo ** done")("echo x done")).toBe(true);
    expect(commandMatcher("echo * done")("echo a\nb done")).toBe(true);
    expect(commandMatcher("*")("")).toBe(true);
  });

  it("anything else is exact, with runs of spaces in the rule folded", () => {
    expect(commandMatcher("git  status")("git status")).toBe(true);
    expect(commandMatcher("git status")("git status -s")).toBe(false);
  });

  it("regex characters in a rule are literal, and matching stays linear", () => {
    expect(commandMatcher("echo (a|b) *")("echo (a|b) x")).toBe(true);
    expect(commandMatcher("echo (a|b) *")("echo a x")).toBe(false);
    const long = `${"a".repeat(50_000)}!`;
    const started = performance.now();
    expect(commandMatcher("*a*a*a*a*a*a*a*b")(long)).toBe(false);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

let ws: TempWorkspace;
let context: RuleContext;
beforeAll(async () => {
  ws = await createTempWorkspace({ "src/a.ts": "", "secrets/k": "", "docs/x.md": "" });
  await mkdir(path.join(ws.home, "Documents"));
  await symlink(path.join(ws.root, "secrets"), path.join(ws.root, "src/peek"));
  context = {
    workspaceRoot: ws.root,
    home: ws.home,
    resolveTool: (name) => (name === "read_file" ? "view_file" : undefined),
  };
});
afterAll(() => ws.cleanup());

function pathCheck(tool: string, resolved: string, directory = false): Check {
  return {
    tool,
    safety: "read_only",
    label: resolved,
    value: { type: "path", resolved, named: resolved, directory },
  };
}

function rule(text: string, projectDir = ws.root) {
  const compiled = compileRule({ kind: "allow", text, origin: "test", projectDir }, context);
  if (!compiled.ok) throw new Error(compiled.error);
  return compiled.rule;
}

describe("path specifiers (gitignore style, as Claude Code reads them)", () => {
  it("`./x/**` and `x/**` are relative to the workspace; a bare name matches at any depth", () => {
    expect(rule("Read(./secrets/**)").matches(pathCheck("view_file", `${ws.root}/secrets/k`), "strict")).toBe(
      true,
    );
    expect(rule("Read(secrets/**)").matches(pathCheck("view_file", `${ws.root}/secrets/k`), "strict")).toBe(
      true,
    );
    expect(rule("Read(*.md)").matches(pathCheck("grep_search", `${ws.root}/docs/x.md`), "strict")).toBe(true);
    expect(rule("Read(./secrets/**)").matches(pathCheck("view_file", `${ws.root}/src/a.ts`), "strict")).toBe(
      false,
    );
  });

  it("`/x` is relative to the project holding the settings file, `//x` absolute, `~/x` the home", () => {
    const project = path.join(ws.root, "docs");
    expect(
      rule("Edit(/x.md)", project).matches(pathCheck("write_to_file", `${ws.root}/docs/x.md`), "strict"),
    ).toBe(true);
    expect(
      rule("Edit(/x.md)", ws.root).matches(pathCheck("write_to_file", `${ws.root}/docs/x.md`), "strict"),
    ).toBe(false);
    expect(
      rule(`Read(/${ws.root}/src/**)`).matches(pathCheck("view_file", `${ws.root}/src/a.ts`), "strict"),
    ).toBe(true);
    expect(
      rule("Read(~/Documents/*.pdf)").matches(pathCheck("view_file", `${ws.home}/Documents/a.pdf`), "strict"),
    ).toBe(true);
    expect(
      rule("Read(~/Documents/*.pdf)").matches(pathCheck("view_file", `${ws.root}/Documents/a.pdf`), "strict"),
    ).toBe(false);
  });

  it("an allow rule judges the resolved path only: Edit(src/**) does not cover src/peek/k, src/peek being a link to secrets/", async () => {
    const [check] = await checksForCall(
      { tool: writeTool, args: { TargetFile: "src/peek/k" } },
      { workspaceRoot: ws.root, allowAgentConfigEdits: false },
    );
    expect(check?.value).toEqual({
      type: "path",
      named: path.join(ws.root, "src/peek/k"),
      resolved: path.join(ws.root, "secrets/k"),
      directory: false,
    });
    const through = check as Check;
    // strict (allow rules, grants): where the write really lands
    expect(rule("Edit(src/**)").matches(through, "strict")).toBe(false);
    expect(rule("Edit(secrets/**)").matches(through, "strict")).toBe(true);
    // loose (deny, ask): a rule on the real folder and one on the name as written both catch it
    expect(rule("Edit(secrets/**)").matches(through, "loose")).toBe(true);
    expect(rule("Edit(src/**)").matches(through, "loose")).toBe(true);
    expect(rule("Edit(docs/**)").matches(through, "loose")).toBe(false);
  });

  it("a folder counts when the pattern covers what is inside it", () => {
    expect(
      rule("Read(./secrets/**)").matches(pathCheck("list_dir", `${ws.root}/secrets`, true), "strict"),
    ).toBe(true);
    expect(rule("Read(./secrets/**)").matches(pathCheck("list_dir", `${ws.root}/src`, true), "strict")).toBe(
      false,
    );
  });

  it("groups map to the native tools; native names and aliases resolve", () => {
    const edit = rule("Edit");
    for (const tool of [
      "replace_file_content",
      "multi_replace_file_content",
      "write_to_file",
      "delete_file",
    ]) {
      expect(edit.tools.has(tool)).toBe(true);
    }
    expect([...rule("Read").tools]).toEqual(["view_file", "list_dir", "find_by_name", "grep_search"]);
    expect([...rule("WebSearch").tools]).toEqual(["search_web"]);
    expect([...rule("WebFetch").tools]).toEqual(["read_url_content"]);
    expect([...rule("Bash").tools]).toEqual(["run_command"]);
    expect([...rule("read_file(src/**)").tools]).toEqual(["view_file"]);
    expect(rule("Bash(*)").specifier).toBeUndefined();
  });

  it("a text that is not a rule is an error naming it", () => {
    const broken = compileRule(
      { kind: "deny", text: "Bash(rm -rf", origin: "x", projectDir: ws.root },
      context,
    );
    expect(broken).toMatchObject({
      ok: false,
      error: '"Bash(rm -rf" is not a rule: write Tool or Tool(specifier)',
    });
  });
});
