import { homedir } from "node:os";
import type { Conversation, ConversationMessage, ToolCallRecord } from "../agent/conversation.js";
import type { AgentEvent } from "../agent/events.js";
import type { AgentRunResult } from "../agent/loop.js";
import type { Settings } from "../config/settings.js";
import { createGantrySession, type GantrySession } from "../gantry.js";
import type { ModelClient } from "../models/client.js";
import { API_KEY_VARIABLES, parseModelSpec } from "../models/provider.js";
import {
  type Asker,
  type CallbackAskerOptions,
  createCallbackAsker,
  createHeadlessAsker,
} from "../policy/asker.js";
import { APPROVAL_MODES, type ApprovalMode, parseApprovalMode } from "../policy/modes.js";
import { type OpenConversation, openConversation } from "../session/open.js";
import type { AnyTool } from "../tools/contract.js";
import type { EditorFiles } from "../tools/environment.js";
import type { TrustOption } from "../trust/session-trust.js";
import { type AgentHooks, hookGroupsFor } from "./hooks.js";
import { type McpServersOption, mcpServersByName } from "./mcp.js";
import { eventQueue } from "./queue.js";

export interface AgentOptions {
  /** The workspace folder; default: the current directory. */
  workspace?: string;
  /** `provider:model-id` (default: `model` in ~/.agents/settings.json), or a ModelClient you made. */
  model?: string | ModelClient;
  /** The provider's API base URL (required for openai-compatible servers). */
  baseUrl?: string;
  /** The provider's key; default: its usual environment variable. */
  apiKey?: string;
  /** Where keys and GANTRY_* variables are read; default: process.env. */
  env?: Record<string, string | undefined>;
  /** Tokens; default: from settings, a local server's own report, or the model's name. */
  contextWindow?: number;
  /** How much runs without asking; default `default`: read-only tools run, everything else asks. */
  approvalMode?: ApprovalMode;
  /** Answers permission asks; without it (and without `asker`) every ask is denied. */
  onPermission?: CallbackAskerOptions["onPermission"];
  /** Answers ask_question; without it the model is told nobody can answer. */
  onQuestions?: CallbackAskerOptions["onQuestions"];
  /** A whole asker instead of the two callbacks (a terminal one, for instance). */
  asker?: Asker;
  /** Your own tools (defineAgentTool): they run through the same pipeline, rules and hooks. */
  tools?: AnyTool[];
  /** Hook functions, with the same decisions as command hooks. */
  hooks?: AgentHooks;
  /** MCP servers by name as in `.mcp.json`, or a list of `{ name, command, args }` / `{ name, type, url }`. */
  mcpServers?: McpServersOption;
  /** Continue a saved session: its id (or a unique prefix), or "last" for this workspace's latest. */
  resume?: string;
  /** false: keep the session in memory only. Default true: saved as the CLI saves it (`gantry --resume`). */
  session?: boolean;
  /** Whether the workspace's own configuration counts; default untrusted (it may only narrow). */
  trust?: TrustOption;
  /** Home folder for ~/.agents and ~/.gantry; default: the user's. */
  home?: string;
  /** Settings instead of the ~/.agents and workspace files. */
  settings?: Settings;
  sandbox?: boolean;
  /** Model turns per prompt. */
  maxTurns?: number;
  /** Added to the system prompt. */
  instructions?: string;
  /** Every event of every run, subagents' included (they carry their agentId). */
  onEvent?(event: AgentEvent): void;
  /** An editor's open files: view_file shows their unsaved text (the ACP agent passes the client's). */
  editorFiles?: EditorFiles;
}

export interface PromptOptions {
  signal?: AbortSignal;
  maxTurns?: number;
  onEvent?(event: AgentEvent): void;
  /** Awaited before each tool call runs, after it was allowed (e.g. to look at the file an edit changes). */
  beforeToolRuns?(call: ToolCallRecord): Promise<void>;
}

export type PromptInput = string | ConversationMessage[];

export interface AgentResult extends AgentRunResult {
  sessionId: string;
}

