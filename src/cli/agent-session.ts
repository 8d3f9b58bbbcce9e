import { homedir } from "node:os";
import { buildSystemPrompt, loadProjectInstructions } from "../agent/context.js";
import type { Conversation, ConversationMessage } from "../agent/conversation.js";
import type { AgentEvent } from "../agent/events.js";
import { type AgentRunResult, runAgentLoop } from "../agent/loop.js";
import { createGantrySession, type GantrySession } from "../gantry.js";
import { loopHooksFor } from "../hooks/loop-bridge.js";
import { createModelClient, type ModelClient } from "../models/client.js";
import { contextWindowFor } from "../models/context-windows.js";
import { createLanguageModel } from "../models/provider.js";
import type { Asker } from "../policy/asker.js";
import { type ApprovalMode, parseApprovalMode } from "../policy/modes.js";
import {
  openSession,
  type SessionProblem,
  type SessionSummary,
  type SessionWriter,
  sessionsDir,
} from "../session/jsonl.js";
import { transcriptDirFor } from "../subagents/transcript.js";
import type { ToolDeclaration } from "../tools/registry.js";
import { type GlobalOptions, UsageError } from "./options.js";
import { type OpenState, sessionControls } from "./session-controls.js";
import { createSessionEvents } from "./session-events.js";
import { cliTrustOption, reportConfigNotices } from "./trust-option.js";

/**
 * What `gantry -p` and the interactive mode share: the Gantry session, the model, the session file
 * (new, `--continue` or `--resume`), the system prompt and the subagents bound to all of them.
 */
export interface AgentSession {
  session: GantrySession;
  /** The model of the next turn (`switchModel` changes it). */
  readonly model: ModelClient;
  /** The main conversation; the same object for the whole process (forks read it), its messages change. */
  readonly conversation: Conversation;
  /** The session file being written (`startOver` and `resume` change it). */
  readonly writer: SessionWriter;
  declarations: ToolDeclaration[];
  /**
   * One run of the agent loop on this conversation; every event is saved, then handed to `onEvent`. The
   * user's prompt first goes through UserPromptSubmit hooks, which may refuse it or add context.
   */
  run(input: ConversationMessage[], options: AgentRunOptions): Promise<AgentRunResult>;
  /** Uses `provider:model-id` from the next turn on (also for subagents that name no model); or says why not. */
  switchModel(spec: string): { ok: true } | { ok: false; message: string };
  /** Leaves the conversation for a new, empty session file (the terminal UI's /clear). */
  startOver(): void;
  /** Continues another saved session of this workspace (an id or a unique prefix); or says why not. */
  resume(id: string): { ok: true; problems: SessionProblem[] } | { ok: false; message: string };
  /** This workspace's saved sessions, the most recent first. */
  sessions(): SessionSummary[];
  /**
   * Summarises the older turns now (the terminal UI's /compact), keeping the last one; the `compaction`
   * event is saved and handed to `onEvent`. Says why when there is nothing to compact or the model failed.
   */
  compact(
    signal: AbortSignal,
    onEvent: (event: AgentEvent) => void,
  ): Promise<{ ok: true } | { ok: false; message: string }>;
  /**
   * Closes the session file and ends what the session started (SessionEnd hooks hear `reason`, by default
   * the front end's: `other` headless, `prompt_input_exit` interactive). Safe to call twice.
   */
  close(reason?: string): Promise<void>;
}

export interface AgentRunOptions {
  signal: AbortSignal;
  onEvent(event: AgentEvent): void;
  maxTurns?: number;
  /** Headless: stay while background work may still post to the inbox. */
  waitForHeldWork?: boolean;
}

export interface AgentSessionSetup {
  approvalMode?: ApprovalMode;
  asker?: Asker;
  /** Called once the session and model exist, before subagents are bound (stream-json's init line). */
  onReady?(ready: Pick<AgentSession, "session" | "model" | "writer" | "declarations">): void;
  /** Where subagents' events go (they carry their own agentId). */
  onSubagentEvent(event: AgentEvent): void;
  /** Who drives the session: the interactive one hears idle notifications; default "interactive". */
  frontEnd?: "headless" | "interactive";
}

/** Parses `--approval-mode`; a bad value is a usage error. */
export function approvalModeOption(options: GlobalOptions): ApprovalMode | undefined {
  const flag = options["approval-mode"];
  if (flag === undefined) return undefined;
  const mode = parseApprovalMode(flag);
  if (!mode) throw new UsageError(`--approval-mode must be default, auto-edit, yolo or plan, not "${flag}"`);
  return mode;
}

/** Parses `--max-turns`; a bad value is a usage error. */
export function maxTurnsOption(options: GlobalOptions): number | undefined {
  const flag = options["max-turns"];
  if (flag === undefined) return undefined;
  const maxTurns = Number(flag);
  if (!Number.isInteger(maxTurns) || maxTurns < 1)
    throw new UsageError(`--max-turns must be a positive whole number, not "${flag}"`);
  return maxTurns;
}

