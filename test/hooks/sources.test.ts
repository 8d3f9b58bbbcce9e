import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession } from "../../src/gantry.js";
import { hookSources, loadHookConfig } from "../../src/hooks/config.js";
import { runGantry } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { hookHarness } from "./support.js";

let ws: TempWorkspace;
afterEach(async () => ws?.cleanup());

const hooksOf = (event: string, matcher: string, command: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ hooks: { [event]: [{ matcher, hooks: [{ type: "command", command, ...extra }] }] } });

async function writeHome(rel: string, text: string) {
  const file = path.join(ws.home, rel);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}

describe("hook sources: every harness's files, home and workspace", () => {
  it("lists the home file of every dialect before the workspace's, each with its scope", async () => {
    ws = await createTempWorkspace();
    const sources = hookSources(ws.root, ws.home).map((s) => [
      path.relative(ws.parent, s.file),
      s.dialect,
      s.scope,
    ]);
    expect(sources).toEqual([
      ["home/.agents/hooks.json", "native", "home"],
      ["ws/.agents/hooks.json", "native", "workspace"],
      ["home/.claude/settings.json", "claude", "home"],
      ["ws/.claude/settings.json", "claude", "workspace"],
      ["ws/.claude/settings.local.json", "claude", "workspace"],
      ["home/.gemini/settings.json", "gemini", "home"],
      ["ws/.gemini/settings.json", "gemini", "workspace"],
      ["home/.qwen/settings.json", "qwen", "home"],
      ["ws/.qwen/settings.json", "qwen", "workspace"],
    ]);
  });

  it("runs the hooks in ~/.claude, ~/.gemini and ~/.qwen settings, named after the home file", async () => {
    ws = await createTempWorkspace();
    const deny = (why: string) => `echo '${why}' >&2; exit 2`;
    await writeHome(".claude/settings.json", hooksOf("PreToolUse", "Bash", deny("claude home says no")));
    await writeHome(
      ".gemini/settings.json",
      hooksOf("BeforeTool", "write_file", deny("gemini home says no")),
    );
    await writeHome(".qwen/settings.json", hooksOf("PreToolUse", "read_file", deny("qwen home says no")));
    const { pipeline } = hookHarness(ws);
    expect((await pipeline.run({ name: "run_command", args: { CommandLine: "ls" } })).text).toBe(
      "Denied by hook claude:~/.claude/settings.json: claude home says no",
    );
    expect(
      (await pipeline.run({ name: "write_to_file", args: { TargetFile: "a", CodeContent: "b" } })).text,
    ).toBe("Denied by hook gemini:~/.gemini/settings.json: gemini home says no");
    expect((await pipeline.run({ name: "view_file", args: { AbsolutePath: "a" } })).text).toBe(
      "Denied by hook qwen:~/.qwen/settings.json: qwen home says no",
    );
    expect(loadHookConfig(ws.root, ws.home).groups.map((g) => g.scope)).toEqual(["home", "home", "home"]);
  });
});

describe("workspace trust holds for the new sources", () => {
  it("an untrusted workspace's .qwen/settings.json never runs; the user's ~/.qwen/settings.json does", async () => {
    ws = await createTempWorkspace();
    const marker = (name: string) => path.join(ws.parent, name);
    await ws.write(".qwen/settings.json", hooksOf("PreToolUse", "", `touch ${marker("PWNED")}`));
    await writeHome(".qwen/settings.json", hooksOf("PreToolUse", "", `touch ${marker("USER-HOOK-RAN")}`));
    const session = createGantrySession({ workspace: ws.root, home: ws.home });
    try {
      await session.pipeline.run({ name: "list_dir", args: { DirectoryPath: "." } });
    } finally {
      await session.dispose();
    }
    expect(existsSync(marker("PWNED"))).toBe(false);
    expect(existsSync(marker("USER-HOOK-RAN"))).toBe(true);
    expect(session.configNotices().join("\n")).toContain(".qwen/settings.json");
  });
});

