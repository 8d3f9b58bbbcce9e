import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  anthropicSearchAnswer,
  geminiImageAnswer,
  geminiSearchAnswer,
  openAiImageAnswer,
  openAiResponsesSearchAnswer,
  type ScriptedImage,
  type ScriptedSearch,
} from "./provider-json.js";
import { readBody } from "./request-body.js";

/**
 * A scripted model server (STYLE rule 10): a real HTTP server on 127.0.0.1 that answers the
 * providers' real streaming protocols from a script of turns, in strict order, and records every
 * request. A request the script did not expect fails loudly: a 500 carrying the request body, and a
 * recorded failure the test asserts on.
 */

export type Protocol = "openai" | "anthropic" | "gemini";
/** Every API the server answers: the chat protocols, OpenAI's Responses API (web search) and its images endpoints. */
export type ApiProtocol = Protocol | "openai-responses" | "openai-images";

export interface ScriptedToolCall {
  name: string;
  args: Record<string, unknown>;
  id?: string;
}

export type ScriptedTurn =
  | {
      text?: string;
      /** Reasoning streamed before the text (OpenAI-compatible `reasoning_content`, Anthropic thinking). */
      reasoning?: string;
      /** Ends the turn as cut by the output limit (finish_reason "length" / stop_reason "max_tokens"). */
      cutOff?: boolean;
      toolCalls?: ScriptedToolCall[];
      /** `input` counts every input token; `cacheRead`/`cacheWrite` are the cached part, as each provider reports it. */
      usage?: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
      /** Milliseconds to wait before the first byte. */
      delayMs?: number;
      /** Waits for this before the first byte (a test's gate: every session's turn held until all started). */
      waitFor?: Promise<unknown>;
      /** Sends the text and tool calls, then stalls before the turn's end (aborts mid-stream). */
      stall?: boolean;
      /** Sends the text and tool calls, then drops the connection (a network failure mid-stream). */
      drop?: boolean;
      /** Checks the request; a thrown error becomes a recorded failure and a 500. */
      expect?: (request: RecordedRequest) => void;
      /**
       * After the text, a call of this tool whose string argument `field` never ends: argument bytes are
       * sent (as fast as the client reads them) until the client hangs up.
       */
      endlessToolCall?: { name: string; field: string };
    }
  | { error: { status: number; message?: string; retryAfterSeconds?: number } }
  /** Answers with this body as it is (an HTML page where the API should be, plain JSON, a text 404). */
  | { raw: { status: number; contentType: string; body: string } }
  /** Sends the headers and then nothing, until the client gives up. */
  | { hang: true }
  /**
   * The provider's own web search, answered in JSON as it does (Gemini grounding, OpenAI Responses
   * web_search_call, Anthropic web_search_tool_result); for the OpenAI chat protocol it is a failure.
   */
  | { search: ScriptedSearch; expect?: (request: RecordedRequest) => void }
  /** An image from OpenAI's images endpoints or a Gemini image model, in JSON. */
  | { image: ScriptedImage; expect?: (request: RecordedRequest) => void };

export interface RecordedRequest {
  protocol: ApiProtocol | "unknown";
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  /** Everything the model was sent, flattened to text, for "did the model see X" assertions. */
  text: string;
}

export interface ModelServer {
  /** e.g. http://127.0.0.1:PORT (append /v1 for OpenAI and Anthropic, /v1beta for Gemini). */
  readonly origin: string;
  baseUrl(protocol: Protocol): string;
  readonly requests: RecordedRequest[];
  /** Requests to paths outside the providers' APIs (a client probing `/props`, `/api/show`): 404 unless routed. */
  readonly probes: RecordedRequest[];
  readonly failures: string[];
  /** Turns not yet served. */
  readonly remaining: number;
  /**
   * Responses served and the server's own time spent on them (body parse to last byte written);
   * `endlessBytes`: argument bytes an `endlessToolCall` turn sent before the client hung up.
   */
  readonly stats: { responses: number; serveMs: number; endlessBytes: number };
  /** Appends turns to the script. */
  script(...turns: ScriptedTurn[]): void;
  /** Fails when a request was unexpected or a scripted turn was never asked for. */
  assertDone(): void;
  close(): Promise<void>;
}

