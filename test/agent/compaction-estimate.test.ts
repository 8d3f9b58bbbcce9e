import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { estimateTokens } from "../../src/agent/context.js";
import { type ConversationMessage, createConversation } from "../../src/agent/conversation.js";
import type { AgentEvent } from "../../src/agent/events.js";
import { runAgentLoop } from "../../src/agent/loop.js";
import { createModelClient } from "../../src/models/client.js";
import { createLanguageModel } from "../../src/models/provider.js";
import { defineTool, okResult } from "../../src/tools/contract.js";
import { createToolPipeline } from "../../src/tools/pipeline.js";
import { createToolRegistry } from "../../src/tools/registry.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const bulky = defineTool({
  spec: {
    name: "bulky",
    description: "Returns 2,000 characters.",
    parameters: z.object({}),
    safety: "read_only",
    group: "Read",
  },
  execute: async () => okResult("x".repeat(2000)),
});

/** A user message that counts how often it is serialised (the estimate's JSON.stringify of each message). */
function countedMessage(): { message: ConversationMessage; serialised: () => number } {
  let count = 0;
  const message = {
    role: "user",
    text: "the first task",
    toJSON() {
      count++;
      return { role: "user", text: "the first task" };
    },
  } as ConversationMessage;
  return { message, serialised: () => count };
}

describe("estimateTokens", () => {
  it("serialises a message once however often the same list is counted, and counts what changed", () => {
    const first = countedMessage();
    const messages: ConversationMessage[] = [first.message, { role: "assistant", text: "ok", toolCalls: [] }];
    const fresh = (system = "") => estimateTokens(messages.slice(), system);
    expect(estimateTokens(messages, "sys")).toBe(fresh("sys"));
    messages.push({ role: "user", text: "y".repeat(100) });
    expect(estimateTokens(messages)).toBe(fresh());
    expect(estimateTokens(messages, "a longer system prompt")).toBe(fresh("a longer system prompt"));
    // `fresh` serialised it on each of its three calls, the list's own count only on the first
    expect(first.serialised()).toBe(1 + 3);
    messages[1] = { role: "assistant", text: "a changed copy in its place", toolCalls: [] };
    expect(estimateTokens(messages)).toBe(fresh());
    messages.splice(0, 2, { role: "summary", text: "s" });
    expect(estimateTokens(messages)).toBe(fresh());
    messages.length = 0;
    expect(estimateTokens(messages, "sys")).toBe(Math.ceil(3 / 4));
  });
});

describe("the compaction check when the provider reports no usage", () => {
  it("serialises each message once, and compacts at the same estimate as counting them all", async () => {
    const noUsage = { input: 0, output: 0 };
    server = await startModelServer([
      { toolCalls: [{ name: "bulky", args: {}, id: "b1" }], usage: noUsage },
      { toolCalls: [{ name: "bulky", args: {}, id: "b2" }], usage: noUsage },
      {
        expect: (request) => expect(request.text).toContain("Summarise the conversation"),
        text: "SUMMARY",
        usage: noUsage,
      },
      { text: "done", usage: noUsage },
    ]);
    const made = createLanguageModel({
      model: "openai:test",
      baseUrl: server.baseUrl("openai"),
      env: { OPENAI_API_KEY: "k" },
    });
    if (!made.ok) throw new Error(made.message);
    const model = createModelClient(made.value.spec, made.value.model, 1000);
    const pipeline = createToolPipeline({ registry: createToolRegistry([bulky]), maxOutputChars: 10_000 });
    const first = countedMessage();
    const conversation = createConversation([first.message]);
    const seen: ConversationMessage[] = [first.message];
    let compaction: Extract<AgentEvent, { type: "compaction" }> | undefined;
    let before: ConversationMessage[] = [];
    const result = await runAgentLoop(conversation, model, pipeline, {
      system: "test system",
      input: [{ role: "user", text: "go" }],
      // about 550 tokens a turn: the third turn's check is past 80% of the window
      compaction: { contextWindow: 1000, keepRecentTurns: 1 },
      onEvent(event) {
        if (event.type === "message") seen.push(event.message);
        if (event.type === "compaction" && !compaction) {
          compaction = event;
          before = [...seen];
        }
      },
    });
    expect(result).toMatchObject({ reason: "completed", text: "done" });
    // three checks before the compaction: the first message was serialised at the first one only
    expect(first.serialised()).toBe(1);
    expect(compaction?.tokensBefore).toBe(estimateTokens(before, "test system"));
    expect(conversation.messages[0]).toMatchObject({ role: "summary" });
    server.assertDone();
  });
});
