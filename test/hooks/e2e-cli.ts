import { afterEach } from "vitest";
import { runGantry } from "../support/cli.js";
import type { ModelServer, RecordedRequest } from "../support/model-server.js";
import type { TempWorkspace } from "../support/workspace.js";

/** CLI runs spawn node and load the AI SDK: slow on a busy machine. */
export const E2E = { timeout: 120_000 };

/** `gantry <args>` on the workspace (trusted), against the scripted model server, with HOME set to the test's. */
export function gantryOn(server: ModelServer | undefined, ws: TempWorkspace | undefined, args: string[]) {
  if (!server || !ws) throw new Error("start the server and the workspace first");
  const model = ["--model", "openai:test-model", "--base-url", server.baseUrl("openai")];
  return runGantry([...args, ...model, "--workspace", ws.root, "--trust"], {
    env: { HOME: ws.home, OPENAI_API_KEY: "test-key" },
    timeoutMs: 90_000,
  });
}

/** A scripted turn's check: the model was sent every one of these texts. */
export const sees =
  (...texts: string[]) =>
  (request: RecordedRequest) => {
    for (const text of texts)
      if (!request.text.includes(text)) throw new Error(`the model was not sent "${text}"`);
  };

/** The scripted model's run_command call that creates `file` in the workspace. */
export const touch = (file: string) => ({
  name: "run_command",
  args: { CommandLine: `touch ${file}`, Cwd: ".", WaitMsBeforeAsync: 10_000 },
});

/** The test's model server and workspace (set them in each test), closed and removed after each one. */
export function serverAndWorkspace(): { server?: ModelServer; ws?: TempWorkspace } {
  const state: { server?: ModelServer; ws?: TempWorkspace } = {};
  afterEach(async () => {
    await state.server?.close();
    await state.ws?.cleanup();
    state.server = undefined;
    state.ws = undefined;
  });
  return state;
}
