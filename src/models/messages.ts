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
    for (const part of convertedOnce(message, options.toolsDeclared, imagesInToolResults)) out.push(part);
  }
  return out;
}

interface Converted {
  toolsDeclared: boolean;
  imagesInToolResults: boolean;
  /** What the conversion read from the message, compared by identity: a changed message is converted again. */
  read: unknown[];
  out: ModelMessage[];
}

/**
 * Every turn sends the whole conversation, so each message is converted once and its result reused while
 * the message holds the same values (messages are plain data, and one is changed in place now and then:
 * an unanswered call's result is appended to its tool message).
 */
const converted = new WeakMap<ConversationMessage, Converted>();

function convertedOnce(
  message: ConversationMessage,
  toolsDeclared: boolean,
  imagesInToolResults: boolean,
): ModelMessage[] {
  const cached = converted.get(message);
  if (
    cached &&
    cached.toolsDeclared === toolsDeclared &&
    cached.imagesInToolResults === imagesInToolResults &&
    holdsValues(message, cached.read)
  )
    return cached.out;
  const out = convert(message, toolsDeclared, imagesInToolResults);
  converted.set(message, { toolsDeclared, imagesInToolResults, read: valuesRead(message), out });
  return out;
}

/** Every value of a message the conversion reads, in a fixed order (a result's or call's own fields too). */
function valuesRead(message: ConversationMessage): unknown[] {
  switch (message.role) {
    case "user":
      return [message.text, message.source];
    case "summary":
      return [message.text];
    case "assistant":
      return [message.text, ...message.toolCalls.flatMap((c) => [c.callId, c.name, c.args])];
    case "tool":
      return message.results.flatMap((r) => [r.callId, r.name, r.text, r.error, r.images, r.images?.length]);
  }
}

/** Whether the message still holds `read` (valuesRead's order), without building a new list each turn. */
function holdsValues(message: ConversationMessage, read: readonly unknown[]): boolean {
  switch (message.role) {
    case "user":
      return read[0] === message.text && read[1] === message.source;
    case "summary":
      return read[0] === message.text;
    case "assistant": {
      if (read.length !== 1 + 3 * message.toolCalls.length || read[0] !== message.text) return false;
      let at = 1;
      for (const call of message.toolCalls) {
        if (read[at++] !== call.callId || read[at++] !== call.name || read[at++] !== call.args) return false;
      }
      return true;
    }
    case "tool": {
      if (read.length !== 6 * message.results.length) return false;
      let at = 0;
      for (const r of message.results) {
        if (read[at++] !== r.callId || read[at++] !== r.name || read[at++] !== r.text) return false;
        if (read[at++] !== r.error || read[at++] !== r.images || read[at++] !== r.images?.length)
          return false;
      }
      return true;
    }
  }
}

function convert(
  message: ConversationMessage,
  toolsDeclared: boolean,
  imagesInToolResults: boolean,
): ModelMessage[] {
  if (!toolsDeclared && (message.role === "tool" || message.role === "assistant"))
    return [toolFreeMessage(message)];
  switch (message.role) {
    case "user":
      return [
        { role: "user", content: message.source ? `[${message.source}] ${message.text}` : message.text },
      ];
    case "summary":
      return [
        {
          role: "user",
          content: `[Summary of the earlier conversation, compacted to fit the context window]\n${message.text}`,
        },
      ];
    case "assistant":
      return [
        {
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
        },
      ];
    case "tool":
      return imagesInToolResults
        ? [{ role: "tool", content: message.results.map(toResultPart) }]
        : toolMessageWithImagesAfter(message.results);
  }
}

/** OpenAI's protocol: the tool message as text, each result's images in a user message after it. */
function toolMessageWithImagesAfter(results: readonly ToolResultRecord[]): ModelMessage[] {
  const out: ModelMessage[] = [
    { role: "tool", content: results.map((result) => toResultPart(withoutImages(result))) },
  ];
  for (const result of results) {
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
