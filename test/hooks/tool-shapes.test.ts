import { readFile, rm } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { builtinHookHarness } from "./support.js";

let ws: TempWorkspace;
afterEach(async () => ws?.cleanup());

type Args = Record<string, unknown>;
const chunk = (from: string, to: string, line: number) => ({
  TargetContent: from,
  ReplacementContent: to,
  StartLine: line,
  EndLine: line,
  AllowMultiple: false,
});
/** One call of every mapped tool, as the model makes it. */
const CALLS: Record<string, Args> = {
  run_command: { CommandLine: "npm test", Cwd: "src", WaitMsBeforeAsync: 5000 },
  view_file: { AbsolutePath: "src/a.ts", StartLine: 10, EndLine: 19 },
  write_to_file: { TargetFile: "b.txt", Overwrite: false, CodeContent: "hello", Description: "new file" },
  replace_file_content: {
    TargetFile: "src/a.ts",
    Instruction: "rename",
    Description: "rename x",
    ...chunk("let x", "let y", 1),
    AllowMultiple: true,
  },
  multi_replace_file_content: {
    TargetFile: "src/a.ts",
    Instruction: "rename both",
    Description: "rename",
    ReplacementChunks: [chunk("let x", "let y", 1), chunk("x + 1", "y + 1", 2)],
  },
  list_dir: { DirectoryPath: "src" },
  find_by_name: { SearchDirectory: "src", Pattern: "*.ts" },
  grep_search: {
    SearchPath: "src",
    Query: "TODO",
    Includes: ["*.ts"],
    CaseInsensitive: true,
    MatchPerLine: false,
  },
  read_url_content: { Url: "https://example.com/docs" },
  agent: { description: "review", prompt: "Review src/a.ts", subagent_type: "reviewer" },
};

/** tool_input for each call, as the harness's own tools take it (`<root>` is the workspace). */
const SHAPES: Record<string, Record<string, [string, Args]>> = {
  claude: {
    run_command: ["Bash", { command: "npm test", run_in_background: false, cwd: "<root>/src" }],
    view_file: ["Read", { file_path: "<root>/src/a.ts", offset: 10, limit: 10 }],
    write_to_file: ["Write", { file_path: "<root>/b.txt", content: "hello" }],
    replace_file_content: [
      "Edit",
      { file_path: "<root>/src/a.ts", old_string: "let x", new_string: "let y", replace_all: true },
    ],
    multi_replace_file_content: [
      "MultiEdit",
      {
        file_path: "<root>/src/a.ts",
        edits: [
          { old_string: "let x", new_string: "let y", replace_all: false },
          { old_string: "x + 1", new_string: "y + 1", replace_all: false },
        ],
      },
    ],
    list_dir: ["LS", { path: "<root>/src" }],
    find_by_name: ["Glob", { pattern: "*.ts", path: "<root>/src" }],
    grep_search: [
      "Grep",
      { pattern: "TODO", path: "<root>/src", glob: "*.ts", "-i": true, output_mode: "files_with_matches" },
    ],
    read_url_content: ["WebFetch", { url: "https://example.com/docs" }],
    agent: ["Task", { description: "review", prompt: "Review src/a.ts", subagent_type: "reviewer" }],
  },
  gemini: {
    run_command: ["run_shell_command", { command: "npm test", dir_path: "<root>/src", is_background: false }],
    view_file: ["read_file", { file_path: "<root>/src/a.ts", start_line: 10, end_line: 19 }],
    write_to_file: ["write_file", { file_path: "<root>/b.txt", content: "hello" }],
    replace_file_content: [
      "replace",
      {
        file_path: "<root>/src/a.ts",
        instruction: "rename",
        old_string: "let x",
        new_string: "let y",
        allow_multiple: true,
      },
    ],
    multi_replace_file_content: [
      "replace",
      {
        file_path: "<root>/src/a.ts",
        instruction: "rename both",
        old_string: "let x\nx + 1",
        new_string: "let y\ny + 1",
        allow_multiple: false,
      },
    ],
    list_dir: ["list_directory", { dir_path: "<root>/src" }],
    find_by_name: ["glob", { pattern: "*.ts", dir_path: "<root>/src" }],
    grep_search: [
      "grep_search",
      {
        pattern: "TODO",
        dir_path: "<root>/src",
        include_pattern: "*.ts",
        names_only: true,
        case_sensitive: false,
      },
    ],
    read_url_content: ["web_fetch", { prompt: "https://example.com/docs" }],
  },
  qwen: {
    run_command: [
      "run_shell_command",
      { command: "npm test", is_background: false, directory: "<root>/src" },
    ],
    view_file: ["read_file", { file_path: "<root>/src/a.ts", offset: 9, limit: 10 }],
    write_to_file: ["write_file", { file_path: "<root>/b.txt", content: "hello" }],
    replace_file_content: [
      "edit",
      { file_path: "<root>/src/a.ts", old_string: "let x", new_string: "let y", replace_all: true },
    ],
    multi_replace_file_content: [
      "edit",
      {
        file_path: "<root>/src/a.ts",
        old_string: "let x\nx + 1",
        new_string: "let y\ny + 1",
        replace_all: false,
      },
    ],
    list_dir: ["list_directory", { path: "<root>/src" }],
    find_by_name: ["glob", { pattern: "*.ts", path: "<root>/src" }],
    grep_search: ["grep_search", { pattern: "TODO", path: "<root>/src", glob: "*.ts" }],
    read_url_content: ["web_fetch", { url: "https://example.com/docs" }],
    agent: ["agent", { description: "review", prompt: "Review src/a.ts", subagent_type: "reviewer" }],
  },
};

