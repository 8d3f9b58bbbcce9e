import { readFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { builtinHookHarness, hookHarness } from "./support.js";

let ws: TempWorkspace;
afterEach(async () => ws?.cleanup());

// A shell guard as Qwen Code's users write one: read the event, refuse `rm`.
const NO_RM = `import json, sys
event = json.load(sys.stdin)
command = event.get("tool_input", {}).get("command", "")
if "rm " in command:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "no rm here"}}))
`;
// An audit hook that keeps what PostToolUse was given.
const RECORD = `import json, os, sys
event = json.load(sys.stdin)
with open(os.path.join(os.environ["QWEN_PROJECT_DIR"], "post.json"), "w") as out:
    json.dump(event, out)
`;

function qwenSettings(event: string, matcher: string, script: string) {
  return JSON.stringify({
    hooks: {
      [event]: [
        {
          matcher,
          hooks: [{ type: "command", command: `python3 "$QWEN_PROJECT_DIR/.qwen/hooks/${script}"` }],
        },
      ],
    },
  });
}

describe("Qwen matchers are matched as Qwen Code matches them", () => {
  it('"shell" (an unanchored regex) puts the guard on run_shell_command', async () => {
    ws = await createTempWorkspace({
      ".qwen/settings.json": qwenSettings("PreToolUse", "shell", "no-rm.py"),
      ".qwen/hooks/no-rm.py": NO_RM,
    });
    const { pipeline, commands } = hookHarness(ws);
    const denied = await pipeline.run({ name: "run_command", args: { CommandLine: "rm victim.txt" } });
    expect(denied).toMatchObject({ errorCode: "denied" });
    expect(denied.text).toContain("no rm here");
    await pipeline.run({ name: "run_command", args: { CommandLine: "ls" } });
    expect(commands).toEqual(["ls"]);
  });

  it('"read_" matches read_file and not the shell', async () => {
    const deny = `import json; print(json.dumps({"decision": "deny", "reason": "no reads"}))`;
    ws = await createTempWorkspace({
      ".qwen/settings.json": qwenSettings("PreToolUse", "read_", "deny.py"),
      ".qwen/hooks/deny.py": deny,
      "a.txt": "hello",
    });
    const { pipeline, commands } = hookHarness(ws);
    expect(await pipeline.run({ name: "view_file", args: { AbsolutePath: "a.txt" } })).toMatchObject({
      errorCode: "denied",
    });
    await pipeline.run({ name: "run_command", args: { CommandLine: "ls" } });
    expect(commands).toEqual(["ls"]);
  });
});

describe("Qwen PostToolUse gets Qwen's tool_response", () => {
  it("{ llmContent, returnDisplay }, not Claude's Bash fields", async () => {
    ws = await createTempWorkspace({
      ".qwen/settings.json": qwenSettings("PostToolUse", "run_shell_command", "record.py"),
      ".qwen/hooks/record.py": RECORD,
    });
    const { pipeline } = hookHarness(ws);
    await pipeline.run({ name: "run_command", args: { CommandLine: "make" } });
    const event = JSON.parse(await readFile(`${ws.root}/post.json`, "utf8"));
    expect(event.hook_event_name).toBe("PostToolUse");
    expect(event.tool_response).toEqual({ llmContent: "ran", returnDisplay: "ran" });
  });
});

describe("Bash timeout (a kill deadline in Claude Code and Qwen Code) is not WaitMsBeforeAsync", () => {
  const recordInput = `cat > "$GANTRY_PROJECT_DIR/pre.json"`;
  it.each([
    [".claude/settings.json", "Bash"],
    [".qwen/settings.json", "run_shell_command"],
  ])("%s: the hook is not shown WaitMsBeforeAsync as timeout", async (file, matcher) => {
    ws = await createTempWorkspace({
      [file]: JSON.stringify({
        hooks: { PreToolUse: [{ matcher, hooks: [{ type: "command", command: recordInput }] }] },
      }),
    });
    const { pipeline } = builtinHookHarness(ws);
    await pipeline.run({
      name: "run_command",
      args: { CommandLine: "echo hi", Cwd: ".", WaitMsBeforeAsync: 5000 },
    });
    const event = JSON.parse(await readFile(`${ws.root}/pre.json`, "utf8"));
    expect(event.tool_input.command).toBe("echo hi");
    expect(event.tool_input).not.toHaveProperty("timeout");
  });

  it.each([
    [".claude/settings.json", "Bash"],
    [".qwen/settings.json", "run_shell_command"],
  ])("%s: a rewrite that sets timeout is refused, naming why, and nothing runs", async (file, matcher) => {
    // a hook that caps every command at 10 s, as Claude Code's users write one
    const cap = `python3 -c 'import json,sys; d=json.load(sys.stdin); i=d["tool_input"]; i["timeout"]=10000; print(json.dumps({"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":i}}))'`;
    ws = await createTempWorkspace({
      [file]: JSON.stringify({
        hooks: { PreToolUse: [{ matcher, hooks: [{ type: "command", command: cap }] }] },
      }),
    });
    const { pipeline } = builtinHookHarness(ws);
    const result = await pipeline.run({
      name: "run_command",
      args: { CommandLine: "echo should-not-run > ran.txt", Cwd: ".", WaitMsBeforeAsync: 60_000 },
    });
    expect(result).toMatchObject({ errorCode: "denied" });
    expect(result.text).toContain("sets timeout");
    expect(result.text).toContain("no per-call kill deadline");
    await expect(readFile(`${ws.root}/ran.txt`, "utf8")).rejects.toThrow();
  });
});
