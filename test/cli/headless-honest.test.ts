import { afterEach, expect, it } from "vitest";
import { runGantry } from "../support/cli.js";
import { type ModelServer, type ScriptedTurn, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

const E2E = { timeout: 120_000 };
let server: ModelServer | undefined;
let ws: TempWorkspace | undefined;
afterEach(async () => {
  await server?.close();
  await ws?.cleanup();
});

async function headless(turns: ScriptedTurn[], format: string) {
  ws = await createTempWorkspace({ "a.txt": "a\n" });
  server = await startModelServer(turns);
  const args = ["-p", "go", "--model", "openai-compatible:local", "--base-url", server.baseUrl("openai")];
  return runGantry([...args, "--workspace", ws.root, "--output-format", format], {
    env: { HOME: ws.home, GANTRY_RETRY_BASE_MS: "1" },
    timeoutMs: 60_000,
  });
}

it("says on stderr that a cut answer is cut, and exits 1", E2E, async () => {
  const run = await headless([{ text: "Half an ans", cutOff: true }], "json");
  expect(run.code).toBe(1);
  const result = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}");
  expect(result).toMatchObject({ subtype: "error_max_tokens", is_error: true, result: "Half an ans" });
  expect(result.error).toContain("cut off by the model's output limit");
});

it("says on stderr which tool calls were denied in a headless run", E2E, async () => {
  const command = { CommandLine: "echo hi", Cwd: ".", WaitMsBeforeAsync: 1000 };
  const run = await headless(
    [{ toolCalls: [{ name: "run_command", args: command }] }, { text: "I could not run it." }],
    "text",
  );
  expect(run.code).toBe(0);
  expect(run.stdout).toBe("I could not run it.\n");
  expect(run.stderr).toContain(
    "gantry: 1 tool call was denied in this run (run_command); the first: Denied by approval mode default",
  );
});

it("prints the model's reasoning as thinking events in stream-json", E2E, async () => {
  const run = await headless([{ reasoning: "Pondering.", text: "Done." }], "stream-json");
  const lines = run.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  const thinking = lines.filter((line) => line.type === "thinking").map((line) => line.text);
  expect(thinking.join("")).toBe("Pondering.");
  const assistant = lines.find((line) => line.type === "assistant");
  expect(assistant.message.content[0]).toEqual({ type: "thinking", thinking: "Pondering." });
});
