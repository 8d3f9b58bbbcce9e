import { APICallError, jsonSchema, type LanguageModel, streamText, type ToolSet, tool } from "ai";
import type { ConversationMessage, ToolCallRecord } from "../agent/conversation.js";
import type { ModelErrorInfo, TurnUsage } from "../agent/events.js";
import type { ToolDeclaration } from "../tools/registry.js";
import { MAX_TOOL_ARGUMENT_BYTES, oversizedArgumentsMessage } from "../tools/validation.js";
import { isResponseLineTooLong, ResponseLineTooLong } from "./bounded-fetch.js";
import { EndpointError, missingVersionHint } from "./endpoint.js";
import { toModelMessages } from "./messages.js";
import type { ModelSpec } from "./provider.js";

// Provider compatibility notes go to the event stream's consumers, not to stderr mid-output.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

export interface ModelTurnRequest {
  system: string;
  messages: readonly ConversationMessage[];
  /** Declared to the model; the SDK never runs them (the harness does, through the pipeline). */
  tools: readonly ToolDeclaration[];
  signal: AbortSignal;
  /** Generation settings for this call only (a Gemini BeforeModel hook's `llm_request.config`). */
  settings?: ModelCallSettings;
}

export interface ModelCallSettings {
  temperature?: number;
  maxOutputTokens?: number;
  topP?: number;
  topK?: number;
}

export type ModelStreamPart =
  | { type: "text_delta"; text: string }
  /** The model's reasoning (`reasoning_content`, thinking blocks), where the provider sends it. */
  | { type: "reasoning_delta"; text: string }
  /** `refused`: the call was cut off (its arguments grew past the limit); the loop answers it with this error. */
  | { type: "tool_call"; call: ToolCallRecord; refused?: string }
  | { type: "finish"; usage: TurnUsage; finishReason: string }
  | { type: "error"; error: ModelErrorInfo };

/** One model turn at a time; the agent loop owns everything else. */
export interface ModelClient {
  /** `provider:model-id` */
  readonly id: string;
  readonly contextWindow: number;
  streamTurn(request: ModelTurnRequest): AsyncIterable<ModelStreamPart>;
}

export function createModelClient(spec: ModelSpec, model: LanguageModel, contextWindow: number): ModelClient {
  return {
    id: `${spec.provider}:${spec.modelId}`,
    contextWindow,
    // only Anthropic's and Gemini's protocols put images inside a tool result
    streamTurn: (request) =>
      streamModelTurn(model, request, spec.provider === "anthropic" || spec.provider === "google"),
  };
}

async function* streamModelTurn(
  model: LanguageModel,
  request: ModelTurnRequest,
  imagesInToolResults: boolean,
): AsyncIterable<ModelStreamPart> {
  let failure: unknown;
  // ends the provider's stream when a call's arguments grow past the limit
  const cut = new AbortController();
  const meter = argumentMeter();
  const result = startStream(model, request, imagesInToolResults, cut.signal, (error) => {
    failure = error;
  });
  let finished = false;
  try {
    for await (const part of result.fullStream) {
      switch (part.type) {
        case "text-delta":
          if (part.text) yield { type: "text_delta", text: part.text };
          break;
        case "tool-input-start":
          meter.start(part.id, part.toolName);
          break;
        case "tool-input-delta": {
          const cutOff = meter.add(part.id, part.delta);
          if (!cutOff) break;
          cut.abort();
          yield* cutOff;
          return;
        }
        case "reasoning-delta":
          if (part.text) yield { type: "reasoning_delta", text: part.text };
          break;
        case "tool-call":
          yield {
            type: "tool_call",
            call: { callId: part.toolCallId, name: part.toolName, args: part.input },
          };
          break;
        case "finish-step":
          finished = true;
          yield { type: "finish", usage: toTurnUsage(part.usage), finishReason: part.finishReason };
          break;
        case "error":
          failure = part.error;
          break;
        case "abort":
          yield { type: "error", error: { kind: "aborted", message: "the model call was aborted" } };
          return;
      }
    }
  } catch (cause) {
    failure = cause;
  }
  if (failure !== undefined || request.signal.aborted) {
    yield { type: "error", error: classifyModelError(failure, request.signal) };
  } else if (!finished) {
    yield {
      type: "error",
      error: { kind: "network", message: "the model's stream ended without finishing" },
    };
  }
}

function startStream(
  model: LanguageModel,
  request: ModelTurnRequest,
  imagesInToolResults: boolean,
  cut: AbortSignal,
  onError: (error: unknown) => void,
) {
  return streamText({
    model,
    instructions: request.system,
    messages: toModelMessages(request.messages, {
      toolsDeclared: request.tools.length > 0,
      imagesInToolResults,
    }),
    tools: declareTools(request.tools),
    ...request.settings,
    abortSignal: AbortSignal.any([request.signal, cut]),
    // the harness retries (src/agent/retry.ts), so the SDK must not
    maxRetries: 0,
    onError: ({ error }) => onError(error),
  });
}

/**
 * Counts the argument bytes of each call as they stream. The delta that takes a call past the limit
 * yields the turn's end: the call, answered with an error and never run, then a finish.
 */
