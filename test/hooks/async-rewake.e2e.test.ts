import { expect, it } from "vitest";
import { startModelServer } from "../support/model-server.js";
import { createTempWorkspace } from "../support/workspace.js";
import { E2E, gantryOn, sees, serverAndWorkspace, touch } from "./e2e-cli.js";

const t = serverAndWorkspace();

// Claude Code's asyncRewake: a background hook (a slow linter after each edit) whose exit 2 wakes the
// agent with its stderr, after the agent's turn has ended.
it("an asyncRewake hook's exit 2 starts the agent's next turn with its stderr", E2E, async () => {
  const lint = `sleep 0.5; echo "lint: 2 errors found" >&2; exit 2`;
  t.ws = await createTempWorkspace({
    ".claude/settings.json": JSON.stringify({
      hooks: {
        PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: lint, asyncRewake: true }] }],
      },
    }),
  });
  t.server = await startModelServer([
    { toolCalls: [touch("made")] },
    { text: "all done" },
    // the hook's report arrives after the turn: a new one starts for it
    { text: "fixing the lint errors", expect: sees("The background hook", "lint: 2 errors found") },
  ]);
  const result = await gantryOn(t.server, t.ws, ["-p", "make it", "--approval-mode", "yolo"]);
  expect(result.code, result.stderr).toBe(0);
  expect(t.server.failures, result.stderr + result.stdout).toEqual([]);
  t.server.assertDone();
  expect(result.stdout).toContain("fixing the lint errors");
});
