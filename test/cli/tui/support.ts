import { afterEach } from "vitest";
import type { ModelServer } from "../../support/model-server.js";
import { startGantryInTmux, type TmuxTerminal } from "../../support/tmux.js";
import type { TempWorkspace } from "../../support/workspace.js";

export { HAS_TMUX } from "../../support/tmux.js";

export interface TuiResources {
  server?: ModelServer;
  ws?: TempWorkspace;
  term?: TmuxTerminal;
}

/** The test's model server, workspace and terminal (set them in each test), ended after each one. */
export function tuiResources(): TuiResources {
  const state: TuiResources = {};
  afterEach(async () => {
    await state.term?.close();
    await state.server?.close();
    await state.ws?.cleanup();
    state.term = state.server = state.ws = undefined;
  });
  return state;
}

/** Each test starts node, the AI SDK and tmux: slow on a busy machine. */
export const TUI_TEST = { timeout: 120_000 };

export interface TuiStart {
  /** `provider:model-id`; default `openai:test-model`. */
  model?: string;
  args?: string[];
  env?: Record<string, string>;
  width?: number;
  height?: number;
}

/** `gantry` in a real terminal (tmux) against the scripted model server, in the temp workspace. */
export function startTui(
  server: ModelServer,
  ws: TempWorkspace,
  start: TuiStart = {},
): Promise<TmuxTerminal> {
  const model = start.model ?? "openai:test-model";
  const protocol = model.startsWith("anthropic:")
    ? "anthropic"
    : model.startsWith("google:")
      ? "gemini"
      : "openai";
  return startGantryInTmux(
    ["--model", model, "--base-url", server.baseUrl(protocol), "--workspace", ws.root, ...(start.args ?? [])],
    {
      env: {
        HOME: ws.home,
        OPENAI_API_KEY: "test-key",
        ANTHROPIC_API_KEY: "test-key",
        GEMINI_API_KEY: "test-key",
        NO_COLOR: "",
        ...start.env,
      },
      ...(start.width ? { width: start.width } : {}),
      ...(start.height ? { height: start.height } : {}),
    },
  );
}

/** The editor's empty prompt: the UI is up and waits for input. */
export const READY = "> Type a request";

/** gantry started in the test's terminal against its model server and workspace, once its prompt shows (kept in
 * `tui.term` before the wait, so a failed start is closed too). */
export async function openTui(tui: TuiResources, start: TuiStart = {}): Promise<TmuxTerminal> {
  if (!tui.server || !tui.ws) throw new Error("openTui needs the test's model server and workspace first");
  tui.term = await startTui(tui.server, tui.ws, start);
  await tui.term.waitFor(READY);
  return tui.term;
}