/** Opens everything a conversation needs, or says why it cannot (no model, unknown session). */
export async function openAgentSession(
  options: GlobalOptions,
  setup: AgentSessionSetup,
): Promise<AgentSession | { error: string }> {
  const session = createGantrySession({
    workspace: options.workspace,
    defaultApprovalMode: "default",
    trust: cliTrustOption(options.trust),
    ...(options.sandbox ? { sandbox: true } : {}),
    ...(setup.approvalMode ? { approvalMode: setup.approvalMode } : {}),
    ...(setup.asker ? { asker: setup.asker } : {}),
  });
  reportConfigNotices(session);
  const baseUrl = options["base-url"] ?? session.settings.baseUrl;
  const model = makeModelFor(session, options.model ?? session.settings.model, baseUrl);
  const opened = typeof model === "string" ? model : openSessionFile(session, options, model.id);
  if (typeof model === "string" || typeof opened === "string") {
    await session.dispose();
    return { error: typeof model === "string" ? model : (opened as string) };
  }
  const sessions = sessionsDir(homedir(), session.workspace.root);
  session.identify({ sessionId: opened.writer.id, transcriptPath: opened.writer.file });
  const frontEnd = setup.frontEnd ?? "interactive";
  // the model and file of the moment: /model, /clear and /resume change them
  const current = { model, writer: opened.writer };
  const events = createSessionEvents({
    hooks: session.hooks,
    model: () => current.model.id,
    interactive: frontEnd === "interactive",
    idleSeconds: session.settings.hooks?.idleNotificationSeconds,
  });
  await events.start(opened.conversation.messages.length > 0 ? "resume" : "startup");
  // the main agent's MCP servers start now (in parallel), so their tools are in the first prompt;
  // one that fails is said here and started again when one of its tools is next called
  for (const failure of await session.mcp.startMain()) process.stderr.write(`gantry: ${failure}\n`);
  const declarations = session.registry.declarations();
  setup.onReady?.({ session, model, writer: opened.writer, declarations });
  const system = buildSystemPrompt({
    workspaceRoot: session.workspace.root,
    declarations,
    instructions: loadProjectInstructions(session.workspace.root),
  });
  const state: OpenState = {
    session,
    conversation: opened.conversation,
    current,
    system,
    declarations,
    sessions,
    events,
    makeModel: (spec) => makeModelFor(session, spec, baseUrl),
    // subagents share the model and the event stream (their events carry their own agentId)
    bindSubagents: () =>
      session.subagents.bind({
        model: state.current.model,
        mainConversation: state.conversation,
        mainSystem: system,
        transcriptDir: transcriptDirFor(state.current.writer.file),
        ...(baseUrl ? { baseUrl } : {}),
        modelFor: (spec) => makeModelFor(session, spec, baseUrl),
        onEvent: setup.onSubagentEvent,
      }),
  };
  state.bindSubagents();
  let closed = false;
  return {
    session,
    get model() {
      return state.current.model;
    },
    conversation: state.conversation,
    get writer() {
      return state.current.writer;
    },
    declarations,
    run: (input, run) => runLoop(state, input, run),
    ...sessionControls(state),
    async close(reason) {
      if (closed) return;
      closed = true;
      await events.end(reason ?? (frontEnd === "headless" ? "other" : "prompt_input_exit"));
      state.current.writer.close();
      await session.dispose();
    },
  };
}

/** One run: the prompt through UserPromptSubmit hooks, then the loop with this agent's lifecycle hooks. */
async function runLoop(
  state: OpenState,
  input: ConversationMessage[],
  run: AgentRunOptions,
): Promise<AgentRunResult> {
  const maxTurns = run.maxTurns ?? state.session.settings.maxTurns;
  const writer = state.current.writer;
  const onEvent = (event: AgentEvent) => {
    writer.record(event);
    run.onEvent(event);
  };
  const admitted = await state.events.admit(input, run.signal);
  if ("refused" in admitted) return state.events.refuse(admitted.refused, state.conversation, onEvent);
  const hooks = loopHooksFor(state.session.hooks, {
    agentId: "main",
    model: state.current.model.id,
    prompt: () => admitted.prompt,
    resolveTool: (name) => state.session.registry.lookup(name)?.spec.name,
  });
  try {
    return await runAgentLoop(state.conversation, state.current.model, state.session.pipeline, {
      system: state.system,
      tools: state.declarations,
      input: admitted.input,
      signal: run.signal,
      inbox: state.session.inbox,
      waitForHeldWork: run.waitForHeldWork === true,
      compaction: { contextWindow: state.current.model.contextWindow },
      retry: retryFromEnvironment(),
      ...(maxTurns ? { maxTurns } : {}),
      ...(hooks ? { hooks } : {}),
      onEvent,
    });
  } finally {
    state.events.idle();
  }
}

export function makeModelFor(
  session: GantrySession,
  model: string | undefined,
  baseUrl: string | undefined,
): ModelClient | string {
  const made = createLanguageModel({ model, baseUrl, env: process.env });
  if (!made.ok) return made.message;
  const { spec, model: languageModel } = made.value;
  return createModelClient(spec, languageModel, contextWindowFor(spec, session.settings.contextWindow));
}

function openSessionFile(
  session: GantrySession,
  options: GlobalOptions,
  modelId: string,
): { conversation: Conversation; writer: SessionWriter } | string {
  const opened = openSession({
    dir: sessionsDir(homedir(), session.workspace.root),
    workspace: session.workspace.root,
    model: modelId,
    ...(options.resume !== undefined ? { resume: options.resume } : {}),
    continueLatest: options.continue === true,
  });
  if (!opened.ok) return opened.message;
  for (const problem of opened.problems)
    process.stderr.write(`gantry: ${opened.file} line ${problem.line}: ${problem.message}\n`);
  return opened;
}

/** `GANTRY_RETRY_BASE_MS` shortens the backoff (tests, scripts that prefer to fail fast). */
export function retryFromEnvironment(): { baseDelayMs?: number } {
  const base = Number(process.env.GANTRY_RETRY_BASE_MS);
  return Number.isFinite(base) && base >= 0 && process.env.GANTRY_RETRY_BASE_MS !== ""
    ? { baseDelayMs: base }
    : {};
}
