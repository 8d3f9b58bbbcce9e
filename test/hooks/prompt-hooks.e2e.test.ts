import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { E2E, gantryOn, sees, touch } from "./e2e-cli.js";

let server: ModelServer | undefined;
let ws: TempWorkspace | undefined;
afterEach(async () => {
  await server?.close();
  await ws?.cleanup();
  server = undefined;
  ws = undefined;
});

/** Claude Code's prompt hook, as its docs write one. */
const promptHook = (event: string, matcher: string, prompt: string, timeout?: number) =>
  JSON.stringify({
    hooks: {
      [event]: [{ matcher, hooks: [{ type: "prompt", prompt, ...(timeout ? { timeout } : {}) }] }],
    },
  });

describe("Claude Code's prompt hooks, end to end", () => {
  it(
    "PreToolUse: the model judges the call with $ARGUMENTS; ok false denies it with the reason",
    E2E,
    async () => {
      ws = await createTempWorkspace({
        ".claude/settings.json": promptHook(
          "PreToolUse",
          "Bash",
          "Refuse any command that touches a file named secret. The call: $ARGUMENTS",
        ),
      });
      server = await startModelServer([
        { toolCalls: [touch("secret")] },
        // the judge: the hook's prompt with the event JSON in place of $ARGUMENTS
        {
          text: '{"ok": false, "reason": "it touches the secret"}',
          expect: sees("Refuse any command", '\\"tool_name\\":\\"Bash\\"', "touch secret"),
        },
        { text: "understood", expect: sees("it touches the secret") },
      ]);
      const result = await gantryOn(server, ws, ["-p", "touch the secret", "--approval-mode", "yolo"]);
      expect(result.code, result.stderr).toBe(0);
      server.assertDone();
      expect(existsSync(`${ws.root}/secret`)).toBe(false);
    },
  );

  it("PreToolUse: ok true lets the call run", E2E, async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": promptHook("PreToolUse", "Bash", "Allow harmless commands."),
    });
    server = await startModelServer([
      { toolCalls: [touch("harmless")] },
      { text: '```json\n{"ok": true}\n```', expect: sees("Allow harmless commands.", "touch harmless") },
      { text: "done" },
    ]);
    const result = await gantryOn(server, ws, ["-p", "touch it", "--approval-mode", "yolo"]);
    expect(result.code, result.stderr).toBe(0);
    server.assertDone();
    expect(existsSync(`${ws.root}/harmless`)).toBe(true);
  });

  it("Stop: ok false sends the agent on with the reason", E2E, async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": promptHook("Stop", "", "Has the agent written tests? $ARGUMENTS"),
    });
    server = await startModelServer([
      { text: "all done" },
      {
        text: '{"ok": false, "reason": "write the tests first"}',
        expect: sees("Has the agent written tests?"),
      },
      { text: "tests written", expect: sees("write the tests first") },
      { text: '{"ok": true}', expect: sees('\\"stop_hook_active\\":true') },
    ]);
    const result = await gantryOn(server, ws, ["-p", "do it", "--approval-mode", "yolo"]);
    expect(result.code, result.stderr).toBe(0);
    server.assertDone();
    expect(result.stdout).toContain("tests written");
  });

  it("a judge that does not answer in time fails open, said on stderr", E2E, async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": promptHook("PreToolUse", "Bash", "Judge this.", 1),
    });
    server = await startModelServer([{ toolCalls: [touch("late")] }, { hang: true }, { text: "done" }]);
    const result = await gantryOn(server, ws, ["-p", "touch it", "--approval-mode", "yolo"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("timed out after 1 s");
    expect(existsSync(`${ws.root}/late`)).toBe(true);
  });
});

describe("Qwen Code's prompt hooks, end to end", () => {
  it(
    "ok false denies the call and, as in Qwen Code, stops the agent; the timeout is in seconds",
    E2E,
    async () => {
      ws = await createTempWorkspace({
        ".qwen/settings.json": JSON.stringify({
          hooks: {
            PreToolUse: [
              {
                matcher: "run_shell_command",
                hooks: [{ type: "prompt", prompt: "Block writes to secret files: $ARGUMENTS", timeout: 20 }],
              },
            ],
          },
        }),
      });
      server = await startModelServer([
        { toolCalls: [touch("secret")] },
        {
          text: '{"ok": false, "reason": "secret files are off limits"}',
          expect: sees('\\"tool_name\\":\\"run_shell_command\\"'),
        },
      ]);
      const result = await gantryOn(server, ws, ["-p", "touch the secret", "--approval-mode", "yolo"]);
      expect(result.code, result.stderr).toBe(0);
      server.assertDone();
      expect(existsSync(`${ws.root}/secret`)).toBe(false);
      expect(result.stderr).toContain("stopped the agent: secret files are off limits");
    },
  );
});