/** Splits tool-call arguments into chunks this long, as real servers stream them. */
const ARGUMENT_CHUNK = 7;

export interface ModelServerOptions {
  /** Keep every request (default true); benchmarks turn it off so the server's memory stays flat. */
  record?: boolean;
  /**
   * Other paths the server answers, outside the script (a local server's `/props`, `/api/show`,
   * `/v1/models`): `"GET /props"` → the JSON to send. Requests to them are recorded too.
   */
  routes?: Record<string, unknown>;
}

export async function startModelServer(
  turns: ScriptedTurn[] = [],
  options: ModelServerOptions = {},
): Promise<ModelServer> {
  const queue = [...turns];
  const stats = { responses: 0, serveMs: 0, endlessBytes: 0 };
  let requestCount = 0;
  const requests: RecordedRequest[] = [];
  const probes: RecordedRequest[] = [];
  const failures: string[] = [];
  const open = new Set<ServerResponse>();

  const server: Server = createServer((req, res) => {
    open.add(res);
    res.on("close", () => open.delete(res));
    void serve(req, res);
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const started = performance.now();
    const protocol = protocolOf(req.url ?? "");
    const body = parseBody(raw, String(req.headers["content-type"] ?? ""));
    const recorded: RecordedRequest = {
      protocol,
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      body,
      text: raw,
    };
    if (protocol === "unknown") {
      // not a model call: what a client asks a local server about itself (its context window)
      probes.push(recorded);
      const route = options.routes?.[`${req.method} ${(req.url ?? "").split("?")[0]}`];
      res.writeHead(route === undefined ? 404 : 200, { "content-type": "application/json" });
      res.end(JSON.stringify(route ?? { error: "not found" }));
      return;
    }
    requestCount++;
    if (options.record !== false) requests.push(recorded);
    const turn = queue.shift();
    const problem =
      turn === undefined
        ? `unexpected request #${requestCount} (the script has no turn left)`
        : (turnMismatch(protocol, turn) ?? checkExpectation(turn, recorded));
    if (problem !== undefined || turn === undefined) {
      const failure = `${problem}: ${raw.slice(0, 4000)}`;
      failures.push(failure);
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `scripted model server: ${failure}` } }));
      return;
    }
    // a chat turn reaches only a chat protocol (turnMismatch)
    if ("endlessToolCall" in turn && turn.endlessToolCall && isChatProtocol(protocol)) {
      stats.endlessBytes += await streamEndlessCall(protocol, turn, turn.endlessToolCall, res);
      return;
    }
    await respond(protocol, turn, res, body);
    stats.responses++;
    stats.serveMs += performance.now() - started;
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    origin,
    baseUrl: (protocol) => (protocol === "gemini" ? `${origin}/v1beta` : `${origin}/v1`),
    requests,
    probes,
    failures,
    stats,
    get remaining() {
      return queue.length;
    },
    script: (...more) => void queue.push(...more),
    assertDone() {
      if (failures.length > 0) throw new Error(`scripted model server failures:\n${failures.join("\n")}`);
      if (queue.length > 0) throw new Error(`${queue.length} scripted turn(s) were never requested`);
    },
    close() {
      for (const res of open) res.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function protocolOf(url: string): ApiProtocol | "unknown" {
  if (url.includes("/chat/completions")) return "openai";
  if (url.includes("/responses")) return "openai-responses";
  if (url.includes("/images/generations") || url.includes("/images/edits")) return "openai-images";
  if (url.includes("/messages")) return "anthropic";
  if (url.includes(":streamGenerateContent") || url.includes(":generateContent")) return "gemini";
  return "unknown";
}

function isChatProtocol(protocol: ApiProtocol): protocol is Protocol {
  return protocol === "openai" || protocol === "anthropic" || protocol === "gemini";
}

/** A turn the request's API cannot carry: a search on OpenAI's chat API, a chat turn on the images endpoint. */
function turnMismatch(protocol: ApiProtocol, turn: ScriptedTurn): string | undefined {
  if ("error" in turn || "hang" in turn || "raw" in turn) return undefined;
  const json = "search" in turn || "image" in turn;
  if (json && jsonAnswer(protocol, turn, {}) === undefined)
    return `the script's next turn is ${"search" in turn ? "a search" : "an image"}, which ${protocol} cannot answer`;
  if (!json && (protocol === "openai-responses" || protocol === "openai-images"))
    return `the script's next turn is a chat turn, which ${protocol} cannot answer`;
  return undefined;
}

function checkExpectation(turn: ScriptedTurn, request: RecordedRequest): string | undefined {
  if (!("expect" in turn) || turn.expect === undefined) return undefined;
  try {
    turn.expect(request);
    return undefined;
  } catch (cause) {
    return `request failed its expectation: ${(cause as Error).message}`;
  }
}

/** JSON as an object; a multipart form (OpenAI's image edits) as its field names, file names and types. */
function parseBody(raw: string, contentType: string): Record<string, unknown> {
  const boundary = /boundary=([^;]+)/.exec(contentType)?.[1];
  if (contentType.startsWith("multipart/form-data") && boundary) {
    const parts = raw.split(`--${boundary}`).slice(1, -1);
    const fields = parts.map((part) => {
      const head = part.split("\r\n\r\n")[0] ?? "";
      const value = part.slice(head.length + 4).replace(/\r\n$/, "");
      return {
        name: /name="([^"]*)"/.exec(head)?.[1],
        filename: /filename="([^"]*)"/.exec(head)?.[1],
        contentType: /Content-Type: ([^\r\n]+)/i.exec(head)?.[1],
        value: /filename=/.test(head) ? `(${value.length} bytes)` : value,
      };
    });
    return { multipart: fields };
  }
  try {
    return raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
  } catch {
    return { unparsed: raw };
  }
}

