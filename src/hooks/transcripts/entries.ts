import type { ConversationMessage, ToolCallRecord } from "../../agent/conversation.js";
import { dialectToolFor } from "../dialects/shell-views.js";
import { argsToDialect, type DialectTool } from "../dialects/tool-map.js";
import type { ToolCallFacts } from "../events.js";

/**
 * The lines of a Gantry session file (src/session/jsonl.ts) a transcript view reads: the header, the
 * main agent's messages and its compactions. Everything else (turns, usage, subagents' events) is left out.
 */
export type SessionEntry =
  | { type: "session"; id: string; model?: string; createdAt: string }
  | { type: "message"; message: ConversationMessage; at: string }
  | { type: "compaction"; summary: string; at: string };

/** A parsed line of the session file as a SessionEntry, or undefined for the lines views leave out. */
export function sessionEntryOf(value: unknown): SessionEntry | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const entry = value as Record<string, unknown>;
  if (entry.type === "session") return entry as SessionEntry;
  if ((entry.agentId ?? "main") !== "main") return undefined;
  if (entry.type === "message" && typeof entry.message === "object" && entry.message !== null)
    return entry as SessionEntry;
  if (entry.type === "compaction" && typeof entry.summary === "string") return entry as SessionEntry;
  return undefined;
}

/** A recorded call as the hook dialects' tool tables take it. */
export function callFacts(call: ToolCallRecord): ToolCallFacts {
  const args =
    typeof call.args === "object" && call.args !== null ? (call.args as Record<string, unknown>) : {};
  return {
    callId: call.callId,
    agentId: "main",
    name: call.name,
    requestedName: call.name,
    aliases: [],
    args,
  };
}

/** A recorded call's name and arguments as a harness's tool table shapes them (as its hooks see the call). */
export function dialectCall(
  tools: Record<string, DialectTool>,
  call: ToolCallRecord,
  root: string,
): { name: string; args: Record<string, unknown> } {
  const facts = callFacts(call);
  const tool = dialectToolFor(tools, facts);
  return {
    name: tool?.name ?? call.name,
    args: argsToDialect(tool, facts.args, root),
  };
}

/** `anthropic:claude-sonnet-4-5` → `claude-sonnet-4-5`. */
export function modelIdOf(spec: string | undefined): string {
  if (!spec) return "";
  const colon = spec.indexOf(":");
  return colon < 0 ? spec : spec.slice(colon + 1);
}

/** What every line of a view says about the session. */
export interface ViewContext {
  sessionId: string;
  cwd: string;
}

/** Turns a session file's entries, in order, into the lines of one harness's transcript. */
export interface TranscriptTranslator {
  lines(entry: SessionEntry): object[];
}
