import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type ConversationMessage, createConversation } from "../../src/agent/conversation.js";
import type { AgentEvent } from "../../src/agent/events.js";
import { createAgentInbox } from "../../src/agent/inbox.js";
import { type AgentLoopOptions, runAgentLoop } from "../../src/agent/loop.js";
import { createModelClient } from "../../src/models/client.js";
import { createLanguageModel } from "../../src/models/provider.js";
import { type AnyTool, defineTool, okResult, type SafetyLevel } from "../../src/tools/contract.js";
import { createToolPipeline } from "../../src/tools/pipeline.js";
import { createToolRegistry } from "../../src/tools/registry.js";
import {
  type ModelServer,
  type Protocol,
  type ScriptedTurn,
  startModelServer,
} from "../support/model-server.js";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Span {
  name: string;
  start: number;
  end: number;
}

/** A test tool that takes `ms`, records when it ran, and stops early on abort. */
function timedTool(name: string, safety: SafetyLevel, spans: Span[]): AnyTool {
  return defineTool({
    spec: {
      name,
      description: `${name} test tool.`,
      parameters: z.object({ ms: z.number().describe("how long to take") }),
      safety,
      group: safety === "read_only" ? "Read" : "Edit",
    },
    async execute(args, ctx) {
      const start = performance.now();
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, args.ms);
        ctx.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(new Error("aborted"));
        });
      });
      spans.push({ name: `${name}:${ctx.callId}`, start, end: performance.now() });
      return okResult(`${name} done`);
    },
  });
}

const PROVIDER = { openai: "openai", anthropic: "anthropic", gemini: "google" } as const;

