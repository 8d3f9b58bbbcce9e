import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createConversation } from "../../src/agent/conversation.js";
import type { AgentEvent } from "../../src/agent/events.js";
import { runAgentLoop } from "../../src/agent/loop.js";
import { createModelClient } from "../../src/models/client.js";
import { createLanguageModel } from "../../src/models/provider.js";
import { defineTool, okResult } from "../../src/tools/contract.js";
import { createToolPipeline } from "../../src/tools/pipeline.js";
import { createToolRegistry } from "../../src/tools/registry.js";
import { type ModelServer, type ScriptedTurn, startModelServer } from "../support/model-server.js";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const KEYS = { OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k" };

/** A write tool that records what it was asked to write. */
function recordingTool(written: string[]) {
  return defineTool({
    spec: {
      name: "write_note",
      description: "Writes a note.",
      parameters: z.object({ text: z.string().describe("the note") }),
      safety: "write",
      group: "Edit",
    },
    async execute(args) {
      written.push(args.text);
      return okResult("written");
    },
  });
}

async function runScript(
  turns: ScriptedTurn[],
  options: { provider?: string; baseUrl?: (server: ModelServer) => string; written?: string[] } = {},
) {
  server = await startModelServer(turns);
  const provider = options.provider ?? "openai-compatible";
  const protocol = provider === "anthropic" ? "anthropic" : "openai";
  const made = createLanguageModel({
    model: `${provider}:local`,
    baseUrl: options.baseUrl ? options.baseUrl(server) : server.baseUrl(protocol),
    env: KEYS,
  });
  if (!made.ok) throw new Error(made.message);
  const model = createModelClient(made.value.spec, made.value.model, 32_768);
  const pipeline = createToolPipeline({
    registry: createToolRegistry([recordingTool(options.written ?? [])]),
    maxOutputChars: 10_000,
  });
  const events: AgentEvent[] = [];
  const conversation = createConversation();
  const result = await runAgentLoop(conversation, model, pipeline, {
    system: "test",
    input: [{ role: "user", text: "go" }],
    retry: { maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 2 },
    onEvent: (event) => events.push(event),
  });
  return { result, events, conversation };
}

describe.each(["openai-compatible", "anthropic"])("a turn cut by the output limit (%s)", (provider) => {
  it("reports a cut answer as cut, not as success", async () => {
    const { result } = await runScript([{ text: "The first half of the ans", cutOff: true }], { provider });
    expect(result.reason).toBe("max_tokens");
    expect(result.text).toBe("The first half of the ans");
  });

  it("never runs a tool call the limit cut off, and tells the model its call was cut", async () => {
    const written: string[] = [];
    const { result, events } = await runScript(
      [
        {
          toolCalls: [
            { name: "write_note", args: { text: "complete" } },
            { name: "write_note", args: { text: "half of" } },
          ],
          cutOff: true,
        },
        {
          text: "I will write it in parts.",
          expect: (request) => {
            if (!request.text.includes("was not run: your answer reached the model's output limit"))
              throw new Error("the model was not told its call was cut");
          },
        },
      ],
      { provider, written },
    );
    expect(written).toEqual(["complete"]); // the call before the cut one was whole and ran
    const results = events.flatMap((event) => (event.type === "tool_result" ? [event.result] : []));
    expect(results.map((r) => r.errorCode ?? "ok")).toEqual(["ok", "cut_off"]);
    expect(result.reason).toBe("completed");
    server?.assertDone();
  });
});

describe.each(["openai-compatible", "anthropic"])("reasoning (%s)", (provider) => {
  it("reaches the events as thinking and is kept on the assistant message", async () => {
    const { events, conversation } = await runScript([{ reasoning: "Let me think about it.", text: "42" }], {
      provider,
    });
    const thinking = events.flatMap((event) => (event.type === "thinking" ? [event.text] : [])).join("");
    expect(thinking).toBe("Let me think about it.");
    const answer = conversation.messages.find((message) => message.role === "assistant");
    expect(answer).toMatchObject({ text: "42", thinking: "Let me think about it." });
  });
});

describe("a model endpoint that is not the API", () => {
  const errorOf = (events: AgentEvent[]) =>
    events.flatMap((event) => (event.type === "error" ? [event] : []));

  it("names an HTML page and the likely fix (/v1 missing), without retrying", async () => {
    const page = "<html><head><title>Open WebUI</title></head><body>app</body></html>";
    const { result, events } = await runScript(
      [{ raw: { status: 200, contentType: "text/html; charset=utf-8", body: page } }],
      { baseUrl: (s) => s.origin },
    );
    expect(result.reason).toBe("error");
    expect(result.error?.message).toContain(
      `the model endpoint ${server?.origin}/chat/completions answered with an HTML page (HTTP 200, "Open WebUI")`,
    );
    expect(result.error?.message).toContain(`--base-url ${server?.origin}/v1`);
    expect(server?.requests).toHaveLength(1);
    expect(errorOf(events)[0]).not.toHaveProperty("retryInMs");
  });

  it("names a 404 with its URL and the likely fix, without retrying", async () => {
    const { result } = await runScript(
      [{ raw: { status: 404, contentType: "text/plain", body: "404 page not found" } }],
      {
        baseUrl: (s) => s.origin,
      },
    );
    expect(result.error?.message).toContain(
      `the model endpoint ${server?.origin}/chat/completions was not found (HTTP 404)`,
    );
    expect(result.error?.message).toContain(
      `The base URL probably needs "/v1" at its end: --base-url ${server?.origin}/v1`,
    );
    expect(server?.requests).toHaveLength(1);
  });

  it("names JSON where the stream should be", async () => {
    const { result } = await runScript(
      [
        {
          raw: {
            status: 200,
            contentType: "application/json",
            body: '{"error":"Unexpected endpoint or method. (POST /chat/completions)"}',
          },
        },
      ],
      {
        baseUrl: (s) => s.origin,
      },
    );
    expect(result.error?.message).toContain(
      'answered with JSON instead of a stream (HTTP 200): {"error":"Unexpected endpoint',
    );
    expect(server?.requests).toHaveLength(1);
  });

  it("does not retry a 5xx whose body says the request itself is unsupported", async () => {
    const { result } = await runScript([
      { error: { status: 500, message: "tools param requires --jinja flag" } },
    ]);
    expect(result.error?.message).toContain(
      "the provider cannot serve this request (HTTP 500): tools param requires --jinja flag",
    );
    expect(server?.requests).toHaveLength(1);
  });

  it("does not retry a 4xx", async () => {
    const { result } = await runScript([{ error: { status: 400, message: "bad tool schema" } }]);
    expect(result.error?.kind).toBe("bad_request");
    expect(server?.requests).toHaveLength(1);
  });

  it("still retries a plain 5xx", async () => {
    const { result } = await runScript([
      { error: { status: 503, message: "loading model" } },
      { text: "ok" },
    ]);
    expect(result).toMatchObject({ reason: "completed", text: "ok" });
  });

  it("refuses a base URL without a scheme before any request, naming the fix", () => {
    const made = createLanguageModel({
      model: "openai-compatible:qwen3",
      baseUrl: "localhost:11434/v1",
      env: {},
    });
    expect(made).toEqual({
      ok: false,
      message:
        'the base URL "localhost:11434/v1" is not an http:// or https:// URL: use --base-url http://localhost:11434/v1 (or "baseUrl": "http://localhost:11434/v1" in .agents/settings.json)',
    });
  });
});