async function respond(
  protocol: ApiProtocol,
  turn: ScriptedTurn,
  res: ServerResponse,
  body: Record<string, unknown>,
): Promise<void> {
  if ("raw" in turn) {
    res.writeHead(turn.raw.status, { "content-type": turn.raw.contentType });
    res.end(turn.raw.body);
    return;
  }
  if ("error" in turn) {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (turn.error.retryAfterSeconds !== undefined)
      headers["retry-after"] = String(turn.error.retryAfterSeconds);
    res.writeHead(turn.error.status, headers);
    res.end(JSON.stringify(errorBody(protocol, turn.error.status, turn.error.message ?? "scripted error")));
    return;
  }
  if ("search" in turn || "image" in turn) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(jsonAnswer(protocol, turn, body)));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  if ("hang" in turn) {
    res.write(": waiting\n\n");
    return;
  }
  if (turn.delayMs) await new Promise((resolve) => setTimeout(resolve, turn.delayMs));
  if (turn.waitFor) await turn.waitFor;
  const model = typeof body.model === "string" ? body.model : "scripted-model";
  const frames =
    protocol === "openai"
      ? openAiFrames(turn, model)
      : protocol === "anthropic"
        ? anthropicFrames(turn, model)
        : geminiFrames(turn);
  // the frames after the content are the turn's ending: OpenAI finish + usage + [DONE],
  // Anthropic message_delta + message_stop; Gemini's ending rides on its last content frame
  const ending = protocol === "openai" ? 3 : protocol === "anthropic" ? 2 : 0;
  const cut = turn.stall || turn.drop;
  const sent = cut ? frames.slice(0, frames.length - ending) : frames;
  for (const frame of sent) res.write(frame);
  if (turn.drop) setTimeout(() => res.destroy(), 20);
  else if (!turn.stall) res.end();
}

type TextTurn = Extract<ScriptedTurn, { text?: string }>;

function jsonAnswer(
  protocol: ApiProtocol,
  turn: Extract<ScriptedTurn, { search: ScriptedSearch } | { image: ScriptedImage }>,
  body: Record<string, unknown>,
): unknown {
  const model = typeof body.model === "string" ? body.model : "scripted-model";
  if ("image" in turn) {
    if (protocol === "openai-images") return openAiImageAnswer(turn.image);
    return protocol === "gemini" ? geminiImageAnswer(turn.image, model) : undefined;
  }
  if (protocol === "gemini") return geminiSearchAnswer(turn.search, model);
  if (protocol === "openai-responses") {
    const include = Array.isArray(body.include) ? body.include : [];
    return openAiResponsesSearchAnswer(
      turn.search,
      model,
      include.includes("web_search_call.action.sources"),
    );
  }
  return protocol === "anthropic" ? anthropicSearchAnswer(turn.search, model) : undefined;
}

