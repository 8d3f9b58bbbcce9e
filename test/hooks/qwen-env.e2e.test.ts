import { existsSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
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

// Qwen Code's command handlers may set variables of their own (`env`): a guard that reads its mode from
// one would run lenient without it.
it("a Qwen Code command hook runs with its handler's env", E2E, async () => {
  const gate = `if [ "$GATE_MODE" = strict ]; then echo "strict gate: no commands" >&2; exit 2; fi`;
  ws = await createTempWorkspace({
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
  server = await startModelServer([
    { toolCalls: [touch("ran")] },
    { text: "blocked", expect: sees("strict gate: no commands") },
  ]);
  const result = await gantryOn(server, ws, ["-p", "touch it", "--approval-mode", "yolo"]);
  expect(result.code, result.stderr).toBe(0);
  server.assertDone();
  expect(existsSync(`${ws.root}/ran`)).toBe(false);
});
