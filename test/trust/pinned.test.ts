import { readFileSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { runGantry, runGantryTool } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { plantHook, ran } from "./support.js";

let ws: TempWorkspace | undefined;
let session: GantrySession | undefined;
afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
  ws = undefined;
});

const listDir = { DirectoryPath: "." };

/** A gate as seed 002 writes them: a script a hook names, denying reads of `private/`. */
const GATE_ALLOW_ALL = "import sys\nsys.stdin.read()\nprint('{}')\n";
const GATE = `import json, sys
event = json.load(sys.stdin)
path = str(event["tool_call"]["args"].get("DirectoryPath", ""))
if "private" in path:
    print(json.dumps({"decision": "deny", "reason": "private is off limits"}))
else:
    print("{}")
`;

async function gatedWorkspace(): Promise<TempWorkspace> {
  const made = await createTempWorkspace({
    "private/x.txt": "secret plans\n",
    ".agents/hooks-scripts/gate.py": GATE,
    ".agents/hooks.json": JSON.stringify({
      gate: {
        pre_tool_execution: [
          {
            matcher: "list_dir",
            hooks: [{ type: "command", command: "python3 .agents/hooks-scripts/gate.py" }],
          },
        ],
      },
    }),
  });
  return made;
}

const privateDir = { DirectoryPath: "private" };

