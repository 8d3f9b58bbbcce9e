import type { McpToolOrigin, ToolResult } from "../tools/contract.js";

/**
 * Every lifecycle event Gantry fires, by its native name (the keys of `.agents/hooks.json`), and what a
 * rule's `matcher` is matched against: the tool's names, a fact of the event (`source`, `reason`, the
 * agent type, the compaction trigger, the notification type), or nothing (every rule runs).
 */
export const HOOK_EVENTS = {
  pre_tool_execution: { matches: "tool" },
  post_tool_execution: { matches: "tool" },
  permission_request: { matches: "tool" },
  session_start: { matches: "source" },
  session_end: { matches: "reason" },
  user_prompt_submit: { matches: "nothing" },
  stop: { matches: "nothing" },
  subagent_start: { matches: "agent type" },
  subagent_stop: { matches: "agent type" },
  pre_compact: { matches: "trigger" },
  post_compact: { matches: "trigger" },
  notification: { matches: "notification type" },
  before_model: { matches: "nothing" },
  after_model: { matches: "nothing" },
  before_tool_selection: { matches: "nothing" },
} as const;
export type HookEventName = keyof typeof HOOK_EVENTS;

/** The names other harnesses give the same events (Claude Code, Qwen Code, Gemini CLI), mapped to Gantry's. */
export const EVENT_NAME_ALIASES: Record<string, HookEventName> = {
  PreToolUse: "pre_tool_execution",
  PostToolUse: "post_tool_execution",
  PostToolUseFailure: "post_tool_execution",
  PermissionRequest: "permission_request",
  BeforeTool: "pre_tool_execution",
  AfterTool: "post_tool_execution",
  SessionStart: "session_start",
  SessionEnd: "session_end",
  UserPromptSubmit: "user_prompt_submit",
  BeforeAgent: "user_prompt_submit",
  Stop: "stop",
  AfterAgent: "stop",
  SubagentStart: "subagent_start",
  SubagentStop: "subagent_stop",
  PreCompact: "pre_compact",
  PreCompress: "pre_compact",
  PostCompact: "post_compact",
  Notification: "notification",
  BeforeModel: "before_model",
  AfterModel: "after_model",
  BeforeToolSelection: "before_tool_selection",
};

/**
 * Events other harnesses have and Gantry does not fire (it has no such moment): named in `gantry hooks
 * check` as "does not fire", never mistaken for a typo.
 */
export const EVENTS_THAT_NEVER_FIRE = new Set([
  "PermissionDenied",
  "PostToolBatch",
  "StopFailure",
  "MessageDisplay",
  "SessionDelete",
  "TodoCreated",
  "TodoCompleted",
  "InstructionsLoaded",
  "UserPromptExpansion",
  "TeammateIdle",
  "TaskCompleted",
  "TaskCreated",
  "ConfigChange",
  "WorktreeCreate",
  "WorktreeRemove",
  "Elicitation",
  "ElicitationResult",
  "CwdChanged",
  "FileChanged",
]);

export function canonicalEventName(name: string): HookEventName | undefined {
  if (Object.hasOwn(HOOK_EVENTS, name)) return name as HookEventName;
  return EVENT_NAME_ALIASES[name];
}

/** The facts about one tool call that every dialect translates from. */
export interface ToolCallFacts {
  callId: string;
  agentId: string;
  /** Canonical tool name. */
  name: string;
  /** The name the caller used (maybe an alias). */
  requestedName: string;
  aliases: readonly string[];
  args: Record<string, unknown>;
  /** An MCP server's tool: its server and own name (Gemini CLI names it `mcp_<server>_<tool>`). */
  mcp?: McpToolOrigin;
}

/** What a model is asked, as Gemini CLI's hooks see it (its stable `llm_request`). */
export interface ModelRequestFacts {
  model: string;
  system: string;
  messages: { role: "user" | "model"; content: string }[];
  /** The tools declared this turn. */
  tools: ModelToolFacts[];
}

