import { afterEach, describe, expect, it } from "vitest";
import type { ModelStreamPart } from "../../src/models/client.js";
import { createModelClient } from "../../src/models/client.js";
import { contextWindowFor } from "../../src/models/context-windows.js";
import { createLanguageModel, type ProviderName } from "../../src/models/provider.js";
import { type ModelServer, type Protocol, startModelServer } from "../support/model-server.js";

const PROTOCOLS: [Protocol, ProviderName][] = [
  ["openai", "openai"],
  ["anthropic", "anthropic"],
  ["gemini", "google"],
];
const KEYS = { OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k", GEMINI_API_KEY: "k" };

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function clientFor(provider: ProviderName, baseUrl: string) {
  const made = createLanguageModel({ model: `${provider}:test-model`, baseUrl, env: KEYS });
  if (!made.ok) throw new Error(made.message);
  return createModelClient(made.value.spec, made.value.model, contextWindowFor(made.value.spec));
}

async function collect(stream: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const parts: ModelStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

const declarations = [
  {
    name: "view_file",
    description: "Reads a file",
    parameters: {
      type: "object",
      properties: { AbsolutePath: { type: "string" } },
      required: ["AbsolutePath"],
    },
  },
];

describe.each(PROTOCOLS)("model seam over the %s protocol", (protocol, provider) => {
  it("streams text, returns tool calls unexecuted with their arguments reassembled, and reports usage", async () => {
    server = await startModelServer([
      {
        text: "Let me look.",
        toolCalls: [{ name: "view_file", args: { AbsolutePath: "/tmp/some/long/path/file.txt" } }],
        usage: { input: 120, output: 30 },
      },
    ]);
    const client = clientFor(provider, server.baseUrl(protocol));
    const parts = await collect(
      client.streamTurn({
        system: "You are a test.",
        messages: [{ role: "user", text: "read it" }],
        tools: declarations,
        signal: new AbortController().signal,
      }),
    );
    server.assertDone();
    const text = parts.flatMap((p) => (p.type === "text_delta" ? [p.text] : [])).join("");
    expect(text).toBe("Let me look.");
    const calls = parts.flatMap((p) => (p.type === "tool_call" ? [p.call] : []));
    expect(calls).toHaveLength(1);
    expect(calls[0]?.name).toBe("view_file");
    expect(calls[0]?.args).toEqual({ AbsolutePath: "/tmp/some/long/path/file.txt" });
    const finish = parts.find((p) => p.type === "finish");
    expect(finish).toMatchObject({ usage: { inputTokens: 120, outputTokens: 30 } });
    expect(server.requests[0]?.text).toContain("You are a test.");
    expect(server.requests[0]?.text).toContain("view_file");
  });

  it("reports the cached part of the input as the provider counts it", async () => {
    // OpenAI reports no cache writes; Anthropic and Gemini count reads (Anthropic writes too)
    const usage = {
      input: 1_000,
      output: 20,
      cacheRead: 800,
      ...(protocol === "anthropic" ? { cacheWrite: 150 } : {}),
    };
    server = await startModelServer([{ text: "ok", usage }]);
    const client = clientFor(provider, server.baseUrl(protocol));
    const parts = await collect(
      client.streamTurn({
        system: "s",
        messages: [{ role: "user", text: "hi" }],
        tools: [],
        signal: new AbortController().signal,
      }),
    );
    expect(parts.find((p) => p.type === "finish")).toMatchObject({
      usage: {
        inputTokens: 1_000,
        outputTokens: 20,
        cacheReadTokens: 800,
        ...(protocol === "anthropic" ? { cacheWriteTokens: 150 } : {}),
      },
    });
  });

  it("sends earlier tool calls and results back in the provider's own shape", async () => {
    server = await startModelServer([{ text: "done" }]);
    const client = clientFor(provider, server.baseUrl(protocol));
    await collect(
      client.streamTurn({
        system: "s",
        messages: [
          { role: "user", text: "read it" },
          {
            role: "assistant",
            text: "",
            toolCalls: [{ callId: "c1", name: "view_file", args: { AbsolutePath: "/x" } }],
          },
          {
            role: "tool",
            results: [{ callId: "c1", name: "view_file", text: "FILE-CONTENT-42", error: false }],
          },
        ],
        tools: declarations,
        signal: new AbortController().signal,
      }),
    );
    server.assertDone();
    expect(server.requests[0]?.text).toContain("FILE-CONTENT-42");
  });

  it("sends earlier tool calls as text when the request declares no tools", async () => {
    server = await startModelServer([{ text: "summary" }]);
    const client = clientFor(provider, server.baseUrl(protocol));
    await collect(
      client.streamTurn({
        system: "s",
        messages: [
          { role: "user", text: "read it" },
          {
            role: "assistant",
            text: "",
            toolCalls: [{ callId: "c1", name: "view_file", args: { AbsolutePath: "/x" } }],
          },
          {
            role: "tool",
            results: [{ callId: "c1", name: "view_file", text: "FILE-CONTENT-42", error: false }],
          },
        ],
        tools: [],
        signal: new AbortController().signal,
      }),
    );
    server.assertDone();
    const sent = server.requests[0]?.text ?? "";
    expect(sent).toContain("FILE-CONTENT-42");
    expect(sent).toContain("[called view_file");
    expect(sent).not.toMatch(/tool_use|tool_calls|functionCall|"tool"/);
  });

  it.each([
    [401, "auth"],
    [400, "bad_request"],
    [429, "rate_limit"],
    [500, "server"],
  ])("classifies HTTP %i as %s", async (status, kind) => {
    server = await startModelServer([{ error: { status, message: "scripted failure" } }]);
    const client = clientFor(provider, server.baseUrl(protocol));
    const parts = await collect(
      client.streamTurn({
        system: "s",
        messages: [{ role: "user", text: "hi" }],
        tools: [],
        signal: new AbortController().signal,
      }),
    );
    const error = parts.find((p) => p.type === "error");
    expect(error).toMatchObject({ error: { kind, status } });
    if (error?.type === "error") expect(error.error.message).toContain("scripted failure");
  });
});

describe("model seam", () => {
  it("reports an unreachable server as a network error", async () => {
    const client = clientFor("openai", "http://127.0.0.1:1/v1");
    const parts = await collect(
      client.streamTurn({
        system: "s",
        messages: [{ role: "user", text: "hi" }],
        tools: [],
        signal: new AbortController().signal,
      }),
    );
    expect(parts.at(-1)).toMatchObject({ type: "error", error: { kind: "network" } });
  });

  it("fails loudly on a request the script did not expect", async () => {
    server = await startModelServer([]);
    const client = clientFor("openai", server.baseUrl("openai"));
    const parts = await collect(
      client.streamTurn({
        system: "s",
        messages: [{ role: "user", text: "surprise" }],
        tools: [],
        signal: new AbortController().signal,
      }),
    );
    expect(parts.at(-1)).toMatchObject({ type: "error", error: { kind: "server", status: 500 } });
    expect(server.failures[0]).toContain("surprise");
    expect(() => server?.assertDone()).toThrow(/unexpected request/);
  });
});
