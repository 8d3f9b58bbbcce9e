import type { ConversationMessage } from "../agent/conversation.js";
import type { ModelRequestOverride, ModelRequestView } from "../agent/loop-hooks.js";
import type { ModelCallSettings } from "../models/client.js";
import { isObject } from "./dialects/dialect.js";

/** A Gemini BeforeModel hook's `llm_request`, read: the parts Gantry can send differently. */
export interface LlmRequestEdit {
  /** The messages as the hook gave them back: the conversation's texts (Gemini CLI sends no system prompt there). */
  messages?: { role: string; content: string }[];
  settings?: ModelCallSettings;
  /** A model other than the session's: not applied (said once per call). */
  model?: string;
}

const SETTINGS = ["temperature", "maxOutputTokens", "topP", "topK"] as const;

export function llmRequestEdit(value: unknown): LlmRequestEdit | undefined {
  if (!isObject(value)) return undefined;
  const edit: LlmRequestEdit = {};
  if (Array.isArray(value.messages))
    edit.messages = value.messages.filter(isObject).map((message) => ({
      role: String(message.role ?? "user"),
      content: typeof message.content === "string" ? message.content : String(message.content ?? ""),
    }));
  if (isObject(value.config)) {
    const config = value.config;
    const settings = Object.fromEntries(
      SETTINGS.filter((key) => typeof config[key] === "number").map((key) => [key, config[key]]),
    );
    if (Object.keys(settings).length > 0) edit.settings = settings;
  }
  if (typeof value.model === "string" && value.model !== "") edit.model = value.model;
  return edit;
}

/**
 * What the model is sent instead, as Gemini CLI merges a hook's messages back: the hook's texts replace
 * those of the text-bearing messages in order (tool calls and results stay as they were), messages it
 * left out stay, and messages beyond the conversation's are added. The list holds no system prompt (Gemini
 * CLI's holds the conversation only), so the system prompt is never replaced or moved into the
 * conversation. The conversation itself is not changed: the edit holds for this call.
 */
export function applyLlmRequestEdit(request: ModelRequestView, edit: LlmRequestEdit): ModelRequestOverride {
  const override: ModelRequestOverride = edit.settings ? { settings: edit.settings } : {};
  if (!edit.messages) return override;
  const texts = [...edit.messages];
  const messages: ConversationMessage[] = request.messages.map((message) => {
    if (!carriesText(message)) return message;
    const next = texts.shift();
    return next === undefined ? message : { ...message, text: next.content };
  });
  for (const extra of texts)
    messages.push(
      extra.role === "model"
        ? { role: "assistant", text: extra.content, toolCalls: [] }
        : { role: "user", text: extra.content, source: "BeforeModel hook" },
    );
  override.messages = messages;
  return override;
}

/** The messages Gantry's `llm_request` lists (loop-bridge's textOf): user and summary texts, and replies with text. */
function carriesText(
  message: ConversationMessage,
): message is Extract<ConversationMessage, { text: string }> {
  if (message.role === "user" || message.role === "summary") return true;
  return message.role === "assistant" && message.text !== "";
}
