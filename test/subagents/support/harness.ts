import { mkdirSync } from "node:fs";
import path from "node:path";
import { type Conversation, createConversation } from "../../../src/agent/conversation.js";
import type { AgentEvent } from "../../../src/agent/events.js";
import { type AgentRunResult, runAgentLoop } from "../../../src/agent/loop.js";
import { createGantrySession, type GantrySession } from "../../../src/gantry.js";
import { createModelClient, type ModelClient } from "../../../src/models/client.js";
import { createLanguageModel } from "../../../src/models/provider.js";
import { type ModelServer, type ScriptedTurn, startModelServer } from "../../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";
import { type ModelRouter, startModelRouter } from "./model-router.js";

/** Marks every request of the main agent (it is in its system prompt; plain subagents never see it). */
export const MAIN_MARKER = "MAIN-AGENT-7f3a";

export interface Harness {
  ws: TempWorkspace;
  session: GantrySession;
  model: ModelClient;
  conversation: Conversation;
  system: string;
  events: AgentEvent[];
  servers: Record<string, ModelServer>;
  router: ModelRouter;
  transcriptDir: string;
  run(prompt: string, options?: { waitForHeldWork?: boolean }): Promise<AgentRunResult>;
  close(): Promise<void>;
}

/**
 * The real agent loop on a real Gantry session, against scripted model servers behind a router:
 * `scripts` maps a marker found in a request to the turns that answer it (checked in order, so put
 * fork markers before MAIN_MARKER: a fork's requests carry the main agent's system prompt).
 */
export async function startHarness(
  scripts: [marker: string, turns: ScriptedTurn[]][],
  options: { files?: Record<string, string>; prepare?: (ws: TempWorkspace) => Promise<void> | void } = {},
): Promise<Harness> {
  const ws = await createTempWorkspace(options.files ?? {});
  await options.prepare?.(ws);
  const servers: Record<string, ModelServer> = {};
  for (const [marker, turns] of scripts) servers[marker] = await startModelServer(turns);
  const router = await startModelRouter(
    scripts.map(([marker]) => ({ marker, server: servers[marker] as ModelServer })),
  );
  const session = createGantrySession({ workspace: ws.root, home: ws.home, trust: true });
  const made = createLanguageModel({
    model: "openai:scripted",
    baseUrl: router.baseUrl("openai"),
    env: { OPENAI_API_KEY: "test" },
  });
  if (!made.ok) throw new Error(made.message);
  const model = createModelClient(made.value.spec, made.value.model, 100_000);
  const conversation = createConversation();
  const system = `You are the main agent (${MAIN_MARKER}).`;
  const events: AgentEvent[] = [];
  const transcriptDir = path.join(ws.parent, "session.agents");
  mkdirSync(transcriptDir);
  session.subagents.bind({
    model,
    mainConversation: conversation,
    mainSystem: system,
    transcriptDir,
    onEvent: (event) => events.push(event),
  });
  return {
    ws,
    session,
    model,
    conversation,
    system,
    events,
    servers,
    router,
    transcriptDir,
    run: (prompt, runOptions = {}) =>
      runAgentLoop(conversation, model, session.pipeline, {
        system,
        input: [{ role: "user", text: prompt }],
        inbox: session.inbox,
        waitForHeldWork: runOptions.waitForHeldWork ?? true,
        retry: { maxAttempts: 1 },
        onEvent: (event) => events.push(event),
      }),
    async close() {
      await session.dispose();
      await router.close();
      for (const server of Object.values(servers)) await server.close();
      await ws.cleanup();
    },
  };
}

/** Every scripted server served its whole script and saw nothing unexpected. */
export function assertScriptsDone(harness: Harness): void {
  if (harness.router.unrouted.length > 0)
    throw new Error(`unrouted requests:\n${harness.router.unrouted.join("\n")}`);
  for (const [marker, server] of Object.entries(harness.servers)) {
    try {
      server.assertDone();
    } catch (cause) {
      throw new Error(`${marker}: ${(cause as Error).message}`);
    }
  }
}

/** The OpenAI-protocol messages of a recorded request. */
export function messagesOf(request: {
  body: Record<string, unknown>;
}): { role: string; content?: unknown; tool_call_id?: string }[] {
  return request.body.messages as { role: string; content?: unknown; tool_call_id?: string }[];
}

export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (part as { text?: string }).text ?? "").join("");
  return "";
}