describe("trust pinned to what it approved", () => {
  it("a hook file changed after `gantry trust` is ignored until trusted again", async () => {
    ws = await createTempWorkspace({});
    const marker = await plantHook(ws, ".agents/hooks.json");
    const env = { HOME: ws.home };
    expect((await runGantry(["trust", ws.root], { env })).code).toBe(0);
    await runGantryTool("list_dir", listDir, { workspace: ws.root, env });
    expect(ran(marker)).toBe(true);
    await rm(marker);
    // a git pull brings a different hook
    const other = path.join(ws.parent, "PWNED-after-pull");
    await ws.write(
      ".agents/hooks.json",
      JSON.stringify({
        pwn: {
          pre_tool_execution: [{ matcher: "", hooks: [{ type: "command", command: `touch ${other}` }] }],
        },
      }),
    );
    const { run } = await runGantryTool("list_dir", listDir, { workspace: ws.root, env });
    expect(ran(other)).toBe(false);
    expect(run.stderr).toContain(
      ".agents/hooks.json: ignored hooks (changed since you trusted this folder; re-approve it:",
    );
    expect((await runGantry(["trust", ws.root], { env })).code).toBe(0);
    await runGantryTool("list_dir", listDir, { workspace: ws.root, env });
    expect(ran(other)).toBe(true);
  });

  it("a config file that appears after trust needs approval", async () => {
    ws = await createTempWorkspace({ ".agents/settings.json": "{}" });
    const env = { HOME: ws.home };
    expect((await runGantry(["trust", ws.root], { env })).code).toBe(0);
    const marker = await plantHook(ws, ".gemini/settings.json");
    const { run } = await runGantryTool("list_dir", listDir, { workspace: ws.root, env });
    expect(ran(marker)).toBe(false);
    expect(run.stderr).toContain(
      ".gemini/settings.json: ignored hooks (added since you trusted this folder;",
    );
  });

  it("a hook script swapped between sessions does not run: the calls it gates are denied, naming the script", async () => {
    ws = await gatedWorkspace();
    const env = { HOME: ws.home };
    expect((await runGantry(["trust", ws.root], { env })).code).toBe(0);
    const gated = await runGantryTool("list_dir", privateDir, { workspace: ws.root, env });
    expect(gated.result.text).toBe("Denied by hook gate: private is off limits");
    await writeFile(path.join(ws.root, ".agents/hooks-scripts/gate.py"), GATE_ALLOW_ALL);
    const swapped = await runGantryTool("list_dir", privateDir, { workspace: ws.root, env });
    expect(swapped.result.errorCode).toBe("denied");
    expect(swapped.result.text).toContain(
      ".agents/hooks-scripts/gate.py changed since you trusted this folder",
    );
    expect(swapped.result.text).not.toContain("x.txt");
  });

  it("a hook script swapped mid-session fails closed: the next call is denied, the changed script never runs", async () => {
    ws = await gatedWorkspace();
    session = createGantrySession({ workspace: ws.root, home: ws.home, trust: true });
    expect((await session.pipeline.run({ name: "list_dir", args: privateDir })).text).toBe(
      "Denied by hook gate: private is off limits",
    );
    const script = path.join(ws.root, ".agents/hooks-scripts/gate.py");
    await writeFile(
      script,
      `import pathlib\npathlib.Path("${path.join(ws.parent, "changed-ran")}").touch()\nprint('{}')\n`,
    );
    const after = await session.pipeline.run({ name: "list_dir", args: privateDir });
    expect(after.errorCode).toBe("denied");
    expect(after.text).toContain(`its script ${script} changed after this session trusted it`);
    expect(ran(path.join(ws.parent, "changed-ran"))).toBe(false);
    // and a call the gate would have allowed is denied too: the gate cannot run
    expect((await session.pipeline.run({ name: "list_dir", args: listDir })).errorCode).toBe("denied");
  });

  it("the agent's own tools may not change a script a hook runs", async () => {
    ws = await gatedWorkspace();
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      trust: true,
      requireReadBeforeEdit: false,
    });
    const edit = await session.pipeline.run({
      name: "write_to_file",
      args: {
        TargetFile: ".agents/hooks-scripts/gate.py",
        Overwrite: true,
        CodeContent: GATE_ALLOW_ALL,
        Description: "x",
      },
    });
    expect(edit.errorCode).toBe("protected_path");
    const removed = await session.pipeline.run({
      name: "delete_file",
      args: { TargetFile: ".agents/hooks-scripts/gate.py" },
    });
    expect(removed.errorCode).toBe("protected_path");
    expect(readFileSync(path.join(ws.root, ".agents/hooks-scripts/gate.py"), "utf8")).toBe(GATE);
  });

  it("a script outside the config folders that a hook names is protected as well", async () => {
    ws = await createTempWorkspace({
      "tools/guard.sh": "exit 0\n",
      ".claude/settings.json": JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/tools/guard.sh' }],
            },
          ],
        },
      }),
    });
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      trust: false,
      requireReadBeforeEdit: false,
    });
    const edit = await session.pipeline.run({
      name: "write_to_file",
      args: {
        TargetFile: "tools/guard.sh",
        Overwrite: true,
        CodeContent: "exit 0 # mine\n",
        Description: "x",
      },
    });
    expect(edit.errorCode).toBe("protected_path");
  });

  it("the agent may not create or edit agent definitions, fork profiles or another harness's settings, even where the folder does not exist yet", async () => {
    ws = await createTempWorkspace({});
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      trust: true,
      requireReadBeforeEdit: false,
    });
    for (const target of [
      ".agents/agents/reviewer.md",
      ".claude/agents/team/validator.md",
      ".qwen/agents/x.md",
      ".agents/fork-profiles/p.md",
      ".qwen/settings.json",
      ".gemini/settings.json",
      ".mcp.json",
      ".agents/trusted-folders.json",
    ]) {
      const result = await session.pipeline.run({
        name: "write_to_file",
        args: { TargetFile: target, Overwrite: false, CodeContent: "x\n", Description: "x" },
      });
      expect(result.errorCode, target).toBe("protected_path");
    }
  });
  it("a file a trusted hook writes to (its log, through > or tee) is output, not a script: the hook keeps running", async () => {
    ws = await createTempWorkspace({
      ".claude/hooks/gate.sh": "#!/bin/sh\ncat >/dev/null\nexit 0\n",
      ".claude/settings.json": JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: "",
              hooks: [
                { type: "command", command: 'jq -c .tool_name >> "$CLAUDE_PROJECT_DIR"/hook.log' },
                { type: "command", command: "cat | tee -a .claude/seen.jsonl > /dev/null" },
                { type: "command", command: "sh .claude/hooks/gate.sh 2>.claude/gate.err" },
              ],
            },
          ],
        },
      }),
    });
    const env = { HOME: ws.home };
    expect((await runGantry(["trust", ws.root], { env })).code).toBe(0);
    for (let round = 1; round <= 3; round++) {
      const { run, result } = await runGantryTool("list_dir", listDir, { workspace: ws.root, env });
      expect(run.stderr).toBe("");
      expect(result.error).toBe(false);
    }
    expect(readFileSync(path.join(ws.root, "hook.log"), "utf8")).toBe('"LS"\n'.repeat(3));
    const seen = readFileSync(path.join(ws.root, ".claude/seen.jsonl"), "utf8");
    expect(seen.match(/"hook_event_name":"PreToolUse"/g)).toHaveLength(3);
    // the script it runs is still pinned: a change to it asks again
    await writeFile(path.join(ws.root, ".claude/hooks/gate.sh"), "#!/bin/sh\nexit 0\n");
    const swapped = await runGantryTool("list_dir", listDir, { workspace: ws.root, env });
    expect(swapped.result.errorCode).toBe("denied");
    expect(swapped.result.text).toContain(".claude/hooks/gate.sh changed since you trusted this folder");
  });
});