function argumentMeter() {
  const calls = new Map<string, { name: string; bytes: number }>();
  return {
    start(callId: string, name: string) {
      calls.set(callId, { name, bytes: 0 });
    },
    add(callId: string, delta: string): ModelStreamPart[] | undefined {
      const call = calls.get(callId);
      if (!call) return undefined;
      call.bytes += Buffer.byteLength(delta);
      if (call.bytes <= MAX_TOOL_ARGUMENT_BYTES) return undefined;
      const what = `The arguments of this ${call.name} call grew past ${MAX_TOOL_ARGUMENT_BYTES} bytes while you were still sending them, so your answer was cut there`;
      return [
        {
          type: "tool_call",
          call: { callId, name: call.name, args: {} },
          refused: oversizedArgumentsMessage(what),
        },
        { type: "finish", usage: { inputTokens: 0, outputTokens: 0 }, finishReason: "length" },
      ];
    },
  };
}

/** The same declarations every turn: converted once per list. */
const declaredToolSets = new WeakMap<readonly ToolDeclaration[], ToolSet>();

/** Declarations only: no `execute`, so the SDK stops after one step and hands the calls back. */
function declareTools(declarations: readonly ToolDeclaration[]): ToolSet {
  const cached = declaredToolSets.get(declarations);
  if (cached) return cached;
  const tools: ToolSet = {};
  for (const declaration of declarations) {
    tools[declaration.name] = tool({
      description: declaration.description,
      inputSchema: jsonSchema(declaration.parameters as Parameters<typeof jsonSchema>[0]),
    });
  }
  declaredToolSets.set(declarations, tools);
  return tools;
}

function toTurnUsage(usage: {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  inputTokenDetails?: { cacheReadTokens?: number | undefined; cacheWriteTokens?: number | undefined };
}): TurnUsage {
  const cacheRead = usage.inputTokenDetails?.cacheReadTokens ?? 0;
  const cacheWrite = usage.inputTokenDetails?.cacheWriteTokens ?? 0;
  return {
    inputTokens: usage.inputTokens ?? 0,
    outputTokens: usage.outputTokens ?? 0,
    ...(cacheRead > 0 ? { cacheReadTokens: cacheRead } : {}),
    ...(cacheWrite > 0 ? { cacheWriteTokens: cacheWrite } : {}),
  };
}

/** Sorts a provider failure into what the loop does next: retry, or stop with a clear message. */
export function classifyModelError(error: unknown, signal?: AbortSignal): ModelErrorInfo {
  if (signal?.aborted || (error instanceof Error && error.name === "AbortError"))
    return { kind: "aborted", message: "the model call was aborted" };
  if (isResponseLineTooLong(error)) return { kind: "too_large", message: new ResponseLineTooLong().message };
  const endpoint = causeOfType(error, EndpointError);
  if (endpoint) return { kind: "bad_request", message: endpoint.message };
  if (APICallError.isInstance(error)) return classifyApiCallError(error);
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error ? (error.cause as { code?: string } | undefined) : undefined;
  if (/fetch failed|ECONNREFUSED|ECONNRESET|socket|network|terminated/i.test(message) || cause?.code)
    return { kind: "network", message: `network error talking to the model: ${message}` };
  return { kind: "unknown", message: `model call failed: ${message}` };
}

/** A 5xx whose body says the request itself cannot be served: asking again gets the same answer. */
const UNSUPPORTED_REQUEST =
  /not supported|unsupported|not implemented|does not support|requires? (the )?--|invalid (request|parameter|argument)|unknown (model|parameter)|no such model|model .*not found/i;

function classifyApiCallError(error: APICallError): ModelErrorInfo {
  const status = error.statusCode;
  const detail = providerMessage(error.responseBody) ?? error.message;
  const retryAfterMs = retryAfter(error.responseHeaders);
  const info = (kind: ModelErrorInfo["kind"], message: string): ModelErrorInfo => ({
    kind,
    message,
    ...(status !== undefined ? { status } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
  if (status === 401 || status === 403)
    return info(
      "auth",
      `the provider refused the credentials (HTTP ${status}): ${detail}. Check the API key.`,
    );
  if (status !== undefined && status < 400) {
    // the request was accepted, then the stream broke (a dropped connection mid-answer)
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return info("network", `the model's response stream broke${cause}`);
  }
  if (status === 429) return info("rate_limit", `rate limited (HTTP 429): ${detail}`);
  if (status === 404) {
    const modelMissing = /model/i.test(detail) && !/page not found|cannot (get|post)/i.test(detail);
    const hint = modelMissing ? "" : missingVersionHint(error.url);
    return info("bad_request", `the model endpoint ${error.url} was not found (HTTP 404): ${detail}.${hint}`);
  }
  if (status === 501 || (status !== undefined && status >= 500 && UNSUPPORTED_REQUEST.test(detail)))
    return info("bad_request", `the provider cannot serve this request (HTTP ${status}): ${detail}`);
  if (status !== undefined && status >= 500)
    return info("server", `provider error (HTTP ${status}): ${detail}`);
  if (status === 408) return info("network", `request timeout (HTTP 408): ${detail}`);
  if (status !== undefined)
    return info("bad_request", `the provider rejected the request (HTTP ${status}): ${detail}`);
  return info("network", `cannot reach the model at ${error.url}: ${detail}`);
}

/** The error itself or one of its causes, when it is of the given class. */
function causeOfType<T extends Error>(error: unknown, type: new (...args: never[]) => T): T | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 8; depth++) {
    if (current instanceof type) return current;
    current = current.cause;
  }
  return undefined;
}

function providerMessage(body: string | undefined): string | undefined {
  if (!body) return undefined;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string } | string; message?: string };
    if (typeof parsed.error === "string") return parsed.error;
    return parsed.error?.message ?? parsed.message ?? body.slice(0, 500);
  } catch {
    return body.slice(0, 500);
  }
}

function retryAfter(headers: Record<string, string> | undefined): number | undefined {
  const value = headers?.["retry-after"];
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
