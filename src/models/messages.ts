import type { ModelMessage, ToolResultPart } from "ai";
import {
  type ConversationMessage,
  type ListMemo,
  memoFor,
  type ToolResultRecord,
} from "../agent/conversation.js";

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

/**
 * Gantry's conversation → AI SDK messages (the provider packages take it from there). Every turn sends
 * the whole conversation, so the work is kept per message list: a call converts only the messages added
 * (or put in another's place) since the last call on the same list, and hands back a fresh array.
 */
export function toModelMessages(
  messages: readonly ConversationMessage[],
  options: ModelMessageOptions = { toolsDeclared: true },
): ModelMessage[] {
  const toolsDeclared = options.toolsDeclared;
  const imagesInToolResults = options.imagesInToolResults ?? true;
  const lists = convertedLists[Number(toolsDeclared) * 2 + Number(imagesInToolResults)] as ConvertedLists;
  const { memo: list, kept } = memoFor(lists, messages, () => ({ sources: [], values: [], out: [] }));
  list.out.length = kept === 0 ? 0 : (list.values[kept - 1] as number);
  for (let i = kept; i < messages.length; i++) {
    const message = messages[i] as ConversationMessage;
    for (const part of convertedOnce(message, toolsDeclared, imagesInToolResults)) list.out.push(part);
    list.sources.push(message);
    list.values.push(list.out.length);
  }
  return list.out.slice();
}

/** A message list as the last call converted it: `values[i]` is where the parts of message i end in `out`. */
interface ConvertedList extends ListMemo<number> {
  out: ModelMessage[];
}

type ConvertedLists = WeakMap<readonly ConversationMessage[], ConvertedList>;

/** By list (a conversation's messages array), one map for each set of options. */
const convertedLists: ConvertedLists[] = [new WeakMap(), new WeakMap(), new WeakMap(), new WeakMap()];

interface Converted {
  toolsDeclared: boolean;
  imagesInToolResults: boolean;
  out: ModelMessage[];
}

/**
 * Each message converted once, whichever list holds it (a subagent's fork, a hook's edited request): a
 * message is a value that is never changed in place (ConversationMessage), so its object is its key.
 */
const converted = new WeakMap<ConversationMessage, Converted>();

function convertedOnce(
  message: ConversationMessage,
  toolsDeclared: boolean,
  imagesInToolResults: boolean,
): ModelMessage[] {
  const cached = converted.get(message);
  if (cached && cached.toolsDeclared === toolsDeclared && cached.imagesInToolResults === imagesInToolResults)
    return cached.out;
  const out = convert(message, toolsDeclared, imagesInToolResults);
  converted.set(message, { toolsDeclared, imagesInToolResults, out });
  return out;
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
