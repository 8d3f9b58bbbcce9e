import { randomBytes, randomUUID } from "node:crypto";
import type { ConversationMessage } from "../../agent/conversation.js";
import type { DialectTool } from "../dialects/tool-map.js";
import {
  dialectCall,
  modelIdOf,
  type SessionEntry,
  type TranscriptTranslator,
  type ViewContext,
} from "./entries.js";

/**
 * Claude Code's transcript: one JSON line per message, chained by `uuid` / `parentUuid`, with the
 * Anthropic message as `message` (an assistant's `content` blocks: `thinking`, `text`, `tool_use` with
 * Claude's tool name and input; tool results as a user message of `tool_result` blocks), and a
 * compaction as a `summary` line. Qwen Code's hooks get their own (qwen-lines.ts).
 */
export function claudeTranslator(
  context: ViewContext,
  tools: Record<string, DialectTool>,
): TranscriptTranslator {
  let parent: string | null = null;
  let model = "";
  return {
    lines(entry: SessionEntry) {
      if (entry.type === "session") {
        model = modelIdOf(entry.model);
        return [];
      }
      if (entry.type === "compaction") return [{ type: "summary", summary: entry.summary, leafUuid: parent }];
      const shaped = claudeMessage(entry.message, model, tools, context.cwd);
      if (shaped === undefined) return [];
      const uuid = randomUUID();
      const line = {
        parentUuid: parent,
        isSidechain: false,
        userType: "external",
        cwd: context.cwd,
        sessionId: context.sessionId,
        type: shaped.role,
        message: shaped,
        uuid,
        timestamp: entry.at,
      };
      parent = uuid;
      return [line];
    },
  };
}

function claudeMessage(
  message: ConversationMessage,
  model: string,
  tools: Record<string, DialectTool>,
  root: string,
): ({ role: "user" | "assistant" } & Record<string, unknown>) | undefined {
  switch (message.role) {
    case "user":
      return { role: "user", content: message.text };
    case "summary":
      return { role: "user", content: message.text };
    case "tool":
      return {
        role: "user",
        content: message.results.map((result) => ({
          tool_use_id: result.callId,
          type: "tool_result",
          content: result.text,
          is_error: result.error,
        })),
      };
    case "assistant": {
      const content: Record<string, unknown>[] = [];
      if (message.thinking) content.push({ type: "thinking", thinking: message.thinking, signature: "" });
      if (message.text) content.push({ type: "text", text: message.text });
      for (const call of message.toolCalls) {
        const { name, args } = dialectCall(tools, call, root);
        content.push({ type: "tool_use", id: call.callId, name, input: args });
      }
      return {
        id: `msg_${randomBytes(12).toString("hex")}`,
        type: "message",
        role: "assistant",
        model,
        content,
        stop_reason: message.toolCalls.length > 0 ? "tool_use" : "end_turn",
        stop_sequence: null,
      };
    }
  }
}