const FILES: Record<string, string> = {
  claude: ".claude/settings.json",
  gemini: ".gemini/settings.json",
  qwen: ".qwen/settings.json",
};
const PRE_EVENT: Record<string, string> = { claude: "PreToolUse", gemini: "BeforeTool", qwen: "PreToolUse" };
const withRoot = (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll("<root>", ws.root));

/** A hook on every tool that records its stdin and blocks (exit 2), so nothing runs. */
function recordAndBlock(dialect: string): string {
  const command = `cat > "$GANTRY_PROJECT_DIR/stdin.json"; echo blocked >&2; exit 2`;
  return JSON.stringify({
    hooks: { [PRE_EVENT[dialect] as string]: [{ matcher: "", hooks: [{ type: "command", command }] }] },
  });
}

describe.each(Object.keys(SHAPES))("%s hooks see each tool as that harness shapes it", (dialect) => {
  it("tool_name and tool_input for every mapped tool, paths absolute", async () => {
    ws = await createTempWorkspace({ [FILES[dialect] as string]: recordAndBlock(dialect) });
    const { pipeline } = builtinHookHarness(ws);
    for (const [tool, [name, input]] of Object.entries(SHAPES[dialect] ?? {})) {
      const result = await pipeline.run({ name: tool, args: CALLS[tool] });
      expect(result.errorCode, tool).toBe("denied");
      const stdin = JSON.parse(await readFile(`${ws.root}/stdin.json`, "utf8"));
      expect([tool, stdin.tool_name], tool).toEqual([tool, name]);
      expect(stdin.tool_input, tool).toEqual(withRoot(input));
      await rm(`${ws.root}/stdin.json`);
    }
  });
});

describe("native events carry seed 002's container shapes beside Gantry's names", () => {
  it("path (absolute), content, code and language", async () => {
    const command = `cat >> "$GANTRY_PROJECT_DIR/stdin.jsonl"; echo >> "$GANTRY_PROJECT_DIR/stdin.jsonl"; echo '{"decision":"deny"}'`;
    ws = await createTempWorkspace({
      ".agents/hooks.json": JSON.stringify({
        g: { pre_tool_execution: [{ matcher: "", hooks: [{ type: "command", command }] }] },
      }),
    });
    const { pipeline } = builtinHookHarness(ws);
    for (const tool of ["view_file", "write_to_file", "list_dir", "run_command"])
      await pipeline.run({ name: tool, args: CALLS[tool] });
    await pipeline.run({ name: "delete_file", args: { TargetFile: "old.log" } });
    const seen = (await readFile(`${ws.root}/stdin.jsonl`, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).tool_call);
    expect(seen).toEqual([
      { name: "view_file", args: { ...CALLS.view_file, path: `${ws.root}/src/a.ts` } },
      { name: "write_to_file", args: { ...CALLS.write_to_file, path: `${ws.root}/b.txt`, content: "hello" } },
      { name: "list_dir", args: { ...CALLS.list_dir, path: `${ws.root}/src` } },
      { name: "run_command", args: { ...CALLS.run_command, code: "npm test", language: "bash" } },
      { name: "delete_file", args: { TargetFile: "old.log", path: `${ws.root}/old.log` } },
    ]);
  });
});

