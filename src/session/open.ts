import { buildSystemPrompt, estimateTokens } from "../agent/context.js";
import { type Conversation, type ConversationMessage, createConversation } from "../agent/conversation.js";
import type { AgentEvent } from "../agent/events.js";
import { loadProjectInstructions } from "../agent/instructions.js";
import { type AgentLoopOptions, type AgentRunResult, runAgentLoop } from "../agent/loop.js";
import { readSessionArtifacts } from "../artifacts/session-artifacts.js";
import { createSessionEvents, type SessionEvents } from "../cli/session-events.js";
import type { GantrySession } from "../gantry.js";
import { loopHooksFor } from "../hooks/loop-bridge.js";
import { createModelClient, type ModelClient } from "../models/client.js";
import { contextWindowFor } from "../models/context-windows.js";
import { probeServerWindow } from "../models/local-window.js";
import { createLanguageModel } from "../models/provider.js";
import { transcriptDirFor } from "../subagents/transcript.js";
import { compactDeclarations } from "../tools/compact.js";
import type { ToolDeclaration } from "../tools/registry.js";
import { newSessionId, openSession, type SessionWriter, sessionsDir } from "./jsonl.js";

/** What every front end (`gantry -p`, the terminal UI, createAgent, the ACP agent) opens a conversation with. */
export interface ConversationSetup {
  session: GantrySession;
  /** Where `~/.gantry/sessions` is. */
  home: string;
  /** `provider:model-id`, or a client made elsewhere. */
  model: string | ModelClient | undefined;
  baseUrl?: string;
  env: Record<string, string | undefined>;
  /** The context window in tokens, over settings and what a server says. */
  contextWindow?: number;
  /** A session id (or unique prefix) to continue, or "last" for the workspace's most recent one. */
  resume?: string;
  /** false: nothing is written to disk (the conversation lives only in this process). Default true. */
  save?: boolean;
  /** Added to the system prompt (an embedder's instructions). */
  systemExtra?: string;
  /** Subagents' events (they carry their own agentId). */
  onSubagentEvent?(event: AgentEvent): void;
  /** Who drives the session: the interactive one hears idle notifications; default "library". */
  frontEnd?: "headless" | "interactive" | "library";
}

export interface RunRequest {
  signal?: AbortSignal;
  onEvent?(event: AgentEvent): void;
  maxTurns?: number;
  /** Headless: stay while background work may still post to the inbox. */
  waitForHeldWork?: boolean;
  /** Awaited before each call runs (see AgentLoopOptions). */
  beforeToolRuns?: AgentLoopOptions["beforeToolRuns"];
}

/**
 * An open conversation's state. The model and the session file of the next turn may change (the
 * terminal UI's /model, /clear, /resume: src/cli/session-controls.ts); the conversation stays one object
 * (forks hold it) whose messages change.
 */
export interface ConversationState {
  session: GantrySession;
  conversation: Conversation;
  current: { model: ModelClient; writer: SessionWriter };
  system: string;
  /** The system prompt for the session file in use (it names that session's artifacts). */
  buildSystem(): string;
  declarations: ToolDeclaration[];
  /** This workspace's sessions folder. */
  sessions: string;
  /** The session's hook events (SessionStart, UserPromptSubmit, SessionEnd, ...). */
  events: SessionEvents;
  makeModel(spec: string): ModelClient | string;
  /** Gives the subagents the current model, conversation and transcript folder (again, after a switch). */
  bindSubagents(): void;
}

/** One conversation: its model, its session file, its system prompt, and runs of the loop on it. */
export interface OpenConversation {
  state: ConversationState;
  /** Where the model's context window came from: `settings`, `the model's name`, `llama.cpp /props`, ... */
  windowSource: string;
  /** What the user should know before the first turn (a prompt that fills the window, damaged session lines). */
  notices: string[];
  /** One run of the agent loop; every event is saved, then handed to `onEvent`. */
  run(input: ConversationMessage[], request: RunRequest): Promise<AgentRunResult>;
  /**
   * Closes the session file after the SessionEnd hooks (they hear `reason`; by default the front end's:
   * `prompt_input_exit` interactive, else `other`). The Gantry session is the caller's to dispose.
   */
  close(reason?: string): Promise<void>;
}

/** Share of the context window the system prompt and tool declarations may take before Gantry says so. */
const CROWDED_SHARE = 0.5;

