import path from "node:path";
import type { HookSessionFacts, ToolHookEvent } from "../events.js";

/** A Gantry tool as another harness names it, with its argument names (Gantry's → the dialect's). */
export interface DialectTool {
  name: string;
  fields: Record<string, string>;
}

export const CLAUDE_TOOLS: Record<string, DialectTool> = {
  run_command: { name: "Bash", fields: { CommandLine: "command", Cwd: "cwd" } },
  view_file: { name: "Read", fields: { AbsolutePath: "file_path" } },
  write_to_file: { name: "Write", fields: { TargetFile: "file_path", CodeContent: "content" } },
  replace_file_content: {
    name: "Edit",
    fields: {
      TargetFile: "file_path",
      TargetContent: "old_string",
      ReplacementContent: "new_string",
      AllowMultiple: "replace_all",
    },
  },
  multi_replace_file_content: {
    name: "Edit",
    fields: { TargetFile: "file_path", ReplacementChunks: "edits" },
  },
  list_dir: { name: "LS", fields: { DirectoryPath: "path" } },
  find_by_name: { name: "Glob", fields: { Pattern: "pattern", SearchDirectory: "path" } },
  grep_search: { name: "Grep", fields: { Query: "pattern", SearchPath: "path" } },
  read_url_content: { name: "WebFetch", fields: { Url: "url" } },
  // search_web is SPEC §2's web search, not built yet (README "What is not here yet"); kept so the
  // Claude and Gemini names are right the day it lands (the permission rules map WebSearch to it too).
  search_web: { name: "WebSearch", fields: { query: "query" } },
  agent: { name: "Task", fields: {} },
};

export const GEMINI_TOOLS: Record<string, DialectTool> = {
  run_command: { name: "run_shell_command", fields: { CommandLine: "command", Cwd: "dir_path" } },
  view_file: { name: "read_file", fields: { AbsolutePath: "file_path" } },
  write_to_file: { name: "write_file", fields: { TargetFile: "file_path", CodeContent: "content" } },
  replace_file_content: {
    name: "replace",
    fields: { TargetFile: "file_path", TargetContent: "old_string", ReplacementContent: "new_string" },
  },
  multi_replace_file_content: { name: "replace", fields: { TargetFile: "file_path" } },
  list_dir: { name: "list_directory", fields: { DirectoryPath: "dir_path" } },
  find_by_name: { name: "glob", fields: { Pattern: "pattern", SearchDirectory: "dir_path" } },
  grep_search: { name: "grep_search", fields: { Query: "pattern", SearchPath: "dir_path" } },
  read_url_content: { name: "web_fetch", fields: { Url: "url" } },
  search_web: { name: "google_web_search", fields: { query: "query" } },
};

// Argument names that hold paths; both dialects promise scripts absolute paths.
const PATH_FIELDS = new Set([
  "file_path",
  "path",
  "dir_path",
  "cwd",
  "AbsolutePath",
  "TargetFile",
  "DirectoryPath",
  "SearchPath",
  "SearchDirectory",
  "Cwd",
]);

/** Gantry arguments → the dialect's names, paths made absolute; unknown fields pass through. */
export function argsToDialect(
  tool: DialectTool | undefined,
  args: Record<string, unknown>,
  workspaceRoot: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    const name = tool?.fields[key] ?? key;
    out[name] =
      PATH_FIELDS.has(name) && typeof value === "string" ? path.resolve(workspaceRoot, value) : value;
  }
  return out;
}

/** The dialect's names → Gantry's (the inverse of argsToDialect); unknown fields pass through. */
export function argsFromDialect(tool: DialectTool | undefined, input: Record<string, unknown>) {
  const back = new Map(Object.entries(tool?.fields ?? {}).map(([gantry, dialect]) => [dialect, gantry]));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) out[back.get(key) ?? key] = value;
  return out;
}

/**
 * The stdin fields Claude Code and Gemini CLI share for a tool event, in the dialect's own tool and
 * argument names; each dialect adds its own (`permission_mode`, `timestamp`, `tool_response`).
 */
export function sharedToolPayload(
  tools: Record<string, DialectTool>,
  hookEventName: string | undefined,
  event: ToolHookEvent,
  session: HookSessionFacts,
): Record<string, unknown> {
  const tool = tools[event.call.name];
  const payload: Record<string, unknown> = {
    session_id: session.sessionId,
    transcript_path: session.transcriptPath,
    cwd: session.workspaceRoot,
    hook_event_name: hookEventName,
    tool_name: tool?.name ?? event.call.name,
    tool_input: argsToDialect(tool, event.call.args, session.workspaceRoot),
    tool_use_id: event.call.callId,
  };
  if (event.call.agentId !== "main") payload.agent_id = event.call.agentId;
  return payload;
}