describe("a rewrite is translated back and merged over the original arguments", () => {
  const answering = (file: string, event: string, matcher: string, output: unknown) => ({
    [file]: JSON.stringify({
      hooks: {
        [event]: [{ matcher, hooks: [{ type: "command", command: `echo '${JSON.stringify(output)}'` }] }],
      },
    }),
  });

  it.each([
    [
      "Claude updatedInput",
      ".claude/settings.json",
      "PreToolUse",
      "Bash",
      { hookSpecificOutput: { updatedInput: { command: "echo rewritten" } } },
    ],
    [
      "Gemini tool_input",
      ".gemini/settings.json",
      "BeforeTool",
      "run_shell_command",
      { hookSpecificOutput: { tool_input: { command: "echo rewritten" } } },
    ],
    [
      "Qwen updatedInput",
      ".qwen/settings.json",
      "PreToolUse",
      "run_shell_command",
      { hookSpecificOutput: { permissionDecision: "allow", updatedInput: { command: "echo rewritten" } } },
    ],
  ])(
    "%s: a new command keeps Cwd and WaitMsBeforeAsync, and the call runs",
    async (_name, file, event, matcher, output) => {
      ws = await createTempWorkspace(answering(file, event, matcher, output));
      const { pipeline } = builtinHookHarness(ws);
      const result = await pipeline.run({
        name: "run_command",
        args: { CommandLine: "echo original", Cwd: ".", WaitMsBeforeAsync: 5000 },
      });
      expect(result.error).toBe(false);
      expect(result.text).toContain("rewritten");
      expect(result.text).not.toContain("original");
    },
  );

  it("Claude MultiEdit: a rewritten edit keeps its chunk's line range", async () => {
    const output = {
      hookSpecificOutput: {
        updatedInput: { edits: [{ new_string: "let z" }, { old_string: "x + 1", new_string: "z + 1" }] },
      },
    };
    ws = await createTempWorkspace({
      ...answering(".claude/settings.json", "PreToolUse", "MultiEdit", output),
      "src/a.ts": "let x = 1;\nconst y = x + 1;\n",
    });
    const { pipeline } = builtinHookHarness(ws);
    await pipeline.run({ name: "view_file", args: { AbsolutePath: "src/a.ts" } });
    const result = await pipeline.run({
      name: "multi_replace_file_content",
      args: CALLS.multi_replace_file_content,
    });
    expect(result.error).toBe(false);
    expect(await readFile(`${ws.root}/src/a.ts`, "utf8")).toBe("let z = 1;\nconst y = z + 1;\n");
  });

  it("Gemini replace on a multi-chunk multi-replace: a rewrite of the text cannot be split back, so the call is denied", async () => {
    const output = { hookSpecificOutput: { tool_input: { new_string: "something else" } } };
    ws = await createTempWorkspace(answering(".gemini/settings.json", "BeforeTool", "replace", output));
    const { pipeline } = builtinHookHarness(ws);
    const result = await pipeline.run({
      name: "multi_replace_file_content",
      args: CALLS.multi_replace_file_content,
    });
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain("cannot be split back");
  });

  it("Claude Read: a rewritten file_path reads the other file; a rewrite to a secret is still refused", async () => {
    ws = await createTempWorkspace({
      ...answering(".claude/settings.json", "PreToolUse", "Read", {
        hookSpecificOutput: { updatedInput: { file_path: "public.txt" } },
      }),
      "public.txt": "PUBLIC\n",
      "private.txt": "PRIVATE\n",
    });
    const { pipeline } = builtinHookHarness(ws);
    const result = await pipeline.run({ name: "view_file", args: { AbsolutePath: "private.txt" } });
    expect(result.text).toContain("PUBLIC");
    expect(result.text).not.toContain("PRIVATE");
    await ws.cleanup();
    ws = await createTempWorkspace({
      ...answering(".claude/settings.json", "PreToolUse", "Read", {
        hookSpecificOutput: { updatedInput: { file_path: ".env" } },
      }),
      ".env": "TOKEN=1\n",
    });
    const secret = await builtinHookHarness(ws).pipeline.run({
      name: "view_file",
      args: { AbsolutePath: "a.txt" },
    });
    expect(secret.errorCode).toBe("secret_path");
    expect(secret.text).not.toContain("TOKEN=1");
  });
});

/** A secret scanner as the harnesses' docs suggest: it looks at what would be written, in its harness's fields. */
const SCANNER = `import json, sys
data = json.load(sys.stdin)
tool_input = data.get("tool_input", {})
texts = [tool_input.get("content", ""), tool_input.get("new_string", "")]
texts += [edit.get("new_string", "") for edit in tool_input.get("edits", [])]
if any("AKIA" in text for text in texts):
    print("a secret would be written", file=sys.stderr)
    sys.exit(2)
`;

describe("a secret scanner stops a secret in any edit tool, multi-replace included", () => {
  it.each([
    ["Gemini", ".gemini/settings.json", "BeforeTool", "write_file|replace"],
    ["Claude", ".claude/settings.json", "PreToolUse", "Write|Edit|MultiEdit"],
    ["Qwen", ".qwen/settings.json", "PreToolUse", "write_file|edit"],
  ])("%s", async (_name, file, event, matcher) => {
    const command = `python3 "$GANTRY_PROJECT_DIR/scan.py"`;
    ws = await createTempWorkspace({
      "scan.py": SCANNER,
      [file]: JSON.stringify({ hooks: { [event]: [{ matcher, hooks: [{ type: "command", command }] }] } }),
    });
    const { pipeline } = builtinHookHarness(ws);
    const args = {
      ...CALLS.multi_replace_file_content,
      ReplacementChunks: [chunk("let x", "let y", 1), chunk("key = ''", "key = 'AKIAIOSFODNN7EXAMPLE'", 2)],
    };
    const multi = await pipeline.run({ name: "multi_replace_file_content", args });
    expect(multi.errorCode).toBe("denied");
    expect(multi.text).toContain("a secret would be written");
    const write = await pipeline.run({
      name: "write_to_file",
      args: { TargetFile: "k.txt", Overwrite: false, CodeContent: "AKIAIOSFODNN7EXAMPLE", Description: "k" },
    });
    expect(write.errorCode).toBe("denied");
  });
});