async function setup(
  turns: ScriptedTurn[],
  tools: AnyTool[],
  contextWindow = 100_000,
  protocol: Protocol = "openai",
) {
  server = await startModelServer(turns);
  const made = createLanguageModel({
    model: `${PROVIDER[protocol]}:test`,
    baseUrl: server.baseUrl(protocol),
    env: { OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k", GEMINI_API_KEY: "k" },
  });
  if (!made.ok) throw new Error(made.message);
  const model = createModelClient(made.value.spec, made.value.model, contextWindow);
  const pipeline = createToolPipeline({ registry: createToolRegistry(tools), maxOutputChars: 10_000 });
  const events: AgentEvent[] = [];
  const conversation = createConversation();
  const run = (options: Partial<AgentLoopOptions> = {}) =>
    runAgentLoop(conversation, model, pipeline, {
      system: "test system",
      input: [{ role: "user", text: "go" }],
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
      onEvent: (event) => events.push(event),
      ...options,
    });
  return { conversation, events, run, pipeline };
}

const call = (name: string, ms: number, id: string) => ({ name, args: { ms }, id });

describe("agent loop", () => {
  it("runs read-only calls in parallel and the others alone, in order, reporting results in the model's order", async () => {
    const spans: Span[] = [];
    const { events, run } = await setup(
      [
        {
          toolCalls: [
            call("read", 150, "r1"),
            call("read", 100, "r2"),
            call("write", 30, "w1"),
            call("read", 10, "r3"),
          ],
        },
        { text: "all done" },
      ],
      [timedTool("read", "read_only", spans), timedTool("write", "write", spans)],
    );
    const result = await run();
    expect(result).toMatchObject({ reason: "completed", turns: 2, text: "all done" });
    const span = (id: string) => spans.find((s) => s.name.endsWith(id)) as Span;
    expect(span("r2").start).toBeLessThan(span("r1").end); // r1 and r2 overlapped
    expect(span("w1").start).toBeGreaterThanOrEqual(Math.max(span("r1").end, span("r2").end));
    expect(span("r3").start).toBeGreaterThanOrEqual(span("w1").end);
    const order = events.flatMap((e) => (e.type === "tool_result" ? [e.call.callId] : []));
    expect(order).toEqual(["r1", "r2", "w1", "r3"]);
    server?.assertDone();
  });

  it("answers every call when aborted mid-tool, so the conversation stays consistent", async () => {
    const spans: Span[] = [];
    const { conversation, events, run } = await setup(
      [{ toolCalls: [call("write", 10_000, "slow"), call("write", 10, "never")] }],
      [timedTool("write", "write", spans)],
    );
    const controller = new AbortController();
    const running = run({
      signal: controller.signal,
      onEvent: (event) => {
        events.push(event);
        if (event.type === "turn_end" || event.type === "usage") setTimeout(() => controller.abort(), 50);
      },
    });
    const result = await running;
    expect(result.reason).toBe("aborted");
    const last = conversation.messages.at(-1);
    expect(last?.role).toBe("tool");
    if (last?.role === "tool") {
      expect(last.results.map((r) => [r.callId, r.errorCode])).toEqual([
        ["slow", "aborted"],
        ["never", "aborted"],
      ]);
    }
    expect(events.at(-1)).toMatchObject({ type: "done", reason: "aborted" });
  });

  it("stops at the turn limit", async () => {
    const { run } = await setup(
      [{ toolCalls: [call("read", 1, "a")] }, { toolCalls: [call("read", 1, "b")] }],
      [timedTool("read", "read_only", [])],
    );
    const result = await run({ maxTurns: 2 });
    expect(result).toMatchObject({ reason: "max_turns", turns: 2 });
    server?.assertDone();
  });

  it("starts a new turn for inbox messages posted during a turn", async () => {
    const inbox = createAgentInbox();
    const poster = defineTool({
      spec: {
        name: "post",
        description: "posts",
        parameters: z.object({}),
        safety: "read_only",
        group: "Read",
      },
      execute: async () => {
        inbox.post({ source: "schedule 7", text: "REMINDER-TEXT" });
        return okResult("posted");
      },
    });
    const { run } = await setup(
      [
        { toolCalls: [{ name: "post", args: {} }] },
        {
          expect: (request) => expect(request.text).toContain("[schedule 7] REMINDER-TEXT"),
          text: "handled reminder",
        },
      ],
      [poster],
    );
    // posted during the tool round, drained at the next turn boundary, beside the tool results
    const result = await run({ inbox });
    expect(result.text).toBe("handled reminder");
    server?.assertDone();
  });

  it("keeps a headless run open while background work holds the inbox, then answers its message", async () => {
    const inbox = createAgentInbox();
    const release = inbox.holdOpen();
    setTimeout(() => {
      inbox.post({ source: "agent bg1", text: "background finished: 3 files" });
      release();
    }, 300);
    const { run } = await setup(
      [
        { text: "started the background agent" },
        {
          expect: (request) => expect(request.text).toContain("background finished"),
          text: "the agent found 3 files",
        },
      ],
      [],
    );
    const result = await run({ inbox, waitForHeldWork: true });
    expect(result).toMatchObject({ reason: "completed", turns: 2, text: "the agent found 3 files" });
    server?.assertDone();
  });

  it("ends when the last hold is released without a message", async () => {
    const inbox = createAgentInbox();
    const release = inbox.holdOpen();
    setTimeout(release, 100);
    const { run } = await setup([{ text: "done" }], []);
    expect(await run({ inbox, waitForHeldWork: true })).toMatchObject({ reason: "completed", turns: 1 });
  });

  it("tags every event with the agent id and offers only the tools allowTool lets through", async () => {
    const spans: Span[] = [];
    const { events, run } = await setup(
      [
        {
          expect: (request) => {
            const names = (request.body.tools as { function: { name: string } }[]).map(
              (t) => t.function.name,
            );
            expect(names).toEqual(["read"]);
          },
          toolCalls: [call("write", 1, "w")],
        },
        { expect: (request) => expect(request.text).toContain("not in this agent's tool list"), text: "ok" },
      ],
      [timedTool("read", "read_only", spans), timedTool("write", "write", spans)],
    );
    await run({ agentId: "sub-1", allowTool: (name) => name === "read" });
    expect(spans).toHaveLength(0);
    expect(events.length).toBeGreaterThan(5);
    expect(events.every((e) => e.agentId === "sub-1")).toBe(true);
    server?.assertDone();
  });

  it("sends an unknown tool's error back to the model instead of failing", async () => {
    const { run } = await setup(
      [
        { toolCalls: [{ name: "reed", args: {} }] },
        { expect: (request) => expect(request.text).toContain("Unknown tool"), text: "fixed my mistake" },
      ],
      [timedTool("read", "read_only", [])],
    );
    expect((await run()).text).toBe("fixed my mistake");
    server?.assertDone();
  });

  it("gives up after the last retry and reports the provider's error", async () => {
    const { events, run } = await setup(
      [{ error: { status: 500, message: "boom 1" } }, { error: { status: 500, message: "boom 2" } }],
      [],
    );
    const result = await run({ retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 } });
    expect(result).toMatchObject({ reason: "error", error: { kind: "server", status: 500 } });
    const errors = events.filter((e) => e.type === "error");
    expect(errors).toHaveLength(2);
    expect(errors[0]).toHaveProperty("retryInMs");
    expect(errors[1]).not.toHaveProperty("retryInMs");
    server?.assertDone();
  });

  it("compacts once and asks again when the provider says the context is too long", async () => {
    const { conversation, events, run } = await setup(
      [
        { error: { status: 400, message: "prompt is too long: 250000 tokens > 200000 maximum" } },
        {
          expect: (request) => expect(request.text).toContain("Summarise the conversation"),
          text: "SUMMARY-X",
        },
        {
          expect: (request) => expect(request.text).toContain("SUMMARY-X"),
          text: "answered after compaction",
        },
      ],
      [],
    );
    conversation.messages.push(
      { role: "user", text: "old task" },
      { role: "assistant", text: "old answer", toolCalls: [] },
      { role: "user", text: "middle task" },
      { role: "assistant", text: "middle answer", toolCalls: [] },
    );
    const result = await run({ compaction: { contextWindow: 1_000_000, keepRecentTurns: 1 } });
    expect(result).toMatchObject({ reason: "completed", text: "answered after compaction" });
    expect(events.some((e) => e.type === "compaction")).toBe(true);
    expect(conversation.messages[0]?.role).toBe("summary");
    server?.assertDone();
  });

  it("never retries a bad request", async () => {
    const { run } = await setup([{ error: { status: 400, message: "messages: field required" } }], []);
    const result = await run();
    expect(result).toMatchObject({ reason: "error", error: { kind: "bad_request" } });
    expect(result.error?.message).toContain("messages: field required");
    server?.assertDone();
  });

  it("compacts older turns into a model-written summary when the window fills, keeping recent turns", async () => {
    const { conversation, events, run } = await setup(
      [
        {
          expect: (request) => {
            expect(request.text).toContain("Summarise the conversation");
            expect(request.body.tools).toBeUndefined();
            expect(request.text).toContain("OLD-DETAIL-1");
          },
          text: "SUMMARY: read a.txt; TODO: edit b.txt",
        },
        {
          expect: (request) => {
            expect(request.text).toContain("SUMMARY: read a.txt");
            expect(request.text).not.toContain("OLD-DETAIL-2");
            // the user's request stays verbatim: an unfinished task is never lost to the summary
            expect(request.text).toContain("first task OLD-DETAIL-1");
            expect(request.text).toContain("RECENT-DETAIL");
          },
          text: "continuing",
        },
      ],
      [],
      200,
    );
    conversation.messages.push(
      { role: "user", text: `first task OLD-DETAIL-1 ${"x".repeat(400)}` },
      { role: "assistant", text: `old answer OLD-DETAIL-2 ${"y".repeat(400)}`, toolCalls: [] },
      { role: "user", text: "RECENT-DETAIL please continue" },
      { role: "assistant", text: "recent answer", toolCalls: [] },
    );
    const result = await run({
      compaction: { contextWindow: 200, keepRecentTurns: 1 },
      input: [{ role: "user", text: "go on" }],
    });
    expect(events.filter((e) => e.type === "error")).toEqual([]);
    expect(result.text).toBe("continuing");
    expect(conversation.messages[0]?.role).toBe("summary");
    expect(conversation.messages[1]).toMatchObject({ role: "user", text: "RECENT-DETAIL please continue" });
    const compaction = events.find((e) => e.type === "compaction");
    expect(compaction).toMatchObject({ replacedCount: 2 });
    server?.assertDone();
  });
});

