import { randomUUID } from "node:crypto";
import type { ConversationMessage } from "../../agent/conversation.js";
import { QWEN_TOOLS } from "../dialects/tool-tables.js";
import {
  dialectCall,
  modelIdOf,
  type SessionEntry,
  type TranscriptTranslator,
  type ViewContext,
} from "./entries.js";

/**
 * Qwen Code's session file: one chat record per line, chained by `uuid` / `parentUuid`, each with the
 * Gemini-style `message` content (`role` user or model, `parts`): a prompt is a `user` record, a model
 * message an `assistant` record (text, `thought` parts, `functionCall` parts with Qwen's tool names), and
 * each tool result a `tool_result` record of its own (a `functionResponse` part, with `toolCallResult`).
 * A compaction is a `system` record of subtype `chat_compression`.
 */
export function qwenTranslator(context: ViewContext): TranscriptTranslator {
  let parent: string | null = null;
  let model = "";
  const record = (at: string, fields: Record<string, unknown>) => {
    const uuid = randomUUID();
    const line = {
      uuid,
      parentUuid: parent,
      sessionId: context.sessionId,
      timestamp: at,
      cwd: context.cwd,
      ...fields,
    };
    parent = uuid;
    return line;
  };
  return {
    lines(entry: SessionEntry) {
      if (entry.type === "session") {
        model = modelIdOf(entry.model);
        return [];
      }
      if (entry.type === "compaction")
        return [
          record(entry.at, {
            type: "system",
            subtype: "chat_compression",
            systemPayload: { compressedHistory: [{ role: "user", parts: [{ text: entry.summary }] }] },
          }),
        ];
      return messageRecords(entry.message, context.cwd, model).map((fields) => record(entry.at, fields));
    },
  };
}

function messageRecords(
  message: ConversationMessage,
  root: string,
  model: string,
): Record<string, unknown>[] {
  switch (message.role) {
    case "user":
    case "summary":
      return [{ type: "user", message: { role: "user", parts: [{ text: message.text }] } }];
    case "assistant": {
      const parts: Record<string, unknown>[] = [];
      if (message.thinking) parts.push({ text: message.thinking, thought: true });
      if (message.text) parts.push({ text: message.text });
      for (const call of message.toolCalls) {
        const { name, args } = dialectCall(QWEN_TOOLS, call, root);
        parts.push({ functionCall: { id: call.callId, name, args } });
      }
      return [{ type: "assistant", message: { role: "model", parts }, model }];
    }
    case "tool":
      return message.results.map((result) => {
        const { name } = dialectCall(
          QWEN_TOOLS,
          { callId: result.callId, name: result.name, args: {} },
          root,
        );
        const response = result.error ? { error: result.text } : { output: result.text };
        return {
          type: "tool_result",
          message: { role: "user", parts: [{ functionResponse: { id: result.callId, name, response } }] },
          toolCallResult: {
            callId: result.callId,
            status: result.error ? "error" : "success",
            resultDisplay: result.text,
          },
        };
      });
  }
}