/** A tool declared to the model: what a dialect needs to name it its way, and to read its names back. */
export interface ModelToolFacts {
  /** Canonical Gantry name. */
  name: string;
  aliases: readonly string[];
  /** An MCP server's tool (Gemini CLI names it `mcp_<server>_<tool>`). */
  mcp?: McpToolOrigin;
}

export type SessionStartSource = "startup" | "resume" | "clear" | "compact";

/** Every event hooks can see. `agentId` is "main" or the subagent's id (its hooks fire with it). */
export type HookEvent =
  | { kind: "pre_tool_execution"; call: ToolCallFacts }
  | { kind: "post_tool_execution"; call: ToolCallFacts; result: ToolResult }
  | { kind: "permission_request"; call: ToolCallFacts; subjects: string[] }
  | { kind: "session_start"; agentId: string; source: SessionStartSource; model: string }
  | { kind: "session_end"; agentId: string; reason: string }
  | { kind: "user_prompt_submit"; agentId: string; prompt: string }
  | {
      kind: "stop";
      agentId: string;
      prompt: string;
      lastAssistantMessage: string;
      stopHookActive: boolean;
    }
  | { kind: "subagent_start"; agentId: string; agentType: string }
  | {
      kind: "subagent_stop";
      agentId: string;
      agentType: string;
      transcriptPath: string;
      lastAssistantMessage: string;
      stopHookActive: boolean;
    }
  | { kind: "pre_compact"; agentId: string; trigger: "auto" | "manual" }
  | { kind: "post_compact"; agentId: string; trigger: "auto" | "manual"; summary: string }
  | {
      kind: "notification";
      agentId: string;
      notificationType: "permission_prompt" | "idle_prompt";
      message: string;
      toolName?: string;
    }
  | { kind: "before_model"; agentId: string; request: ModelRequestFacts }
  | { kind: "after_model"; agentId: string; request: ModelRequestFacts; responseText: string }
  | { kind: "before_tool_selection"; agentId: string; request: ModelRequestFacts };

export type ToolHookEvent = Extract<HookEvent, { kind: "pre_tool_execution" | "post_tool_execution" }>;
export type HookEventOf<K extends HookEventName> = Extract<HookEvent, { kind: K }>;

/** The agent an event belongs to. */
export function agentOf(event: HookEvent): string {
  return "call" in event ? event.call.agentId : event.agentId;
}

/** The event fact a rule's matcher is tested against, or undefined for events matched by tool name or not at all. */
export function matchTarget(event: HookEvent): string | undefined {
  switch (event.kind) {
    case "session_start":
      return event.source;
    case "session_end":
      return event.reason;
    case "subagent_start":
    case "subagent_stop":
      return event.agentType;
    case "pre_compact":
    case "post_compact":
      return event.trigger;
    case "notification":
      return event.notificationType;
    default:
      return undefined;
  }
}

/**
 * Who the session is, as hooks see it (`session_id`, `transcript_path`): known once the session log is
 * opened, which is after the tools exist, so it is read at each event. A worktree agent's session shares
 * its parent's.
 */
export interface SessionIdentity {
  sessionId: string;
  transcriptPath: string;
}

/** Session facts every event carries (ids, folders, the approval mode). */
export interface HookSessionFacts {
  sessionId: string;
  environmentId: string;
  workspaceRoot: string;
  transcriptPath: string;
  /** Gantry's approval mode (`default`, `auto-edit`, `yolo`, `plan`); dialects say it in their words. */
  approvalMode: string;
  /**
   * A transcript (the session's, or a subagent's) as another harness writes its own, brought up to date
   * for a hook of that dialect (src/hooks/transcripts/views.ts); "" when there is none.
   */
  transcriptFor(dialect: "claude" | "gemini" | "qwen", source: string): string;
}