describe("compaction keeps the user's requests", () => {
  it("carries every request word for word through a second compaction", async () => {
    const first = await setup(
      [
        { text: "SUMMARY ONE" },
        {
          expect: (request) => {
            expect(request.text).toContain("task A: rename the config loader");
            expect(request.text).toContain("task B: and add a test");
          },
          text: "ok",
        },
      ],
      [],
      200,
    );
    first.conversation.messages.push(
      { role: "user", text: "task A: rename the config loader" },
      { role: "assistant", text: `working ${"y".repeat(400)}`, toolCalls: [] },
      { role: "user", text: "task B: and add a test\nwith two lines" },
      { role: "assistant", text: `still working ${"z".repeat(400)}`, toolCalls: [] },
      { role: "user", text: "RECENT" },
      { role: "assistant", text: "recent answer", toolCalls: [] },
    );
    await first.run({
      compaction: { contextWindow: 200, keepRecentTurns: 1 },
      input: [{ role: "user", text: "go" }],
    });
    const summary = first.conversation.messages[0];
    expect(summary?.role).toBe("summary");
    server?.assertDone();

    // a later compaction folds that summary in again: its kept requests survive with the new ones
    const second = await setup(
      [
        { text: "SUMMARY TWO" },
        {
          expect: (request) => {
            expect(request.text).toContain("SUMMARY TWO");
            expect(request.text).toContain("task A: rename the config loader");
            expect(request.text).toContain("task B: and add a test");
            expect(request.text).toContain("task C: then update the docs");
          },
          text: "ok again",
        },
      ],
      [],
      200,
    );
    second.conversation.messages.push(
      summary as ConversationMessage,
      { role: "user", text: "task C: then update the docs" },
      { role: "assistant", text: `docs ${"w".repeat(400)}`, toolCalls: [] },
      { role: "user", text: "RECENT 2" },
      { role: "assistant", text: "recent answer 2", toolCalls: [] },
    );
    const result = await second.run({
      compaction: { contextWindow: 200, keepRecentTurns: 1 },
      input: [{ role: "user", text: "go on" }],
    });
    expect(result.text).toBe("ok again");
    server?.assertDone();
  });
});

