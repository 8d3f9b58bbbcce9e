import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;
afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
});

// A shell guard as these harnesses' users write one: refuse any command line that runs rm.
const NO_RM = `import json, os, sys
event = json.load(sys.stdin)
with open(os.path.join(os.environ["GANTRY_PROJECT_DIR"], "..", "seen.jsonl"), "a") as log:
    log.write(json.dumps({"tool_name": event["tool_name"], "tool_input": event["tool_input"]}) + "\\n")
if "rm " in event["tool_input"].get("command", ""):
    print("rm is not allowed here", file=sys.stderr)
    sys.exit(2)
`;

const GUARDS: Record<string, [file: string, settings: unknown]> = {
  claude: [
    ".claude/settings.json",
    {
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "python3 no-rm.py" }] }] },
    },
  ],
  gemini: [
    ".gemini/settings.json",
    {
      hooks: {
        BeforeTool: [
          { matcher: "run_shell_command", hooks: [{ type: "command", command: "python3 no-rm.py" }] },
        ],
      },
    },
  ],
  qwen: [
    ".qwen/settings.json",
    {
      hooks: {
        PreToolUse: [
          { matcher: "run_shell_command", hooks: [{ type: "command", command: "python3 no-rm.py" }] },
        ],
      },
    },
  ],
};

async function open(files: Record<string, string>) {
  ws = await createTempWorkspace({ "victim.txt": "keep\n", "no-rm.py": NO_RM, ...files });
  session = createGantrySession({
    workspace: ws.root,
    home: ws.home,
    approvalMode: "yolo",
    requireReadBeforeEdit: false,
    trust: true,
  });
  return session;
}

const guarded = (dialect: string) => {
  const [file, settings] = GUARDS[dialect] as [string, unknown];
  return { [file]: JSON.stringify(settings) };
};

async function bashTask(gantry: GantrySession): Promise<string> {
  const started = await gantry.pipeline.run({
    name: "run_command",
    args: { CommandLine: "bash", Cwd: ".", WaitMsBeforeAsync: 0 },
  });
  expect(started.metadata.taskId, started.text).toBeDefined();
  return started.metadata.taskId as string;
}

const seen = () =>
  readFileSync(path.join(ws.parent, "seen.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));

describe.each(Object.keys(GUARDS))(
  "a %s shell guard judges every shell command the model runs",
  (dialect) => {
    it("input typed into a background bash: `rm victim.txt` is refused, other input runs", async () => {
      const gantry = await open(guarded(dialect));
      const task = await bashTask(gantry);
      const denied = await gantry.pipeline.run({
        name: "manage_task",
        args: { Action: "send_input", TaskId: task, Input: "rm victim.txt\n" },
      });
      expect(denied).toMatchObject({ errorCode: "denied" });
      expect(denied.text).toContain("rm is not allowed here");
      const fed = await gantry.pipeline.run({
        name: "manage_task",
        args: { Action: "send_input", TaskId: task, Input: "echo fed-ok\n" },
      });
      expect(fed.text).toContain("fed-ok");
      expect(existsSync(path.join(ws.root, "victim.txt"))).toBe(true);
      const shell = dialect === "claude" ? "Bash" : "run_shell_command";
      expect(seen().slice(-2)).toEqual([
        { tool_name: shell, tool_input: { command: "rm victim.txt" } },
        { tool_name: shell, tool_input: { command: "echo fed-ok" } },
      ]);
    });

    it("a schedule's TimerCondition that runs rm is refused", async () => {
      const gantry = await open(guarded(dialect));
      const result = await gantry.pipeline.run({
        name: "schedule",
        args: { Prompt: "later", TimerCondition: "rm victim.txt" },
      });
      expect(result).toMatchObject({ errorCode: "denied" });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(existsSync(path.join(ws.root, "victim.txt"))).toBe(true);
    });

    it("delete_file is seen as `rm <absolute path>`, and refused", async () => {
      const gantry = await open(guarded(dialect));
      const result = await gantry.pipeline.run({ name: "delete_file", args: { TargetFile: "victim.txt" } });
      expect(result).toMatchObject({ errorCode: "denied" });
      expect(existsSync(path.join(ws.root, "victim.txt"))).toBe(true);
      expect(seen().at(-1)?.tool_input).toEqual({ command: `rm ${path.join(ws.root, "victim.txt")}` });
    });
  },
);

describe("a rewrite of such a view goes back into the call, or refuses it", () => {
  // rewrites the command line that says "original", and leaves the rest (the task's own `bash`) alone
  const rewriting = (updatedInput: unknown) => ({
    "rewrite.py": `import json, sys
event = json.load(sys.stdin)
updated = json.loads(${JSON.stringify(JSON.stringify(updatedInput))})
command = event["tool_input"]["command"]
if "original" in command or command.startswith("rm "):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": updated}}))
`,
    ".claude/settings.json": JSON.stringify({
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "python3 rewrite.py" }] }],
      },
    }),
  });

  it("a new command becomes the task's Input (its newline kept)", async () => {
    const gantry = await open(rewriting({ command: "echo rewritten-input" }));
    const task = await bashTask(gantry);
    const fed = await gantry.pipeline.run({
      name: "manage_task",
      args: { Action: "send_input", TaskId: task, Input: "echo original\n" },
    });
    expect(fed.text).toContain("rewritten-input");
    expect(fed.text).not.toContain("original");
  });

  it("a field the view cannot carry back (run_in_background) refuses the call, naming it", async () => {
    const gantry = await open(rewriting({ command: "echo x", run_in_background: true }));
    const task = await bashTask(gantry);
    const result = await gantry.pipeline.run({
      name: "manage_task",
      args: { Action: "send_input", TaskId: task, Input: "echo original\n" },
    });
    expect(result).toMatchObject({ errorCode: "denied" });
    expect(result.text).toContain("run_in_background");
  });

  it("delete_file: a command that is not `rm <one file>` refuses the call", async () => {
    const gantry = await open(rewriting({ command: "rm -rf /" }));
    const result = await gantry.pipeline.run({ name: "delete_file", args: { TargetFile: "victim.txt" } });
    expect(result).toMatchObject({ errorCode: "denied" });
    expect(result.text).toContain("rm <one file>");
    expect(existsSync(path.join(ws.root, "victim.txt"))).toBe(true);
  });
});

describe("native hooks keep Gantry's own names and arguments", () => {
  it("manage_task send_input reaches a native hook as manage_task with its Input", async () => {
    const record = `cat >> "$GANTRY_PROJECT_DIR/../native.jsonl"; echo >> "$GANTRY_PROJECT_DIR/../native.jsonl"`;
    const gantry = await open({
      ".agents/hooks.json": JSON.stringify({
        audit: {
          pre_tool_execution: [{ matcher: "manage_task", hooks: [{ type: "command", command: record }] }],
        },
      }),
    });
    const task = await bashTask(gantry);
    await gantry.pipeline.run({
      name: "manage_task",
      args: { Action: "send_input", TaskId: task, Input: "echo hi\n" },
    });
    const [event] = readFileSync(path.join(ws.parent, "native.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(event.tool_call).toEqual({
      name: "manage_task",
      args: { Action: "send_input", TaskId: task, Input: "echo hi\n" },
    });
  });
});
