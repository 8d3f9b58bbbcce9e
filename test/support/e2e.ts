import { afterEach } from "vitest";
import { runGantry } from "./cli.js";
import type { ModelServer, RecordedRequest } from "./model-server.js";
import type { TempWorkspace } from "./workspace.js";

/** CLI runs spawn node and load the AI SDK: slow on a busy machine. */
export const E2E = { timeout: 120_000 };

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

/**
 * `gantry <args>` on the workspace against the scripted model server, with HOME set to the test's;
 * trusted unless `trust: false`, and `input` as its standard input.
 */
export function gantryOn(
  server: ModelServer | undefined,
  ws: TempWorkspace | undefined,
  args: string[],
  options: { trust?: boolean; input?: string } = {},
) {
  if (!server || !ws) throw new Error("start the server and the workspace first");
  const model = ["--model", "openai:test-model", "--base-url", server.baseUrl("openai")];
  const trust = options.trust === false ? [] : ["--trust"];
  return runGantry([...args, ...model, "--workspace", ws.root, ...trust], {
    env: { HOME: ws.home, OPENAI_API_KEY: "test-key" },
    timeoutMs: 90_000,
    ...(options.input !== undefined ? { input: options.input } : {}),
  });
}

/** A scripted turn's check: the model was sent every one of these texts. */
export const sees =
  (...texts: string[]) =>
  (request: RecordedRequest) => {
    for (const text of texts)
      if (!request.text.includes(text)) throw new Error(`the model was not sent "${text}"`);
  };
