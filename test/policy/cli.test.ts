import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runGantry, runGantryTool } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

const createNote = (root: string) => ({
  TargetFile: path.join(root, "note.md"),
  Overwrite: false,
  CodeContent: "hello\n",
  Description: "create a note",
});

describe("gantry tool in a non-interactive shell", () => {
  it("--approval-mode default denies an edit and names the flag or rule that would allow it", async () => {
    ws = await createTempWorkspace({});
    const { result } = await runGantryTool("write_to_file", createNote(ws.root), {
      workspace: ws.root,
      env: { HOME: ws.home },
      extra: ["--approval-mode", "default"],
    });
    expect(result).toMatchObject({
      error: true,
      errorCode: "denied",
      metadata: { deniedBy: "approval mode default" },
    });
    expect(result.text).toContain(
      "Nobody can answer a permission question here (not an interactive terminal)",
    );
    expect(result.text).toContain(
      'run with --approval-mode auto-edit or add "Edit(/note.md)" to permissions.allow in ~/.agents/settings.json',
    );
  });

  it("defaults to the default mode, and auto-edit or an allow rule lets the edit run", async () => {
    ws = await createTempWorkspace({});
    const env = { HOME: ws.home };
    expect(
      (await runGantryTool("write_to_file", createNote(ws.root), { workspace: ws.root, env })).result
        .errorCode,
    ).toBe("denied");
    const edited = await runGantryTool("write_to_file", createNote(ws.root), {
      workspace: ws.root,
      env,
      extra: ["--approval-mode", "auto-edit"],
    });
    expect(edited.result.error).toBe(false);
    expect(await readFile(path.join(ws.root, "note.md"), "utf8")).toBe("hello\n");
    await ws.write(".agents/settings.json", JSON.stringify({ permissions: { allow: ["Edit(/other.md)"] } }));
    const other = { ...createNote(ws.root), TargetFile: "other.md" };
    // the workspace's own allow rule needs trust: ignored, and said so on stderr
    const untrusted = await runGantryTool("write_to_file", other, { workspace: ws.root, env });
    expect(untrusted.result.errorCode).toBe("denied");
    expect(untrusted.run.stderr).toContain(
      "gantry: .agents/settings.json: ignored permissions.allow (this folder is not trusted;",
    );
    const allowed = await runGantryTool("write_to_file", other, {
      workspace: ws.root,
      env,
      extra: ["--trust"],
    });
    expect(allowed.result.error).toBe(false);
  });

  it("run_command with --approval-mode default is denied with the flag and the Bash rule that would allow it", async () => {
    ws = await createTempWorkspace({});
    const { result } = await runGantryTool(
      "run_command",
      { CommandLine: "git status && touch pwned", Cwd: ws.root, WaitMsBeforeAsync: 5_000 },
      { workspace: ws.root, env: { HOME: ws.home }, extra: ["--approval-mode", "default"] },
    );
    expect(result).toMatchObject({ error: true, errorCode: "denied" });
    expect(result.text).toContain(
      // touch's own write is an edit of `pwned`: judged by Edit rules too
      'run with --approval-mode yolo or add "Bash(git status)", "Bash(touch pwned)", "Edit(/pwned)" to permissions.allow in ~/.agents/settings.json',
    );
    await expect(readFile(path.join(ws.root, "pwned"))).rejects.toThrow();
  });

  it("plan mode refuses edits outright; a bad mode is a usage error", async () => {
    ws = await createTempWorkspace({});
    const { result } = await runGantryTool("write_to_file", createNote(ws.root), {
      workspace: ws.root,
      env: { HOME: ws.home },
      extra: ["--approval-mode", "plan"],
    });
    expect(result.text).toContain("Denied by approval mode plan: plan mode runs read-only tools only");
    const bad = await runGantry(
      ["tool", "list_permissions", "{}", "--approval-mode", "sometimes", "--workspace", ws.root],
      {
        env: { HOME: ws.home },
      },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '--approval-mode must be one of default, auto-edit, yolo, plan; got "sometimes"',
    );
  });
});
