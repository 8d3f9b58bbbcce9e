import { existsSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runGantry } from "../support/cli.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { E2E, sees } from "./e2e-cli.js";

let server: ModelServer | undefined;
let ws: TempWorkspace | undefined;
afterEach(async () => {
  await server?.close();
  await ws?.cleanup();
  server = undefined;
  ws = undefined;
});

// Claude Code's SessionStart hooks persist variables for the session's commands by writing `export`
// lines to $CLAUDE_ENV_FILE (a version manager's PATH, a project's settings).
const sessionStart = (lines: string[]) =>
  JSON.stringify({
    hooks: {
      SessionStart: [
        {
          hooks: [
            {
              type: "command",
              // the log lies beside the workspace: a workspace file a hook command names is pinned by trust
              command: `echo "$CLAUDE_ENV_FILE" > "$CLAUDE_PROJECT_DIR/../env-file-path"; ${lines.map((line) => `echo '${line}' >> "$CLAUDE_ENV_FILE"`).join("; ")}`,
            },
          ],
        },
      ],
    },
  });
const show = {
  name: "run_command",
  args: { CommandLine: 'echo "[$GREETING] [$PATH] [${DROPPED-unset}]"', Cwd: ".", WaitMsBeforeAsync: 10_000 },
};

function gantry(extra: string[] = []) {
  if (!server || !ws) throw new Error("start the server and the workspace first");
  return runGantry(
    [
      "-p",
      "show the variables",
      "--approval-mode",
      "yolo",
      "--trust",
      "--workspace",
      ws.root,
      ...extra,
      "--model",
      "openai:test-model",
      "--base-url",
      server.baseUrl("openai"),
    ],
    { env: { HOME: ws.home, OPENAI_API_KEY: "test-key", DROPPED: "was set" }, timeoutMs: 90_000 },
  );
}

describe("SessionStart hooks' CLAUDE_ENV_FILE", () => {
  for (const sandbox of [false, true])
    it(
      `reaches every later command${sandbox ? " in the sandbox" : ""}: set, appended to and unset; the file goes with the session`,
      E2E,
      async () => {
        ws = await createTempWorkspace({
          ".claude/settings.json": sessionStart([
            'export GREETING="hello from the hook"',
            'export PATH="$PATH:/opt/from-hook/bin"',
            "unset DROPPED",
          ]),
        });
        server = await startModelServer([
          { toolCalls: [show] },
          { text: "seen", expect: sees("[hello from the hook]", ":/opt/from-hook/bin]", "[unset]") },
        ]);
        const result = await gantry(sandbox ? ["--sandbox"] : []);
        expect(result.code, result.stderr).toBe(0);
        server.assertDone();
        const file = readFileSync(`${ws.parent}/env-file-path`, "utf8").trim();
        expect(file).not.toBe("");
        expect(existsSync(file)).toBe(false);
      },
    );

  it(
    "a session whose hooks write nothing runs its commands with the environment unchanged",
    E2E,
    async () => {
      ws = await createTempWorkspace({ ".claude/settings.json": sessionStart([]) });
      server = await startModelServer([
        { toolCalls: [show] },
        { text: "seen", expect: sees("[] [", "[was set]") },
      ]);
      const result = await gantry();
      expect(result.code, result.stderr).toBe(0);
      server.assertDone();
    },
  );
});
