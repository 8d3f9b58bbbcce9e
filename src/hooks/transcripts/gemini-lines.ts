import { createHash, randomUUID } from "node:crypto";
import type { ToolCallRecord } from "../../agent/conversation.js";
import { geminiMcpName } from "../dialects/gemini.js";
import { GEMINI_TOOLS } from "../dialects/tool-tables.js";
import {
  dialectCall,
  modelIdOf,
  type SessionEntry,
  type TranscriptTranslator,
  type ViewContext,
} from "./entries.js";

interface GeminiToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  result?: unknown[];
  status: "scheduled" | "success" | "error";
  timestamp: string;
}

interface GeminiMessage {
  id: string;
  timestamp: string;
  type: "user" | "gemini";
  content: unknown;
  toolCalls?: GeminiToolCall[];
  thoughts?: { subject: string; description: string; timestamp: string }[];
  model?: string;
}

/**
 * Gemini CLI's session file (its chat recording): a first line of session metadata, then one line per
 * message record (`user`, or `gemini` with its `toolCalls` and `thoughts`); a record written again with
 * the same `id` replaces the earlier one, as Gemini does when a model message's tool calls finish, so
 * a call's `result` (its functionResponse parts) and `status` arrive on a later line.
 */
export function geminiTranslator(context: ViewContext): TranscriptTranslator {
  let model = "";
  let last: GeminiMessage | undefined;
  return {
    lines(entry: SessionEntry) {
      if (entry.type === "session") {
        model = modelIdOf(entry.model);
        const started = entry.createdAt || new Date().toISOString();
        return [
          {
            sessionId: context.sessionId,
            projectHash: createHash("sha256").update(context.cwd).digest("hex"),
            startTime: started,
            lastUpdated: started,
            kind: "main",
          },
        ];
      }
      if (entry.type === "compaction") return [];
      const { message } = entry;
      if (message.role === "user" || message.role === "summary") {
        last = undefined;
        return [{ id: randomUUID(), timestamp: entry.at, type: "user", content: [{ text: message.text }] }];
      }
      if (message.role === "assistant") {
        last = {
          id: randomUUID(),
          timestamp: entry.at,
          type: "gemini",
          content: message.text,
          thoughts: message.thinking
            ? [{ subject: "", description: message.thinking, timestamp: entry.at }]
            : [],
          model,
          ...(message.toolCalls.length > 0
            ? { toolCalls: message.toolCalls.map((call) => geminiCall(call, context.cwd, entry.at)) }
            : {}),
        };
        return [last];
      }
      // the results fill in the calls of the model message before them, which is written again
      if (last?.toolCalls === undefined) return [];
      const byId = new Map(message.results.map((result) => [result.callId, result]));
      const toolCalls = last.toolCalls.map((call) => {
        const result = byId.get(call.id);
        if (result === undefined) return call;
        const response = result.error ? { error: result.text } : { output: result.text };
        return {
          ...call,
          result: [{ functionResponse: { id: call.id, name: call.name, response } }],
          status: result.error ? ("error" as const) : ("success" as const),
          timestamp: entry.at,
        };
      });
      last = { ...last, toolCalls };
      return [last];
    },
  };
}

function geminiCall(call: ToolCallRecord, root: string, at: string): GeminiToolCall {
  const shaped = dialectCall(GEMINI_TOOLS, call, root);
  const mcp = /^mcp__(.+?)__(.+)$/.exec(call.name);
  const name = mcp ? geminiMcpName({ server: mcp[1] as string, tool: mcp[2] as string }) : shaped.name;
  return { id: call.callId, name, args: shaped.args, status: "scheduled", timestamp: at };
}
