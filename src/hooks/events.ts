import type { ToolResult } from "../tools/contract.js";

/**
 * Every lifecycle event Gantry knows, by its native name. Only the tool events fire today; the session
 * events are listed so configuration files that name them are understood (and reported as not yet
 * firing) and so adding them later is one new member of `HookEvent`, not a reshaping.
 */
export const HOOK_EVENTS = {
  pre_tool_execution: { fires: true, toolEvent: true },
  post_tool_execution: { fires: true, toolEvent: true },
  session_start: { fires: false, toolEvent: false },
  session_end: { fires: false, toolEvent: false },
  user_prompt_submit: { fires: false, toolEvent: false },
  stop: { fires: false, toolEvent: false },
  subagent_start: { fires: false, toolEvent: false },
  subagent_stop: { fires: false, toolEvent: false },
  pre_compact: { fires: false, toolEvent: false },
  notification: { fires: false, toolEvent: false },
} as const;
export type HookEventName = keyof typeof HOOK_EVENTS;

/** The names other harnesses give the same events (Claude Code, Gemini CLI), mapped to Gantry's. */
export const EVENT_NAME_ALIASES: Record<string, HookEventName> = {
  PreToolUse: "pre_tool_execution",
  PostToolUse: "post_tool_execution",
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
  Notification: "notification",
};

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
}

export type HookEvent =
  | { kind: "pre_tool_execution"; call: ToolCallFacts }
  | { kind: "post_tool_execution"; call: ToolCallFacts; result: ToolResult };
// Next: | { kind: "session_start"; source: "startup" | "resume" } | { kind: "user_prompt_submit"; prompt: string } ...

export type ToolHookEvent = Extract<HookEvent, { call: ToolCallFacts }>;

/**
 * Who the session is, as hooks see it (`session_id`, `transcript_path`): known once the session log is
 * opened, which is after the tools exist, so it is read at each event. A worktree agent's session shares
 * its parent's.
 */
export interface SessionIdentity {
  sessionId: string;
  transcriptPath: string;
}

/** Session facts every event carries (ids, folders). */
export interface HookSessionFacts {
  sessionId: string;
  environmentId: string;
  workspaceRoot: string;
  transcriptPath: string;
}
