import { afterEach, beforeEach, expect, it } from "vitest";
import { runGantry } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

it("names a misspelled option with a did-you-mean and exits 2", async () => {
  const run = await runGantry(["-p", "hi", "--modle", "openai:gpt-4.1"], {
    cwd: ws.root,
    env: { HOME: ws.home },
  });
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('gantry: unknown option "--modle" (did you mean "--model"?)');
});

it("names a misspelled command with a did-you-mean", async () => {
  const run = await runGantry(["tols"], { cwd: ws.root, env: { HOME: ws.home } });
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('gantry: unknown command "tols" (did you mean "tools"?)');
});

it("offers no guess when nothing is close", async () => {
  const run = await runGantry(["--zzzzzzzz"], { cwd: ws.root, env: { HOME: ws.home } });
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('gantry: unknown option "--zzzzzzzz"\n');
});
