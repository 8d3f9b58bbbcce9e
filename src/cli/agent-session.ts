import { homedir } from "node:os";
import { buildSystemPrompt, loadProjectInstructions } from "../agent/context.js";
import type { Conversation, ConversationMessage } from "../agent/conversation.js";
import type { AgentEvent } from "../agent/events.js";
import { type AgentRunResult, runAgentLoop } from "../agent/loop.js";
import { createGantrySession, type GantrySession } from "../gantry.js";
import { createModelClient, type ModelClient } from "../models/client.js";
import { contextWindowFor } from "../models/context-windows.js";
import { createLanguageModel } from "../models/provider.js";
import type { Asker } from "../policy/asker.js";
import { type ApprovalMode, parseApprovalMode } from "../policy/modes.js";
import { openSession, type SessionWriter, sessionsDir } from "../session/jsonl.js";
import { transcriptDirFor } from "../subagents/transcript.js";
import type { ToolDeclaration } from "../tools/registry.js";
import { type GlobalOptions, UsageError } from "./options.js";
import { cliTrustOption, reportConfigNotices } from "./trust-option.js";

/**
 * What `gantry -p` and the interactive mode share: the Gantry session, the model, the session file
 * (new, `--continue` or `--resume`), the system prompt and the subagents bound to all of them.
 */
export interface AgentSession {
  session: GantrySession;
  model: ModelClient;
  conversation: Conversation;
  writer: SessionWriter;
  declarations: ToolDeclaration[];
  /** One run of the agent loop on this conversation; every event is saved, then handed to `onEvent`. */
  run(input: ConversationMessage[], options: AgentRunOptions): Promise<AgentRunResult>;
  /** Closes the session file and ends what the session started. Safe to call twice. */
  close(): Promise<void>;
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
  const { conversation, writer } = opened;
  session.identify({ sessionId: writer.id, transcriptPath: writer.file });
  const declarations = session.registry.declarations();
  setup.onReady?.({ session, model, writer, declarations });
  const system = buildSystemPrompt({
    workspaceRoot: session.workspace.root,
    declarations,
    instructions: loadProjectInstructions(session.workspace.root),
  });
  // subagents share the model and the event stream (their events carry their own agentId)
  session.subagents.bind({
    model,
    mainConversation: conversation,
    mainSystem: system,
    transcriptDir: transcriptDirFor(writer.file),
    ...(baseUrl ? { baseUrl } : {}),
    modelFor: (spec) => makeModelFor(session, spec, baseUrl),
    onEvent: setup.onSubagentEvent,
  });
  let closed = false;
  return {
    session,
    model,
    conversation,
    writer,
    declarations,
    run: (input, run) => {
      const maxTurns = run.maxTurns ?? session.settings.maxTurns;
      return runAgentLoop(conversation, model, session.pipeline, {
        system,
        tools: declarations,
        input,
        signal: run.signal,
        inbox: session.inbox,
        waitForHeldWork: run.waitForHeldWork === true,
        compaction: { contextWindow: model.contextWindow },
        retry: retryFromEnvironment(),
        ...(maxTurns ? { maxTurns } : {}),
        onEvent: (event) => {
          writer.record(event);
          run.onEvent(event);
        },
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      writer.close();
      await session.dispose();
    },
  };
}

function makeModelFor(
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
function retryFromEnvironment(): { baseDelayMs?: number } {
  const base = Number(process.env.GANTRY_RETRY_BASE_MS);
  return Number.isFinite(base) && base >= 0 && process.env.GANTRY_RETRY_BASE_MS !== ""
    ? { baseDelayMs: base }
    : {};
}
