import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { builtinHookHarness } from "./support.js";

let ws: TempWorkspace;
afterEach(async () => ws?.cleanup());

interface Mapping {
  /** The tool name the hook's matcher is written with, in the dialect's own names. */
  dialectName: string;
  /** The Gantry call the model makes. */
  call: { name: string; args: Record<string, unknown> };
  /** tool_input as the dialect's scripts expect it (`<root>` stands for the workspace). */
  toolInput: Record<string, unknown>;
}

const CLAUDE: Mapping[] = [
  {
    dialectName: "Glob",
    call: { name: "find_by_name", args: { Pattern: "*.ts", SearchDirectory: "src" } },
    toolInput: { pattern: "*.ts", path: "<root>/src" },
  },
  {
    dialectName: "Grep",
    call: { name: "grep_search", args: { Query: "TODO", SearchPath: "src" } },
    toolInput: { pattern: "TODO", path: "<root>/src" },
  },
  {
    dialectName: "Task",
    call: { name: "agent", args: { description: "review the parser", prompt: "Review src/parser.ts" } },
    toolInput: { description: "review the parser", prompt: "Review src/parser.ts" },
  },
];

const replaceArgs = {
  TargetFile: "src/a.ts",
  Instruction: "rename x",
  Description: "rename x",
  TargetContent: "let x",
  ReplacementContent: "let y",
  StartLine: 1,
  EndLine: 1,
  AllowMultiple: false,
};

const GEMINI: Mapping[] = [
  {
    dialectName: "replace",
    call: { name: "replace_file_content", args: replaceArgs },
    toolInput: {
      file_path: "<root>/src/a.ts",
      instruction: "rename x",
      old_string: "let x",
      new_string: "let y",
      allow_multiple: false,
    },
  },
  {
    dialectName: "glob",
    call: { name: "find_by_name", args: { Pattern: "*.ts", SearchDirectory: "src" } },
    toolInput: { pattern: "*.ts", dir_path: "<root>/src" },
  },
  {
    dialectName: "grep_search",
    call: { name: "grep_search", args: { Query: "TODO", SearchPath: "src" } },
    toolInput: { pattern: "TODO", dir_path: "<root>/src" },
  },
  {
    dialectName: "list_directory",
    call: { name: "list_dir", args: { DirectoryPath: "src" } },
    toolInput: { dir_path: "<root>/src" },
  },
];

/** One rule per dialect name: each records its stdin in `<name>.json` and blocks the call (exit 2). */
function rulesFor(mappings: Mapping[]) {
  return mappings.map(({ dialectName }) => ({
    matcher: dialectName,
    hooks: [
      { type: "command", command: `cat > ${dialectName}.json; echo "blocked ${dialectName}" >&2; exit 2` },
    ],
  }));
}

const withRoot = (input: Record<string, unknown>) =>
  JSON.parse(JSON.stringify(input).replaceAll("<root>", ws.root)) as Record<string, unknown>;

async function expectEachMapping(mappings: Mapping[], group: string, event: string) {
  const { pipeline, agentCalls } = builtinHookHarness(ws);
  for (const { dialectName, call, toolInput } of mappings) {
    const result = await pipeline.run(call);
    // the matcher written with the dialect's name matched the Gantry tool, and only its own rule ran
    expect(result.text).toMatch(new RegExp(`^Denied by hook ${group}.*: blocked ${dialectName}$`));
    const stdin = JSON.parse(await readFile(`${ws.root}/${dialectName}.json`, "utf8"));
    expect(stdin).toMatchObject({ hook_event_name: event, tool_name: dialectName });
    expect(stdin.tool_input).toEqual(withRoot(toolInput));
    const others = mappings.filter((m) => m.dialectName !== dialectName && m.call.name !== call.name);
    for (const other of others) expect(existsSync(`${ws.root}/${other.dialectName}.json`)).toBe(false);
    await cleanCaptures(mappings);
  }
  expect(agentCalls).toEqual([]);
}

async function cleanCaptures(mappings: Mapping[]) {
  const { rm } = await import("node:fs/promises");
  for (const { dialectName } of mappings) await rm(`${ws.root}/${dialectName}.json`, { force: true });
}

describe("dialect tool names: matchers and stdin use the dialect's names for Gantry's tools", () => {
  it("Claude Code: Glob is find_by_name, Grep is grep_search, Task is agent", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": JSON.stringify({ hooks: { PreToolUse: rulesFor(CLAUDE) } }),
      "src/a.ts": "let x = 1; // TODO\n",
    });
    await expectEachMapping(CLAUDE, "claude:.claude/settings.json", "PreToolUse");
  });

  it("Gemini CLI: replace is replace_file_content, glob is find_by_name, grep_search, list_directory is list_dir", async () => {
    ws = await createTempWorkspace({
      ".gemini/settings.json": JSON.stringify({ hooks: { BeforeTool: rulesFor(GEMINI) } }),
      "src/a.ts": "let x = 1; // TODO\n",
    });
    await expectEachMapping(GEMINI, "gemini:.gemini/settings.json", "BeforeTool");
  });

  it("Claude Code: a Glob hook that allows lets the real find_by_name run", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: "Glob", hooks: [{ type: "command", command: "cat > Glob.json" }] }],
        },
      }),
      "src/a.ts": "let x = 1;\n",
    });
    const { pipeline } = builtinHookHarness(ws);
    const result = await pipeline.run({ name: "find", args: { Pattern: "*.ts", SearchDirectory: "." } });
    expect(result.error).toBe(false);
    expect(result.text).toContain("src/a.ts");
    expect(JSON.parse(await readFile(`${ws.root}/Glob.json`, "utf8")).tool_name).toBe("Glob");
  });
});
