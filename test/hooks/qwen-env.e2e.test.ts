import { existsSync } from "node:fs";
import { expect, it } from "vitest";
import { startModelServer } from "../support/model-server.js";
import { createTempWorkspace } from "../support/workspace.js";
import { E2E, gantryOn, sees, serverAndWorkspace, touch } from "./e2e-cli.js";

const t = serverAndWorkspace();

// Qwen Code's command handlers may set variables of their own (`env`): a guard that reads its mode from
// one would run lenient without it.
it("a Qwen Code command hook runs with its handler's env", E2E, async () => {
  const gate = `if [ "$GATE_MODE" = strict ]; then echo "strict gate: no commands" >&2; exit 2; fi`;
  t.ws = await createTempWorkspace({
    ".qwen/settings.json": JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: "run_shell_command",
            hooks: [{ type: "command", command: gate, env: { GATE_MODE: "strict" } }],
          },
        ],
      },
    }),
  });
  t.server = await startModelServer([
    { toolCalls: [touch("ran")] },
    { text: "blocked", expect: sees("strict gate: no commands") },
  ]);
  const result = await gantryOn(t.server, t.ws, ["-p", "touch it", "--approval-mode", "yolo"]);
  expect(result.code, result.stderr).toBe(0);
  t.server.assertDone();
  expect(existsSync(`${t.ws.root}/ran`)).toBe(false);
});