describe("Qwen Code hooks (.qwen/settings.json)", () => {
  it("match Qwen's tool ids and display names; stdin carries Qwen's names and QWEN_PROJECT_DIR is set", async () => {
    ws = await createTempWorkspace({
      ".qwen/settings.json": JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: "ReadFile",
              hooks: [
                { type: "command", command: `cat > "$QWEN_PROJECT_DIR/stdin.json"; echo no >&2; exit 2` },
              ],
            },
          ],
        },
      }),
    });
    const { pipeline } = hookHarness(ws);
    const result = await pipeline.run({ name: "view_file", args: { AbsolutePath: "notes.md" } });
    expect(result.text).toBe("Denied by hook qwen:.qwen/settings.json: no");
    const stdin = JSON.parse(await readFile(`${ws.root}/stdin.json`, "utf8"));
    expect(stdin).toMatchObject({
      hook_event_name: "PreToolUse",
      tool_name: "read_file",
      tool_input: { file_path: `${ws.root}/notes.md` },
      permission_mode: "default",
      cwd: ws.root,
    });
    expect(stdin.timestamp).toEqual(expect.any(String));
  });

  it("count command timeouts in milliseconds (default 60,000) and HTTP timeouts in seconds (default 600)", async () => {
    ws = await createTempWorkspace({
      ".qwen/settings.json": JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: "",
              hooks: [
                { type: "command", command: "true", timeout: 1500 },
                { type: "command", command: "true" },
                { type: "http", url: "http://127.0.0.1:9/x", timeout: 10 },
                { type: "http", url: "http://127.0.0.1:9/y" },
              ],
            },
          ],
        },
      }),
    });
    const [group] = loadHookConfig(ws.root, ws.home).groups;
    expect(group?.rules[0]?.handlers.map((h) => h.timeoutMs)).toEqual([1500, 60_000, 10_000, 600_000]);
  });

  it("a failMode closed hook that fails denies the call; disableAllHooks switches the file off", async () => {
    ws = await createTempWorkspace({
      ".qwen/settings.json": hooksOf("PreToolUse", "run_shell_command", "exit 1", { failMode: "closed" }),
    });
    const closed = await hookHarness(ws).pipeline.run({ name: "run_command", args: { CommandLine: "ls" } });
    expect(closed.errorCode).toBe("denied");
    expect(closed.text).toContain("the hook failed");
    await writeFile(
      `${ws.root}/.qwen/settings.json`,
      JSON.stringify({ disableAllHooks: true, ...JSON.parse(hooksOf("PreToolUse", "", "exit 2")) }),
    );
    const { pipeline, commands } = hookHarness(ws);
    expect((await pipeline.run({ name: "run_command", args: { CommandLine: "ls" } })).error).toBe(false);
    expect(commands).toEqual(["ls"]);
  });
});

describe("Claude Code's PostToolUseFailure", () => {
  it("gets the error and is_interrupt, and runs only after a failure", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": hooksOf(
        "PostToolUseFailure",
        "Bash",
        `cat >> "$CLAUDE_PROJECT_DIR/failed.jsonl"`,
      ),
    });
    const { pipeline } = hookHarness(ws);
    await pipeline.run({ name: "run_command", args: { CommandLine: "true" } });
    await pipeline.run({ name: "run_command", args: { CommandLine: "fail now" } });
    const lines = (await readFile(`${ws.root}/failed.jsonl`, "utf8")).trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      hook_event_name: "PostToolUseFailure",
      tool_name: "Bash",
      error: "boom: exit 1",
      is_interrupt: false,
    });
  });
});

describe("gantry hooks check", () => {
  it("lists every configured event and whether it fires", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": JSON.stringify({
        hooks: {
          SessionStart: [{ hooks: [{ type: "command", command: "true" }] }],
          Stop: [{ hooks: [{ type: "command", command: "true" }] }],
          PermissionDenied: [{ hooks: [{ type: "command", command: "true" }] }],
        },
      }),
      ".gemini/settings.json": hooksOf("BeforeModel", "", "true"),
      ".qwen/settings.json": hooksOf("PreToolUse", "run_shell_command", "true"),
    });
    const run = await runGantry(["hooks", "check", "--workspace", ws.root, "--trust"], {
      env: { HOME: ws.home },
    });
    expect(run.stdout).toContain(`found   ${ws.root}/.qwen/settings.json (qwen) [workspace]`);
    expect(run.stdout).toContain(`  SessionStart (session_start): fires  [${ws.root}/.claude/settings.json]`);
    expect(run.stdout).toContain(`  Stop (stop): fires`);
    expect(run.stdout).toContain(`  PermissionDenied: does NOT fire in Gantry; its hooks are ignored`);
    expect(run.stdout).toContain(`  BeforeModel (before_model): fires  [${ws.root}/.gemini/settings.json]`);
    expect(run.stdout).toContain(
      `  PreToolUse (pre_tool_execution): fires  [${ws.root}/.qwen/settings.json]`,
    );
    expect(run.code).toBe(1); // the never-firing event is a warning
  });
});