/** An embedded Gantry agent: one conversation, saved and resumable, over the one pipeline. */
export interface Agent {
  /** The session's id (`resume: id`, `gantry --resume id`). */
  readonly sessionId: string;
  /** The JSONL file it is saved in; "" when `session: false`. */
  readonly sessionFile: string;
  readonly model: ModelClient;
  /** Where the context window came from (settings, llama.cpp /props, the model's name...). */
  readonly contextWindowSource: string;
  /** Said once when the agent opened: a crowded context window, damaged session lines, MCP servers not started. */
  readonly notices: readonly string[];
  /** The Gantry session underneath: workspace, registry, pipeline, permissions, trust, config. */
  readonly session: GantrySession;
  readonly conversation: Conversation;
  /** Runs the agent on the input until it answers; the result carries the answer's text and why it ended. */
  prompt(input: PromptInput, options?: PromptOptions): Promise<AgentResult>;
  /** The same run, as its typed events (the last is `done`); leaving the loop early aborts the run. */
  stream(input: PromptInput, options?: Omit<PromptOptions, "onEvent">): AsyncIterable<AgentEvent>;
  /** Changes the approval mode from the next call on. */
  setApprovalMode(mode: ApprovalMode): void;
  /** Ends everything the agent started and closes its session file. Safe to call twice. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * `createAgent({ model })` → `agent.prompt("...")`: everything the CLI has (tools, rules, hooks,
 * subagents, sessions), safe by default: the `default` approval mode, asks denied unless you answer
 * them, the workspace untrusted unless `trust` says otherwise.
 */
export async function createAgent(options: AgentOptions = {}): Promise<Agent> {
  const home = options.home ?? homedir();
  const env = withApiKey(options.env ?? process.env, options.model, options.apiKey);
  // the options come from JavaScript too: a mode that is not one is refused, not read as "default"
  if (options.approvalMode !== undefined && !parseApprovalMode(options.approvalMode))
    throw new Error(
      `createAgent: approvalMode must be ${APPROVAL_MODES.join(", ").replace(/, (?=[^,]*$)/, " or ")}, not "${options.approvalMode}"`,
    );
  const session = sessionFor(options, home, env);
  const opened = await openConversation({
    session,
    home,
    model: options.model ?? session.settings.model,
    baseUrl: options.baseUrl ?? session.settings.baseUrl,
    env,
    ...(options.contextWindow ? { contextWindow: options.contextWindow } : {}),
    ...(options.resume !== undefined ? { resume: options.resume } : {}),
    ...(options.session === false ? { save: false } : {}),
    ...(options.instructions ? { systemExtra: options.instructions } : {}),
    ...(options.onEvent ? { onSubagentEvent: options.onEvent } : {}),
  }).catch((cause: Error) => ({ error: cause.message }));
  if ("error" in opened) {
    await session.dispose();
    throw new Error(`createAgent: ${opened.error}`);
  }
  const notices = [...session.configNotices(), ...opened.notices];
  return agentOver(session, opened, options, notices);
}

/** The Gantry session under an agent; its refusals (a workspace that does not exist, a tool name taken) name createAgent. */
function sessionFor(
  options: AgentOptions,
  home: string,
  env: Record<string, string | undefined>,
): GantrySession {
  try {
    return createGantrySession({
      ...(options.workspace ? { workspace: options.workspace } : {}),
      home,
      trust: options.trust ?? false,
      defaultApprovalMode: "default",
      asker: askerFor(options),
      tools: options.tools ?? [],
      ...(options.mcpServers ? { mcpServers: mcpServersByName(options.mcpServers) } : {}),
      hookGroups: hookGroupsFor(options.hooks),
      ...(options.approvalMode ? { approvalMode: options.approvalMode } : {}),
      ...(options.settings ? { settings: options.settings } : {}),
      ...(options.sandbox !== undefined ? { sandbox: options.sandbox } : {}),
      ...(options.editorFiles ? { editorFiles: options.editorFiles } : {}),
      // search_web's `model` backend and generate_image use the conversation's provider and keys
      ...(typeof options.model === "string" ? { model: options.model } : {}),
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      variables: env,
    });
  } catch (cause) {
    throw new Error(`createAgent: ${(cause as Error).message}`, { cause });
  }
}

function agentOver(
  session: GantrySession,
  opened: OpenConversation,
  options: AgentOptions,
  notices: string[],
): Agent {
  let running: Promise<unknown> | undefined;
  let closed = false;
  const prompt = async (input: PromptInput, run: PromptOptions = {}): Promise<AgentResult> => {
    if (closed) throw new Error("this agent was closed");
    if (running) throw new Error("the agent is still answering a prompt: await it (or abort it) first");
    const messages: ConversationMessage[] =
      typeof input === "string" ? [{ role: "user", text: input }] : input;
    const maxTurns = run.maxTurns ?? options.maxTurns;
    const done = opened.run(messages, {
      ...(run.signal ? { signal: run.signal } : {}),
      ...(maxTurns ? { maxTurns } : {}),
      ...(run.beforeToolRuns ? { beforeToolRuns: run.beforeToolRuns } : {}),
      onEvent: (event) => {
        options.onEvent?.(event);
        run.onEvent?.(event);
      },
    });
    running = done;
    try {
      return { ...(await done), sessionId: opened.state.current.writer.id };
    } finally {
      running = undefined;
    }
  };
  const close = async () => {
    if (closed) return;
    closed = true;
    await opened.close();
    await session.dispose();
  };
  return {
    get sessionId() {
      return opened.state.current.writer.id;
    },
    get sessionFile() {
      return opened.state.current.writer.file;
    },
    get model() {
      return opened.state.current.model;
    },
    contextWindowSource: opened.windowSource,
    notices,
    session,
    conversation: opened.state.conversation,
    prompt,
    stream: (input, run = {}) =>
      eventQueue((onEvent, signal) => prompt(input, { ...run, signal, onEvent }), run.signal),
    setApprovalMode: (mode) => session.permissions.setMode(mode, "set by the embedding program"),
    close,
    [Symbol.asyncDispose]: close,
  };
}

function askerFor(options: AgentOptions): Asker {
  if (options.asker) return options.asker;
  if (!options.onPermission) {
    // questions can still be answered without permission asks
    if (!options.onQuestions) return createHeadlessAsker();
    const answer = options.onQuestions;
    return createHeadlessAsker({
      answerQuestions: (questions) => answer(questions, new AbortController().signal),
    });
  }
  return createCallbackAsker({
    onPermission: options.onPermission,
    ...(options.onQuestions ? { onQuestions: options.onQuestions } : {}),
  });
}

/** `apiKey` goes where the provider looks for it, so the rest of Gantry reads keys one way. */
function withApiKey(
  env: Record<string, string | undefined>,
  model: AgentOptions["model"],
  apiKey: string | undefined,
): Record<string, string | undefined> {
  if (apiKey === undefined || typeof model !== "string") return env;
  const parsed = parseModelSpec(model);
  if (!parsed.ok) return env;
  const [variable] = API_KEY_VARIABLES[parsed.value.provider];
  return variable ? { ...env, [variable]: apiKey } : env;
}