export async function openConversation(
  setup: ConversationSetup,
): Promise<OpenConversation | { error: string }> {
  const { session } = setup;
  const made = await mainModel(setup);
  if (typeof made === "string") return { error: made };
  const opened = openSessionRecord(setup, made.model.id);
  if (!opened.ok) return { error: opened.message };
  session.identify({ sessionId: opened.writer.id, transcriptPath: opened.writer.file });
  const frontEnd = setup.frontEnd ?? "library";
  // the model and file of the moment: /model, /clear and /resume change them
  const current = { model: made.model, writer: opened.writer };
  const events = createSessionEvents({
    hooks: session.hooks,
    model: () => current.model.id,
    interactive: frontEnd === "interactive",
    idleSeconds: session.settings.hooks?.idleNotificationSeconds,
  });
  await events.start(opened.conversation.messages.length > 0 ? "resume" : "startup");
  // the main agent's MCP servers start now (in parallel), so their tools are in the first prompt;
  // one that fails is said in a notice and started again when one of its tools is next called
  const mcpFailures = await session.mcp.startMain();
  const declarations = declarationsFor(session);
  // a resumed session knows the artifacts it made (its log records them)
  if (opened.writer.file)
    for (const artifact of readSessionArtifacts(opened.writer.file)) session.artifacts.add(artifact);
  // instruction files left out (a link out of the workspace, a secret) are said once, at the start
  const skippedInstructions: string[] = [];
  const buildSystem = (skipped?: string[]) =>
    buildSystemPrompt({
      workspaceRoot: session.workspace.root,
      declarations,
      instructions: loadProjectInstructions(session.workspace.root, {
        home: setup.home,
        isSecret: (rel) => session.workspace.secrets.isSecret(rel),
        ...(skipped ? { skipped } : {}),
      }),
      skills: session.skills.skills,
      artifacts: session.artifacts.list(),
      ...(setup.systemExtra ? { extra: setup.systemExtra } : {}),
    });
  const system = buildSystem(skippedInstructions);
  const state: ConversationState = {
    session,
    conversation: opened.conversation,
    current,
    system,
    buildSystem,
    declarations,
    sessions: sessionsDir(setup.home, session.workspace.root),
    events,
    makeModel: (spec) => modelClientFor(setup, spec),
    // subagents share the model and the event stream (their events carry their own agentId)
    bindSubagents: () =>
      session.subagents.bind({
        model: state.current.model,
        mainConversation: state.conversation,
        mainSystem: state.system,
        ...(state.current.writer.file ? { transcriptDir: transcriptDirFor(state.current.writer.file) } : {}),
        ...(setup.baseUrl ? { baseUrl: setup.baseUrl } : {}),
        modelFor: (spec) => modelClientFor(setup, spec),
        ...(setup.onSubagentEvent ? { onEvent: setup.onSubagentEvent } : {}),
      }),
  };
  state.bindSubagents();
  return {
    state,
    windowSource: made.windowSource,
    notices: [
      ...opened.notices,
      ...skippedInstructions,
      ...mcpFailures,
      ...crowdedNotice(system, declarations, made.model),
    ],
    run: (input, request) => runOn(state, setup.env, input, request),
    async close(reason) {
      await events.end(reason ?? (frontEnd === "interactive" ? "prompt_input_exit" : "other"));
      state.current.writer.close();
    },
  };
}

/** One run: the prompt through UserPromptSubmit hooks, then the loop with this agent's lifecycle hooks. */
async function runOn(
  state: ConversationState,
  env: ConversationSetup["env"],
  input: ConversationMessage[],
  request: RunRequest,
): Promise<AgentRunResult> {
  const maxTurns = request.maxTurns ?? state.session.settings.maxTurns;
  const { model, writer } = state.current;
  const onEvent = (event: AgentEvent) => {
    writer.record(event);
    request.onEvent?.(event);
  };
  const signal = request.signal ?? new AbortController().signal;
  const admitted = await state.events.admit(input, signal);
  if ("refused" in admitted) return state.events.refuse(admitted.refused, state.conversation, onEvent);
  const hooks = loopHooksFor(state.session.hooks, {
    agentId: "main",
    model: model.id,
    prompt: () => admitted.prompt,
    toolSpec: (name) => state.session.registry.lookup(name)?.spec,
  });
  try {
    return await runAgentLoop(state.conversation, model, state.session.pipeline, {
      system: state.system,
      tools: state.declarations,
      input: admitted.input,
      signal,
      inbox: state.session.inbox,
      waitForHeldWork: request.waitForHeldWork === true,
      compaction: { contextWindow: model.contextWindow },
      retry: retryFromEnvironment(env),
      ...(request.beforeToolRuns ? { beforeToolRuns: request.beforeToolRuns } : {}),
      ...(maxTurns ? { maxTurns } : {}),
      ...(hooks ? { hooks } : {}),
      onEvent,
    });
  } finally {
    state.events.idle();
  }
}

