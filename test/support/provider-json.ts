/**
 * The providers' non-streamed JSON answers for their own web search and their image endpoints, as the
 * real APIs send them: Gemini's generateContent with groundingMetadata or an inlineData image, OpenAI's
 * Responses API with a web_search_call and url_citation annotations, Anthropic's messages with
 * server_tool_use and web_search_tool_result blocks, OpenAI's images/generations and images/edits.
 */

export interface ScriptedSearchResult {
  title: string;
  url: string;
  /** Gemini: the grounded sentence citing it; Anthropic: the cited text. */
  snippet?: string;
  /** Anthropic's page_age. */
  pageAge?: string;
}

export interface ScriptedSearch {
  /** The model's grounded answer. */
  text: string;
  results: ScriptedSearchResult[];
  queries?: string[];
}

export interface ScriptedImage {
  /** The image bytes the provider returns. */
  data: Uint8Array;
  mimeType?: string;
  revisedPrompt?: string;
}

const usage = { input: 12, output: 7 };

export function geminiSearchAnswer(search: ScriptedSearch, model: string): unknown {
  const supports = search.results.flatMap((result, index) =>
    result.snippet
      ? [
          {
            segment: { startIndex: 0, endIndex: result.snippet.length, text: result.snippet },
            groundingChunkIndices: [index],
            confidenceScores: [0.9],
          },
        ]
      : [],
  );
  return {
    candidates: [
      {
        content: { role: "model", parts: [{ text: search.text }] },
        finishReason: "STOP",
        index: 0,
        groundingMetadata: {
          webSearchQueries: search.queries ?? [],
          searchEntryPoint: { renderedContent: "<div>search chips</div>" },
          groundingChunks: search.results.map((result) => ({
            web: { uri: result.url, title: result.title },
          })),
          groundingSupports: supports,
        },
      },
    ],
    usageMetadata: geminiUsage(),
    modelVersion: model,
    responseId: "scripted-grounded",
  };
}

export function geminiImageAnswer(image: ScriptedImage, model: string): unknown {
  return {
    candidates: [
      {
        content: {
          role: "model",
          parts: [{ inlineData: { mimeType: image.mimeType ?? "image/png", data: base64(image.data) } }],
        },
        finishReason: "STOP",
        index: 0,
      },
    ],
    usageMetadata: geminiUsage(),
    modelVersion: model,
  };
}

/** `withSources`: the request asked for `web_search_call.action.sources` (the URLs consulted, without titles). */
export function openAiResponsesSearchAnswer(
  search: ScriptedSearch,
  model: string,
  withSources: boolean,
): unknown {
  // each citation spans its result's sentence in the text, as OpenAI's do
  const annotations = search.results.map((result) => {
    const at = result.snippet ? search.text.indexOf(result.snippet) : -1;
    const [start, end] = at >= 0 ? [at, at + (result.snippet as string).length] : [0, search.text.length];
    return { type: "url_citation", start_index: start, end_index: end, url: result.url, title: result.title };
  });
  return {
    id: "resp_scripted",
    object: "response",
    created_at: 1,
    status: "completed",
    model,
    output: [
      {
        type: "web_search_call",
        id: "ws_scripted",
        status: "completed",
        action: {
          type: "search",
          query: search.queries?.[0] ?? "",
          queries: search.queries ?? [],
          ...(withSources
            ? { sources: search.results.map((result) => ({ type: "url", url: result.url })) }
            : {}),
        },
      },
      {
        type: "message",
        id: "msg_scripted",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: search.text, annotations, logprobs: [] }],
      },
    ],
    usage: {
      input_tokens: usage.input,
      output_tokens: usage.output,
      total_tokens: usage.input + usage.output,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  };
}

export function anthropicSearchAnswer(search: ScriptedSearch, model: string): unknown {
  const id = "srvtoolu_scripted";
  return {
    id: "msg_scripted",
    type: "message",
    role: "assistant",
    model,
    content: [
      { type: "server_tool_use", id, name: "web_search", input: { query: search.queries?.[0] ?? "" } },
      {
        type: "web_search_tool_result",
        tool_use_id: id,
        content: search.results.map((result) => ({
          type: "web_search_result",
          url: result.url,
          title: result.title,
          encrypted_content: "ZW5jcnlwdGVk",
          page_age: result.pageAge ?? null,
        })),
      },
      { type: "text", text: search.text },
    ],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: usage.input,
      output_tokens: usage.output,
      server_tool_use: { web_search_requests: 1 },
    },
  };
}

export function openAiImageAnswer(image: ScriptedImage): unknown {
  return {
    created: 1,
    data: [
      {
        b64_json: base64(image.data),
        ...(image.revisedPrompt ? { revised_prompt: image.revisedPrompt } : {}),
      },
    ],
    usage: { input_tokens: 10, output_tokens: 100, total_tokens: 110 },
  };
}

function geminiUsage() {
  return {
    promptTokenCount: usage.input,
    candidatesTokenCount: usage.output,
    totalTokenCount: usage.input + usage.output,
  };
}

function base64(data: Uint8Array): string {
  return Buffer.from(data).toString("base64");
}

/** A valid 1×1 PNG (what tests "generate"). */
export const TINY_PNG = Uint8Array.from(
  Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
    "base64",
  ),
);