function errorBody(protocol: ApiProtocol, status: number, message: string): unknown {
  if (protocol === "anthropic") {
    const type = status === 429 ? "rate_limit_error" : status === 401 ? "authentication_error" : "api_error";
    return { type: "error", error: { type, message } };
  }
  if (protocol === "gemini") return { error: { code: status, message, status: "SCRIPTED" } };
  return { error: { message, type: "scripted_error", code: null } };
}

function chunks(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts.length > 0 ? parts : [""];
}

const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
const namedSse = (data: { type: string; [key: string]: unknown }) => `event: ${data.type}\n${sse(data)}`;

function openAiFrames(turn: TextTurn, model: string): string[] {
  const base = { id: "chatcmpl-scripted", object: "chat.completion.chunk", created: 1, model };
  const delta = (d: Record<string, unknown>, finish: string | null = null) =>
    sse({ ...base, choices: [{ index: 0, delta: d, finish_reason: finish }] });
  const frames = [delta({ role: "assistant", content: "" })];
  for (const piece of turn.reasoning ? chunks(turn.reasoning, 5) : [])
    frames.push(delta({ reasoning_content: piece }));
  for (const piece of turn.text ? chunks(turn.text, 5) : []) frames.push(delta({ content: piece }));
  (turn.toolCalls ?? []).forEach((call, index) => {
    const id = call.id ?? `call_${index}_${Math.random().toString(36).slice(2, 8)}`;
    frames.push(
      delta({ tool_calls: [{ index, id, type: "function", function: { name: call.name, arguments: "" } }] }),
    );
    for (const piece of chunks(JSON.stringify(call.args), ARGUMENT_CHUNK))
      frames.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  frames.push(delta({}, turn.cutOff ? "length" : turn.toolCalls?.length ? "tool_calls" : "stop"));
  const usage = turn.usage ?? { input: 10, output: 5 };
  frames.push(
    sse({
      ...base,
      choices: [],
      usage: {
        prompt_tokens: usage.input,
        completion_tokens: usage.output,
        total_tokens: usage.input + usage.output,
        ...(usage.cacheRead ? { prompt_tokens_details: { cached_tokens: usage.cacheRead } } : {}),
      },
    }),
  );
  frames.push("data: [DONE]\n\n");
  return frames;
}

function anthropicFrames(turn: TextTurn, model: string): string[] {
  const usage = turn.usage ?? { input: 10, output: 5 };
  const frames = [
    namedSse({
      type: "message_start",
      message: {
        id: "msg_scripted",
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        // Anthropic counts the cached input apart from input_tokens
        usage: {
          input_tokens: usage.input - (usage.cacheRead ?? 0) - (usage.cacheWrite ?? 0),
          output_tokens: 1,
          ...(usage.cacheRead ? { cache_read_input_tokens: usage.cacheRead } : {}),
          ...(usage.cacheWrite ? { cache_creation_input_tokens: usage.cacheWrite } : {}),
        },
      },
    }),
  ];
  let index = 0;
  if (turn.reasoning) {
    frames.push(
      namedSse({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "" } }),
    );
    for (const piece of chunks(turn.reasoning, 5))
      frames.push(
        namedSse({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: piece } }),
      );
    frames.push(
      namedSse({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: "sig" } }),
    );
    frames.push(namedSse({ type: "content_block_stop", index }));
    index++;
  }
  if (turn.text) {
    frames.push(namedSse({ type: "content_block_start", index, content_block: { type: "text", text: "" } }));
    for (const piece of chunks(turn.text, 5))
      frames.push(
        namedSse({ type: "content_block_delta", index, delta: { type: "text_delta", text: piece } }),
      );
    frames.push(namedSse({ type: "content_block_stop", index }));
    index++;
  }
  for (const call of turn.toolCalls ?? []) {
    const id = call.id ?? `toolu_${index}_${Math.random().toString(36).slice(2, 8)}`;
    frames.push(
      namedSse({
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id, name: call.name, input: {} },
      }),
    );
    for (const piece of chunks(JSON.stringify(call.args), ARGUMENT_CHUNK))
      frames.push(
        namedSse({
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: piece },
        }),
      );
    frames.push(namedSse({ type: "content_block_stop", index }));
    index++;
  }
  frames.push(
    namedSse({
      type: "message_delta",
      delta: {
        stop_reason: turn.cutOff ? "max_tokens" : turn.toolCalls?.length ? "tool_use" : "end_turn",
        stop_sequence: null,
      },
      usage: { output_tokens: usage.output },
    }),
  );
  frames.push(namedSse({ type: "message_stop" }));
  return frames;
}

