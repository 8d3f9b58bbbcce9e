import type { ImagePart, ToolErrorCode, ToolResult } from "../tools/contract.js";

/**
 * Gantry's own conversation, independent of any provider: src/models turns it into an AI SDK call.
 * Every tool call of an assistant message is answered by exactly one result in the tool message after it.
 */
export interface ToolCallRecord {
  callId: string;
  name: string;
  /** The arguments as the model sent them (an object, or the raw text when it was not JSON). */
  args: unknown;
}

export interface ToolResultRecord {
  callId: string;
  name: string;
  text: string;
  error: boolean;
  errorCode?: ToolErrorCode;
  images?: ImagePart[];
}

/**
 * A message is a value: once in a conversation it is not changed in place. Code that changes one puts a
 * changed copy in its place (the conversion for the model reuses its work by message identity).
 */
export type ConversationMessage =
  /** `source` names who wrote it when not the user: `schedule 3`, `agent a1`, ... */
  | { role: "user"; text: string; source?: string }
  /** `thinking`: the reasoning the model streamed before this answer (kept for the record, not sent back). */
  | { role: "assistant"; text: string; toolCalls: ToolCallRecord[]; thinking?: string }
  | { role: "tool"; results: ToolResultRecord[] }
  /** Older turns compacted into a summary by the model. */
  | { role: "summary"; text: string };

/** The messages of one agent, in order. Plain data: sessions save it, subagents fork it. */
export interface Conversation {
  messages: ConversationMessage[];
}

export function createConversation(messages: ConversationMessage[] = []): Conversation {
  return { messages: [...messages] };
}

/**
 * Work done over a message list, kept for the next call on the same list: `values[i]` is what the work
 * had reached after `sources[i]`, the message at index i then.
 */
export interface ListMemo<V> {
  sources: ConversationMessage[];
  values: V[];
}

/**
 * Per-turn work over the whole conversation, made incremental: the memo of `messages` (`create`d for a
 * list not seen before), cut to the leading messages that are still the very objects it saw (messages
 * are values, so an unchanged object is an unchanged message). The caller goes on from `kept`.
 */
export function memoFor<M extends ListMemo<unknown>>(
  memos: WeakMap<readonly ConversationMessage[], M>,
  messages: readonly ConversationMessage[],
  create: () => M,
): { memo: M; kept: number } {
  let memo = memos.get(messages);
  if (!memo) {
    memo = create();
    memos.set(messages, memo);
  }
  const length = Math.min(messages.length, memo.sources.length);
  let kept = 0;
  while (kept < length && messages[kept] === memo.sources[kept]) kept++;
  memo.sources.length = kept;
  memo.values.length = kept;
  return { memo, kept };
}

export function toResultRecord(call: ToolCallRecord, result: ToolResult): ToolResultRecord {
  const record: ToolResultRecord = {
    callId: call.callId,
    name: call.name,
    text: result.text,
    error: result.error,
  };
  if (result.errorCode) record.errorCode = result.errorCode;
  if (result.images && result.images.length > 0) record.images = result.images;
  return record;
}

/**
 * Answers every tool call that has no result (a crash or kill mid-tool) with an "aborted" result,
 * so the conversation can be sent to a provider again. Returns the messages it added.
 */
export function answerUnansweredCalls(conversation: Conversation): ConversationMessage[] {
  const added: ConversationMessage[] = [];
  const messages = conversation.messages;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (message?.role !== "assistant" || message.toolCalls.length === 0) continue;
    const next = messages[i + 1];
    const answered = new Set(next?.role === "tool" ? next.results.map((r) => r.callId) : []);
    const missing = message.toolCalls.filter((call) => !answered.has(call.callId));
    if (missing.length === 0) continue;
    const results = missing.map((call) => abortedRecord(call, "the session ended before it finished"));
    if (next?.role === "tool") {
      // a changed copy in its place: a message is never changed in place (ConversationMessage)
      const completed: ConversationMessage = { role: "tool", results: [...next.results, ...results] };
      messages[i + 1] = completed;
      added.push(completed);
    } else {
      const toolMessage: ConversationMessage = { role: "tool", results };
      messages.splice(i + 1, 0, toolMessage);
      added.push(toolMessage);
    }
  }
  return added;
}

export function abortedRecord(call: ToolCallRecord, why: string): ToolResultRecord {
  return {
    callId: call.callId,
    name: call.name,
    text: `${call.name} was aborted: ${why}.`,
    error: true,
    errorCode: "aborted",
  };
}

/** The text of the last assistant message: a headless run's answer. */
export function lastAssistantText(conversation: Conversation): string {
  for (let i = conversation.messages.length - 1; i >= 0; i--) {
    const message = conversation.messages[i];
    if (message?.role === "assistant" && message.text.trim() !== "") return message.text;
  }
  return "";
}
