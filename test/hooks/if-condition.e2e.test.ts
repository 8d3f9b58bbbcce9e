import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { startModelServer } from "../support/model-server.js";
import { createTempWorkspace } from "../support/workspace.js";
import { E2E, gantryOn, sees, serverAndWorkspace, touch } from "./e2e-cli.js";

const t = serverAndWorkspace();

/** A Claude Code PreToolUse hook that allows what it is run for, limited by its handler's `if`. */
const allowingHook = (condition: unknown) =>
  JSON.stringify({
    hooks: {
      PreToolUse: [
        {
          matcher: "Bash",
          hooks: [
            {
              type: "command",
              if: condition,
              command: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`,
            },
          ],
        },
      ],
    },
  });

describe("Claude Code's if on a hook handler", () => {
  it("runs the handler only for calls the rule covers: its allow reaches nothing else", E2E, async () => {
    t.ws = await createTempWorkspace({ ".claude/settings.json": allowingHook("Bash(touch ok:*)") });
    t.server = await startModelServer([
      { toolCalls: [touch("ok"), touch("nope")] },
      { text: "done", expect: sees("Denied by approval mode default") },
    ]);
    // headless, default mode: a command nobody allows is denied
    const result = await gantryOn(t.server, t.ws, ["-p", "touch both"]);
    expect(result.code, result.stderr).toBe(0);
    t.server.assertDone();
    expect(existsSync(`${t.ws.root}/ok`)).toBe(true);
    expect(existsSync(`${t.ws.root}/nope`)).toBe(false);
  });

  it("matches each program of a command line, as permission rules do", E2E, async () => {
    t.ws = await createTempWorkspace({ ".claude/settings.json": allowingHook("Bash(touch ok:*)") });
    const chained = {
      name: "run_command",
      args: { CommandLine: "true && touch ok", Cwd: ".", WaitMsBeforeAsync: 10_000 },
    };
    t.server = await startModelServer([{ toolCalls: [chained] }, { text: "done" }]);
    const result = await gantryOn(t.server, t.ws, ["-p", "touch it"]);
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(`${t.ws.root}/ok`)).toBe(true);
  });

  it("an if that is not a permission rule stops the session, naming it", E2E, async () => {
    t.ws = await createTempWorkspace({
      ".claude/settings.json": allowingHook("tool_input.command matches 'git'"),
    });
    t.server = await startModelServer([]);
    const result = await gantryOn(t.server, t.ws, ["-p", "anything"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('.if: must be a permission rule such as "Bash(git push:*)"');
    expect(t.server.requests).toHaveLength(0);
  });
});