function geminiFrames(turn: TextTurn): string[] {
  const usage = turn.usage ?? { input: 10, output: 5 };
  const frames: string[] = [];
  const pieces = turn.text ? chunks(turn.text, 5) : [];
  for (const piece of pieces)
    frames.push(sse({ candidates: [{ content: { role: "model", parts: [{ text: piece }] }, index: 0 }] }));
  const callParts = (turn.toolCalls ?? []).map((call) => ({
    functionCall: { name: call.name, args: call.args },
  }));
  frames.push(
    sse({
      candidates: [
        {
          content: { role: "model", parts: callParts.length > 0 ? callParts : [{ text: "" }] },
          ...(turn.stall || turn.drop ? {} : { finishReason: "STOP" }),
          index: 0,
        },
      ],
      usageMetadata: {
        promptTokenCount: usage.input,
        candidatesTokenCount: usage.output,
        totalTokenCount: usage.input + usage.output,
        ...(usage.cacheRead ? { cachedContentTokenCount: usage.cacheRead } : {}),
      },
    }),
  );
  return frames;
}

/** Bytes of the never-ending argument per write. */
const ENDLESS_CHUNK = "a".repeat(64 * 1024);

/** Streams a turn whose one tool call has an argument without end; resolves with the argument bytes sent once the client hangs up. */
async function streamEndlessCall(
  protocol: Protocol,
  turn: TextTurn,
  call: { name: string; field: string },
  res: ServerResponse,
): Promise<number> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const opening =
    protocol === "openai"
      ? openAiFrames({ text: turn.text }, "scripted-model").slice(0, -3)
      : protocol === "anthropic"
        ? anthropicFrames({ text: turn.text }, "scripted-model").slice(0, -2)
        : [];
  for (const frame of opening) res.write(frame);
  const head = `{${JSON.stringify(call.field)}:"`;
  const openai = (args: string) =>
    sse({
      id: "chatcmpl-scripted",
      object: "chat.completion.chunk",
      created: 1,
      model: "scripted-model",
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: args } }] } }],
    });
  const anthropic = (json: string) =>
    namedSse({
      type: "content_block_delta",
      index: 1,
      delta: { type: "input_json_delta", partial_json: json },
    });
  if (protocol === "openai") {
    res.write(
      sse({
        id: "chatcmpl-scripted",
        object: "chat.completion.chunk",
        created: 1,
        model: "scripted-model",
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [
                {
                  index: 0,
                  id: "call_endless",
                  type: "function",
                  function: { name: call.name, arguments: "" },
                },
              ],
            },
          },
        ],
      }),
    );
    res.write(openai(head));
  } else if (protocol === "anthropic") {
    res.write(
      namedSse({
        type: "content_block_start",
        index: 1,
        content_block: { type: "tool_use", id: "toolu_endless", name: call.name, input: {} },
      }),
    );
    res.write(anthropic(head));
  } else {
    // Gemini sends a call whole, in one frame: this one's line never ends
    res.write(
      `data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":${JSON.stringify(call.name)},"args":${head}`,
    );
  }
  const frame =
    protocol === "openai"
      ? openai(ENDLESS_CHUNK)
      : protocol === "anthropic"
        ? anthropic(ENDLESS_CHUNK)
        : ENDLESS_CHUNK;
  let sent = 0;
  while (!res.destroyed && !res.writableEnded) {
    sent += ENDLESS_CHUNK.length;
    if (!res.write(frame)) {
      await new Promise<void>((resolve) => {
        res.once("drain", resolve);
        res.once("close", resolve);
      });
    }
  }
  return sent;
}
