import type { ModelMessage, ToolResultPart } from "ai";
import type { ConversationMessage, ToolResultRecord } from "../agent/conversation.js";

export interface ModelMessageOptions {
  /** false: earlier tool calls travel as text (some providers refuse tool blocks in a request without tools). */
  toolsDeclared: boolean;
  /**
   * Whether the provider's protocol carries images inside a tool result (Anthropic, Gemini). OpenAI's
   * chat completions do not: a tool message is text only, and the SDK would print the image's base64
   * into it; there the images follow the tool message as a user message.
   */
  imagesInToolResults?: boolean;
}

/** Gantry's conversation → AI SDK messages (the provider packages take it from there). */
export function toModelMessages(
  messages: readonly ConversationMessage[],
  options: ModelMessageOptions = { toolsDeclared: true },
): ModelMessage[] {
  const imagesInToolResults = options.imagesInToolResults ?? true;
  const out: ModelMessage[] = [];
  for (const message of messages) {
    if (!options.toolsDeclared && (message.role === "tool" || message.role === "assistant")) {
      out.push(toolFreeMessage(message));
      continue;
    }
    switch (message.role) {
      case "user":
        out.push({
          role: "user",
          content: message.source ? `[${message.source}] ${message.text}` : message.text,
        });
        break;
      case "summary":
        out.push({
          role: "user",
          content: `[Summary of the earlier conversation, compacted to fit the context window]\n${message.text}`,
        });
        break;
      case "assistant":
        out.push({
          role: "assistant",
          content: [
            ...(message.text ? [{ type: "text" as const, text: message.text }] : []),
            ...message.toolCalls.map((call) => ({
              type: "tool-call" as const,
              toolCallId: call.callId,
              toolName: call.name,
              input: asInputObject(call.args),
            })),
          ],
        });
        break;
      case "tool":
        if (imagesInToolResults) {
          out.push({ role: "tool", content: message.results.map(toResultPart) });
          break;
        }
        out.push({
          role: "tool",
          content: message.results.map((result) => toResultPart(withoutImages(result))),
        });
        for (const result of message.results) {
          if (!result.images || result.images.length === 0) continue;
          out.push({
            role: "user",
            content: [
              { type: "text", text: `[the image(s) ${result.name} returned for call ${result.callId}]` },
              ...result.images.map((image) => ({
                type: "image" as const,
                image: image.data,
                mediaType: image.mimeType,
              })),
            ],
          });
        }
        break;
    }
  }
  return out;
}

function toolFreeMessage(
  message: Extract<ConversationMessage, { role: "tool" | "assistant" }>,
): ModelMessage {
  if (message.role === "assistant") {
    const calls = message.toolCalls.map((call) => `[called ${call.name} ${JSON.stringify(call.args)}]`);
    return { role: "assistant", content: [message.text, ...calls].filter(Boolean).join("\n") || "(no text)" };
  }
  const results = message.results.map((r) => `[${r.name} ${r.error ? "failed" : "returned"}]\n${r.text}`);
  return { role: "user", content: results.join("\n\n") };
}

/** Providers want an object; a call whose arguments were not JSON is replayed with the raw text. */
function asInputObject(args: unknown): Record<string, unknown> {
  if (typeof args === "object" && args !== null && !Array.isArray(args))
    return args as Record<string, unknown>;
  if (typeof args === "string") {
    try {
      const parsed: unknown = JSON.parse(args);
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
        return parsed as Record<string, unknown>;
    } catch {
      // not JSON: keep the raw text below
    }
  }
  return { raw: args };
}

/** A result whose images travel in a separate message: its text says where they are. */
function withoutImages(result: ToolResultRecord): ToolResultRecord {
  if (!result.images || result.images.length === 0) return result;
  const { images, ...rest } = result;
  const count = images.length === 1 ? "the image follows" : `the ${images.length} images follow`;
  return { ...rest, text: `${result.text}\n(${count} in the next message)` };
}

function toResultPart(result: ToolResultRecord): ToolResultPart {
  const base = { type: "tool-result" as const, toolCallId: result.callId, toolName: result.name };
  if (result.images && result.images.length > 0) {
    return {
      ...base,
      output: {
        type: "content",
        value: [
          { type: "text", text: result.text },
          ...result.images.map((image) => ({
            type: "file" as const,
            mediaType: image.mimeType,
            data: { type: "data" as const, data: image.data },
          })),
        ],
      },
    };
  }
  return {
    ...base,
    output: result.error ? { type: "error-text", value: result.text } : { type: "text", value: result.text },
  };
}