/** The registry's declarations as the model gets them: compact for small local models (`tools.compact`). */
export function declarationsFor(session: GantrySession): ToolDeclaration[] {
  const declarations = session.registry.declarations();
  return session.settings.tools?.compact ? compactDeclarations(declarations) : declarations;
}

/** A client for `provider:model-id` with the window from settings or the name (subagents' models). */
export function modelClientFor(
  setup: Pick<ConversationSetup, "session" | "baseUrl" | "env" | "contextWindow">,
  spec: string | undefined,
): ModelClient | string {
  const made = createLanguageModel({ model: spec, baseUrl: setup.baseUrl, env: setup.env });
  if (!made.ok) return made.message;
  const { spec: parsed, model } = made.value;
  const configured = setup.contextWindow ?? setup.session.settings.contextWindow;
  return createModelClient(parsed, model, contextWindowFor(parsed, configured));
}

/**
 * The main model; for a local server whose window nobody set, the window the server itself reports
 * (llama.cpp, Ollama, LM Studio, vLLM) instead of a guess from the name.
 */
async function mainModel(
  setup: ConversationSetup,
): Promise<{ model: ModelClient; windowSource: string } | string> {
  if (typeof setup.model === "object")
    return { model: setup.model, windowSource: "the caller's model client" };
  const made = createLanguageModel({ model: setup.model, baseUrl: setup.baseUrl, env: setup.env });
  if (!made.ok) return made.message;
  const { spec, model } = made.value;
  const configured = setup.contextWindow ?? setup.session.settings.contextWindow;
  const fromName = (source: string) => ({
    model: createModelClient(spec, model, contextWindowFor(spec, configured)),
    windowSource: source,
  });
  if (configured !== undefined) return fromName("settings (contextWindow)");
  if (spec.provider !== "openai-compatible" || !setup.baseUrl) return fromName("the model's name");
  const reported = await probeServerWindow(setup.baseUrl, spec.modelId);
  if (!reported) return fromName("a guess: the server did not say (set contextWindow in settings)");
  return { model: createModelClient(spec, model, reported.tokens), windowSource: reported.source };
}

/** A run whose system prompt and tool declarations already fill most of the window is told so before it starts. */
function crowdedNotice(
  system: string,
  declarations: readonly ToolDeclaration[],
  model: ModelClient,
): string[] {
  const tokens = estimateTokens([], system) + Math.ceil(JSON.stringify(declarations).length / 4);
  if (tokens < model.contextWindow * CROWDED_SHARE) return [];
  const share = Math.round((tokens / model.contextWindow) * 100);
  return [
    `the system prompt and ${declarations.length} tool declarations take about ${tokens.toLocaleString("en-US")} tokens, ${share}% of ${model.id}'s ${model.contextWindow.toLocaleString("en-US")}-token context window: little is left for the conversation. Use {"tools": {"compact": true, "only": [...]}} in .agents/settings.json, or give the server a bigger context (llama-server -c, Ollama num_ctx)`,
  ];
}

function openSessionRecord(
  setup: ConversationSetup,
  modelId: string,
):
  | { ok: true; conversation: Conversation; writer: SessionWriter; notices: string[] }
  | { ok: false; message: string } {
  if (setup.save === false) {
    if (setup.resume !== undefined)
      return { ok: false, message: "a session that is not saved cannot be resumed" };
    return { ok: true, conversation: createConversation(), writer: unsavedWriter(), notices: [] };
  }
  const opened = openSession({
    dir: sessionsDir(setup.home, setup.session.workspace.root),
    workspace: setup.session.workspace.root,
    model: modelId,
    ...(setup.resume !== undefined && setup.resume !== "last" ? { resume: setup.resume } : {}),
    continueLatest: setup.resume === "last",
  });
  if (!opened.ok) return opened;
  const notices = opened.problems.map((problem) => `${opened.file} line ${problem.line}: ${problem.message}`);
  return { ok: true, conversation: opened.conversation, writer: opened.writer, notices };
}

/** A session kept only in memory (`session: false`): an id for hooks, no file. */
function unsavedWriter(): SessionWriter {
  return { id: newSessionId(), file: "", record: () => undefined, close: () => undefined };
}

/** `GANTRY_RETRY_BASE_MS` shortens the backoff (tests, scripts that prefer to fail fast). */
export function retryFromEnvironment(env: Record<string, string | undefined>): { baseDelayMs?: number } {
  const text = env.GANTRY_RETRY_BASE_MS;
  const base = Number(text);
  return text !== undefined && text !== "" && Number.isFinite(base) && base >= 0 ? { baseDelayMs: base } : {};
}
