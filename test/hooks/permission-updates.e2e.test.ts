import { existsSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { E2E, gantryOn, sees } from "./e2e-cli.js";

let server: ModelServer | undefined;
let ws: TempWorkspace | undefined;
afterEach(async () => {
  await server?.close();
  await ws?.cleanup();
  server = undefined;
  ws = undefined;
});

/** A Claude Code PermissionRequest hook on Bash that logs each question and answers with `decision`. */
const permissionHook = (decision: unknown) =>
  JSON.stringify({
    hooks: {
      PermissionRequest: [
        {
          matcher: "Bash",
          hooks: [
            {
              type: "command",
              command: `cat >> "$CLAUDE_PROJECT_DIR/../asked.jsonl"; echo >> "$CLAUDE_PROJECT_DIR/../asked.jsonl"; echo '${JSON.stringify({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision } })}'`,
            },
          ],
        },
      ],
    },
  });

const run = (command: string) => ({
  name: "run_command",
  args: { CommandLine: command, Cwd: ".", WaitMsBeforeAsync: 10_000 },
});
const asked = () =>
  readFileSync(`${ws?.parent}/asked.jsonl`, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { tool_input: { command: string } });

describe("PermissionRequest's updatedInput and updatedPermissions (Claude Code), end to end", () => {
  it("allow with updatedInput runs the changed call, merged over the original", E2E, async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": permissionHook({
        behavior: "allow",
        updatedInput: { command: "echo changed > changed.txt" },
      }),
    });
    server = await startModelServer([{ toolCalls: [run("echo original > original.txt")] }, { text: "ok" }]);
    const result = await gantryOn(server, ws, ["-p", "go"]);
    expect(result.code, result.stderr).toBe(0);
    server.assertDone();
    expect(existsSync(`${ws.root}/original.txt`)).toBe(false);
    expect(readFileSync(`${ws.root}/changed.txt`, "utf8").trim()).toBe("changed");
  });

  it("the changed input is judged by the rules again: a deny rule still holds", E2E, async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": permissionHook({
        behavior: "allow",
        updatedInput: { command: "rm -f keep.txt" },
      }),
      ".agents/settings.json": JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }),
      "keep.txt": "precious",
    });
    server = await startModelServer([
      { toolCalls: [run("echo harmless")] },
      { text: "ok", expect: sees("Denied") },
    ]);
    const result = await gantryOn(server, ws, ["-p", "go"]);
    expect(result.code, result.stderr).toBe(0);
    server.assertDone();
    expect(readFileSync(`${ws.root}/keep.txt`, "utf8")).toBe("precious");
  });

  it("updatedPermissions' session allow rules answer later calls without asking", E2E, async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": permissionHook({
        behavior: "allow",
        updatedPermissions: [
          {
            type: "addRules",
            rules: [{ toolName: "Bash", ruleContent: "python3:*" }],
            behavior: "allow",
            destination: "session",
          },
        ],
      }),
    });
    const python = (file: string) => run(`python3 -c "open('${file}', 'w')"`);
    server = await startModelServer([
      { toolCalls: [python("one.txt")] },
      { toolCalls: [python("two.txt")] },
      { toolCalls: [run("echo three > three.txt")] },
      { text: "ok" },
    ]);
    const result = await gantryOn(server, ws, ["-p", "go"]);
    expect(result.code, result.stderr).toBe(0);
    server.assertDone();
    expect(existsSync(`${ws.root}/one.txt`)).toBe(true);
    expect(existsSync(`${ws.root}/two.txt`)).toBe(true);
    expect(existsSync(`${ws.root}/three.txt`)).toBe(true);
    // the second python3 was covered by the rule the hook added; the echo was asked again
    expect(asked().map((e) => e.tool_input.command)).toEqual([
      `python3 -c "open('one.txt', 'w')"`,
      "echo three > three.txt",
    ]);
  });

  it(
    "updatedPermissions cannot change the approval mode or save rules to files: a warning says so",
    E2E,
    async () => {
      ws = await createTempWorkspace({
        ".claude/settings.json": permissionHook({
          behavior: "allow",
          updatedPermissions: [
            { type: "setMode", mode: "bypassPermissions", destination: "session" },
            {
              type: "addRules",
              rules: [{ toolName: "Bash", ruleContent: "touch:*" }],
              behavior: "allow",
              destination: "userSettings",
            },
          ],
        }),
      });
      server = await startModelServer([{ toolCalls: [run("touch one.txt")] }, { text: "ok" }]);
      const result = await gantryOn(server, ws, ["-p", "go"]);
      expect(result.code, result.stderr).toBe(0);
      expect(existsSync(`${ws.root}/one.txt`)).toBe(true);
      expect(result.stderr).toContain('setMode "bypassPermissions" is not applied');
      expect(result.stderr).toContain("kept for this session only");
      expect(existsSync(`${ws.home}/.claude/settings.json`)).toBe(false);
    },
  );
});
