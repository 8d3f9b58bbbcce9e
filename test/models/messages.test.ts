import { describe, expect, it } from "vitest";
import { applyCompaction } from "../../src/agent/context.js";
import {
  answerUnansweredCalls,
  type ConversationMessage,
  createConversation,
  type ToolResultRecord,
} from "../../src/agent/conversation.js";
import { toModelMessages } from "../../src/models/messages.js";

function conversationWithCalls(): ConversationMessage[] {
  return [
    { role: "user", text: "read both" },
    {
      role: "assistant",
      text: "",
      toolCalls: [
        { callId: "c1", name: "view_file", args: { AbsolutePath: "/a" } },
        { callId: "c2", name: "view_file", args: { AbsolutePath: "/b" } },
      ],
    },
    { role: "tool", results: [{ callId: "c1", name: "view_file", text: "A", error: false }] },
  ];
}

describe("toModelMessages, converting each message once", () => {
  it("gives the same messages on every turn, and the new ones after them", () => {
    const messages = conversationWithCalls();
    const first = structuredClone(toModelMessages(messages));
    messages.push({ role: "user", text: "and now?" });
    const second = toModelMessages(messages);
    expect(second.slice(0, first.length)).toEqual(first);
    expect(second.at(-1)).toEqual({ role: "user", content: "and now?" });
  });

  it("converts a message again once answering an unanswered call put a completed copy in its place", () => {
    const conversation = createConversation(conversationWithCalls());
    const before = toModelMessages(conversation.messages);
    expect(before.at(-1)).toMatchObject({ role: "tool", content: [{ toolCallId: "c1" }] });
    answerUnansweredCalls(conversation);
    const after = toModelMessages(conversation.messages);
    expect(after.at(-1)).toMatchObject({
      role: "tool",
      content: [{ toolCallId: "c1" }, { toolCallId: "c2" }],
    });
  });

  it("converts a message again when a changed copy takes its place, or the options differ", () => {
    const messages = conversationWithCalls();
    toModelMessages(messages);
    const tool = messages[2] as Extract<ConversationMessage, { role: "tool" }>;
    messages[2] = { role: "tool", results: [{ ...(tool.results[0] as ToolResultRecord), text: "A, cut" }] };
    expect(toModelMessages(messages).at(-1)).toMatchObject({
      content: [{ output: { type: "text", value: "A, cut" } }],
    });
    // without declared tools, calls and results travel as text
    const toolFree = toModelMessages(messages, { toolsDeclared: false });
    expect(toolFree.at(-1)).toEqual({ role: "user", content: "[view_file returned]\nA, cut" });
    expect(toModelMessages(messages).at(-1)).toMatchObject({ role: "tool" });
  });

  it("reads only the messages added since the last call on the same list", () => {
    let reads = 0;
    const counted = {
      role: "user",
      get text() {
        reads++;
        return "read both";
      },
    } as ConversationMessage;
    const messages = [counted, ...conversationWithCalls().slice(1)];
    toModelMessages(messages);
    const readsOnce = reads;
    messages.push({ role: "user", text: "and now?" });
    expect(toModelMessages(messages).at(-1)).toEqual({ role: "user", content: "and now?" });
    toModelMessages(messages);
    expect(reads).toBe(readsOnce);
  });

  it("follows a list cut at the front (compaction), a message put in the middle, and a shorter list", () => {
    const messages = conversationWithCalls();
    messages.push({ role: "user", text: "next" }, { role: "assistant", text: "ok", toolCalls: [] });
    const fresh = () => toModelMessages(messages.slice());
    expect(toModelMessages(messages)).toEqual(fresh());
    applyCompaction({ messages }, "what happened", 3);
    expect(toModelMessages(messages)).toEqual(fresh());
    expect(toModelMessages(messages)[0]).toMatchObject({ content: expect.stringContaining("what happened") });
    messages.splice(1, 0, { role: "user", text: "inserted" });
    expect(toModelMessages(messages)).toEqual(fresh());
    messages.length = 2;
    expect(toModelMessages(messages)).toEqual(fresh());
    expect(toModelMessages(messages)).toHaveLength(2);
  });

  it("hands back a new array each call: a caller's change to it does not reach the next call", () => {
    const messages = conversationWithCalls();
    const first = toModelMessages(messages);
    first.pop();
    expect(toModelMessages(messages)).toHaveLength(3);
  });
});
