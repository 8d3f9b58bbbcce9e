import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { pidsWith, uniqueMarker } from "../tools/exec/helpers.js";
import { E2E, gantryOn, sees } from "./e2e-cli.js";

let server: ModelServer | undefined;
let ws: TempWorkspace | undefined;
afterEach(async () => {
  await server?.close();
  await ws?.cleanup();
  server = undefined;
  ws = undefined;
});

const asyncHook = (event: string, matcher: string, command: string) =>
  JSON.stringify({
    hooks: { [event]: [{ matcher, hooks: [{ type: "command", command, async: true, timeout: 120 }] }] },
  });

const run = (command: string) => ({
  name: "run_command",
  args: { CommandLine: command, Cwd: ".", WaitMsBeforeAsync: 60_000 },
});

describe("Claude Code's async hooks, end to end", () => {
  it(
    "run beside the call without holding it; a decision has no effect (said on stderr); context reaches the model's next call",
    E2E,
    async () => {
      // the hook waits for the file the call itself creates: a hook the call waited for would never see it
      const hook = `cat > /dev/null; d="$CLAUDE_PROJECT_DIR/.."
while [ ! -f "$d/call-ran" ]; do sleep 0.05; done
touch "$d/hook-done"
echo '{"decision":"block","reason":"too late","systemMessage":"audit finished","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","additionalContext":"audit: the call was logged"}}'`;
      ws = await createTempWorkspace({ ".claude/settings.json": asyncHook("PreToolUse", "Bash", hook) });
      // the next model call waits until the hook has answered (and a second for it to be read)
      const call = run(
        'touch ../call-ran; while [ ! -f ../hook-done ]; do sleep 0.05; done; sleep 1; echo "call done"',
      );
      server = await startModelServer([
        { toolCalls: [call] },
        { text: "done", expect: sees("audit: the call was logged") },
      ]);
      const result = await gantryOn(server, ws, ["-p", "run it", "--approval-mode", "yolo"]);
      expect(result.code, result.stderr).toBe(0);
      server.assertDone();
      expect(existsSync(`${ws.parent}/call-ran`)).toBe(true);
      expect(result.stderr).toContain("async hooks run in the background and cannot decide");
      expect(result.stderr).toContain("audit finished");
      expect(result.stdout).toContain("done");
    },
  );

  it("one still running when the session ends is ended with it: no process is left behind", E2E, async () => {
    const marker = uniqueMarker();
    const hook = `cat > /dev/null; touch "$CLAUDE_PROJECT_DIR/../hook-started"; sleep ${marker}`;
    ws = await createTempWorkspace({ ".claude/settings.json": asyncHook("SessionStart", "", hook) });
    server = await startModelServer([
      // the model's call waits until the hook runs, so the hook surely started before the session ends
      { toolCalls: [run("while [ ! -f ../hook-started ]; do sleep 0.05; done")] },
      { text: "bye" },
    ]);
    const result = await gantryOn(server, ws, ["-p", "hello", "--approval-mode", "yolo"]);
    expect(result.code, result.stderr).toBe(0);
    server.assertDone();
    expect(existsSync(`${ws.parent}/hook-started`)).toBe(true);
    expect(pidsWith(marker)).toEqual([]);
    expect(result.stderr).toContain("still running when the session ended: ended");
  });
});