describe.each(["openai", "anthropic", "gemini"] as const)("agent loop over the %s protocol", (protocol) => {
  it("retries a turn whose connection dropped mid-stream, keeping only the complete answer", async () => {
    const { conversation, events, run } = await setup(
      [{ text: "partial answ", drop: true }, { text: "complete answer" }],
      [],
      100_000,
      protocol,
    );
    const result = await run();
    expect(result).toMatchObject({ reason: "completed", text: "complete answer" });
    expect(events.find((e) => e.type === "error")).toMatchObject({ error: { kind: "network" }, attempt: 1 });
    expect(conversation.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    server?.assertDone();
  });

  it("announces only the calls of the attempt that completed, each with exactly one result", async () => {
    const spans: Span[] = [];
    const { events, run } = await setup(
      [
        { text: "Reading.", toolCalls: [call("read", 1, "lost")], drop: true },
        { text: "Reading.", toolCalls: [call("read", 1, "kept")] },
        { text: "done" },
      ],
      [timedTool("read", "read_only", spans)],
      100_000,
      protocol,
    );
    const result = await run();
    expect(result).toMatchObject({ reason: "completed", text: "done" });
    const announced = events.flatMap((e) => (e.type === "tool_call" ? [e.call.callId] : []));
    const answered = events.flatMap((e) => (e.type === "tool_result" ? [e.call.callId] : []));
    // (Gemini's protocol has no call ids: Gantry makes its own, so compare the two lists)
    expect(announced).toHaveLength(1);
    expect(answered).toEqual(announced);
    expect(spans).toHaveLength(1);
    server?.assertDone();
  });

  it("keeps the text and tool calls already streamed and answers each call as aborted", async () => {
    const spans: Span[] = [];
    const controller = new AbortController();
    const { conversation, events, run } = await setup(
      [{ text: "Reading both.", toolCalls: [call("read", 1, "s1"), call("read", 1, "s2")], stall: true }],
      [timedTool("read", "read_only", spans)],
      100_000,
      protocol,
    );
    const result = await run({
      signal: controller.signal,
      onEvent: (event) => {
        events.push(event);
        if (event.type === "text_delta") setTimeout(() => controller.abort(), 300);
      },
    });
    expect(result.reason).toBe("aborted");
    expect(spans).toHaveLength(0);
    const callIds = events.flatMap((e) => (e.type === "tool_call" ? [e.call.callId] : []));
    const resultIds = events.flatMap((e) => (e.type === "tool_result" ? [e.call.callId] : []));
    // OpenAI's chat stream hands tool calls over only at the turn's end, the others as they complete
    expect(callIds.length).toBe(protocol === "openai" ? 0 : 2);
    expect(resultIds).toEqual(callIds);
    expect(conversation.messages.map((m) => m.role)).toEqual(
      protocol === "openai" ? ["user", "assistant"] : ["user", "assistant", "tool"],
    );
    expect(conversation.messages[1]).toMatchObject({ text: "Reading both." });
    const tool = conversation.messages[2];
    if (tool?.role === "tool") expect(tool.results.every((r) => r.errorCode === "aborted")).toBe(true);
  });
});
