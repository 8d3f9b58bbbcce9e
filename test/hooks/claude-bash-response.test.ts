import { readFileSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import { runGantryTool } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

// Claude Code hooks that read a Bash result (a test runner's summary, a linter's count) parse
// tool_response.stdout: it must hold the command's output, not Gantry's status line before it.
it("gives a Claude Code PostToolUse hook the command's own output as tool_response.stdout", async () => {
  ws = await createTempWorkspace({
    ".claude/settings.json": JSON.stringify({
      hooks: {
        PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "cat > response.json" }] }],
      },
    }),
  });
  const { result } = await runGantryTool(
    "run_command",
    { CommandLine: "echo '3 passed'; exit 1", Cwd: ".", WaitMsBeforeAsync: 10_000 },
    { workspace: ws.root, env: { HOME: ws.home }, extra: ["--approval-mode", "yolo", "--trust"] },
  );
  expect(result.text).toMatch(/^Exit code 1 after .*\n3 passed$/);
  const input = JSON.parse(readFileSync(`${ws.root}/response.json`, "utf8"));
  expect(input.tool_response).toMatchObject({
    stdout: "3 passed",
    stderr: "",
    interrupted: false,
    isImage: false,
    metadata: { exitCode: 1 },
  });
});
