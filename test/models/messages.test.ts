import { describe, expect, it } from "vitest";
import {
  answerUnansweredCalls,
  type ConversationMessage,
  createConversation,
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

  it("converts a message again once it changed in place (an unanswered call's result appended)", () => {
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

  it("converts a message again when a result's text or the options differ", () => {
    const messages = conversationWithCalls();
    toModelMessages(messages);
    const tool = messages[2] as Extract<ConversationMessage, { role: "tool" }>;
    (tool.results[0] as { text: string }).text = "A, cut to fit";
    expect(toModelMessages(messages).at(-1)).toMatchObject({
      content: [{ output: { type: "text", value: "A, cut to fit" } }],
    });
    // without declared tools, calls and results travel as text
    const toolFree = toModelMessages(messages, { toolsDeclared: false });
    expect(toolFree.at(-1)).toEqual({ role: "user", content: "[view_file returned]\nA, cut to fit" });
    expect(toModelMessages(messages).at(-1)).toMatchObject({ role: "tool" });
  });
});
