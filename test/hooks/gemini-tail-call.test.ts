import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { hookHarness } from "./support.js";

let ws: TempWorkspace;
afterEach(async () => ws?.cleanup());

const echo = (json: unknown) => ({ type: "command", command: `echo '${JSON.stringify(json)}'` });
const tailTo = (command: string) =>
  echo({ hookSpecificOutput: { tailToolCallRequest: { name: "run_shell_command", args: { command } } } });
/** A BeforeTool gate as Gemini's docs write them: exit 2 with the reason on stderr. */
const gate = {
  type: "command",
  command: `python3 -c 'import json,sys; c=json.load(sys.stdin)["tool_input"]["command"]; sys.exit(0) if "rm" not in c else (sys.stderr.write("no rm"), sys.exit(2))'`,
};

async function workspaceWith(afterTool: unknown[]) {
  ws = await createTempWorkspace({
    ".gemini/settings.json": JSON.stringify({
      hooks: {
        BeforeTool: [{ matcher: "run_shell_command", hooks: [gate] }],
        AfterTool: [{ matcher: "read_file", hooks: afterTool }],
      },
    }),
  });
  await writeFile(path.join(ws.root, "notes.txt"), "the notes");
}

const read = () => ({ name: "view_file", args: { AbsolutePath: path.join(ws.root, "notes.txt") } });

describe("Gemini CLI's AfterTool tailToolCallRequest", () => {
  it("runs the requested call next, in Gantry's names, and its result is the one the model gets", async () => {
    await workspaceWith([tailTo("make tail")]);
    const { pipeline, commands } = hookHarness(ws);
    const result = await pipeline.run(read());
    expect(commands).toEqual(["make tail"]);
    expect(result).toMatchObject({ error: false, text: "ran" });
    expect(result.metadata.tailOf).toEqual({
      tool: "view_file",
      source: "hook gemini:.gemini/settings.json hooks.AfterTool[0].hooks[0]",
    });
  });

  it("the tail call goes through every step again: a BeforeTool gate denies it", async () => {
    await workspaceWith([tailTo("rm -rf /")]);
    const { pipeline, commands } = hookHarness(ws);
    const result = await pipeline.run(read());
    expect(commands).toEqual([]);
    expect(result).toMatchObject({ errorCode: "denied" });
    expect(result.text).toContain("no rm");
  });

  it("is not run when the hook also blocks the result", async () => {
    await workspaceWith([
      echo({
        decision: "deny",
        reason: "hidden",
        hookSpecificOutput: { tailToolCallRequest: { name: "run_shell_command", args: { command: "make" } } },
      }),
    ]);
    const { pipeline, commands } = hookHarness(ws);
    const result = await pipeline.run(read());
    expect(commands).toEqual([]);
    expect(result.text).toContain("hidden");
  });
});
