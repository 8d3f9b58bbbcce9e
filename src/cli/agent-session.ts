import { homedir } from "node:os";
import type { Conversation, ConversationMessage } from "../agent/conversation.js";
import type { AgentEvent } from "../agent/events.js";
import type { AgentRunResult } from "../agent/loop.js";
import { createGantrySession, type GantrySession } from "../gantry.js";
import type { ModelClient } from "../models/client.js";
import type { Asker } from "../policy/asker.js";
import { type ApprovalMode, parseApprovalMode } from "../policy/modes.js";
import type { SessionProblem, SessionSummary, SessionWriter } from "../session/jsonl.js";
import { openConversation } from "../session/open.js";
import type { ToolDeclaration } from "../tools/registry.js";
import { type GlobalOptions, UsageError } from "./options.js";
import { sessionControls } from "./session-controls.js";
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
    ...(options.model ? { model: options.model } : {}),
    ...(options["base-url"] ? { baseUrl: options["base-url"] } : {}),
  });
  reportConfigNotices(session);
  const opened = await openConversation({
    session,
    home: homedir(),
    model: options.model ?? session.settings.model,
    baseUrl: options["base-url"] ?? session.settings.baseUrl,
    env: process.env,
    frontEnd: setup.frontEnd ?? "interactive",
    ...(options.resume !== undefined ? { resume: options.resume } : {}),
    ...(options.continue === true && options.resume === undefined ? { resume: "last" } : {}),
    onSubagentEvent: setup.onSubagentEvent,
  });
  if ("error" in opened) {
    await session.dispose();
    return { error: opened.error };
  }
  for (const notice of opened.notices) process.stderr.write(`gantry: ${notice}\n`);
  const { state } = opened;
  setup.onReady?.({
    session,
    model: state.current.model,
    writer: state.current.writer,
    declarations: state.declarations,
  });
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
    declarations: state.declarations,
    run: (input, run) => opened.run(input, run),
    ...sessionControls(state),
    async close(reason) {
      if (closed) return;
      closed = true;
      await opened.close(reason);
      await session.dispose();
    },
  };
}
