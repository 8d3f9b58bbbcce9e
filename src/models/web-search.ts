import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogle } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, type LanguageModel, type ToolSet } from "ai";
import type { SearchBackend, SearchOutcome, SearchRequest } from "../tools/web/search/results.js";
import { classifyModelError } from "./client.js";
import { API_KEY_VARIABLES, type ModelSpec, type Outcome, parseModelSpec } from "./provider.js";
import { hitsOf, queriesOf } from "./search-sources.js";

export interface ModelSearchConfig {
  /** `provider:model-id` of the model that searches. */
  model: string;
  baseUrl?: string;
  /** Overrides the provider's usual key variables (web.search.apiKeyEnv). */
  apiKeyEnv?: string;
  env: Record<string, string | undefined>;
}

/** Searches a model provider may run on its side (its "provider tools"), one per provider that has one. */
const SEARCH_TOOL_NAMES: Partial<Record<ModelSpec["provider"], string>> = {
  google: "Google Search grounding",
  openai: "OpenAI web search",
  anthropic: "Anthropic web search",
};

/**
 * search_web's `model` backend: the provider's own search through the AI SDK's provider tools — Gemini's
 * grounding with Google Search, OpenAI's web search (Responses API), Anthropic's web search tool. The
 * provider runs the search; the sources it cites become the results and its grounded text the summary.
 */
export function createModelSearchBackend(config: ModelSearchConfig): Outcome<SearchBackend> {
  const parsed = parseModelSpec(config.model);
  if (!parsed.ok) return { ok: false, message: `web.search.model: ${parsed.message}` };
  const spec = parsed.value;
  const toolName = SEARCH_TOOL_NAMES[spec.provider];
  if (!toolName) {
    return {
      ok: false,
      message: `${config.model} has no web search of its own (only google, openai and anthropic models do): set web.search.model to one of those, or use the searxng, brave or tavily backend.`,
    };
  }
  const variables = config.apiKeyEnv ? [config.apiKeyEnv] : API_KEY_VARIABLES[spec.provider];
  const apiKey = variables
    .map((name) => config.env[name])
    .find((value) => value !== undefined && value !== "");
  if (apiKey === undefined)
    return { ok: false, message: `${toolName} needs an API key: set ${variables.join(" or ")}.` };
  const id = `${spec.provider}:${spec.modelId}`;
  const label = `${toolName} (${id})`;
  return {
    ok: true,
    value: {
      id: `model:${id}`,
      label,
      search: (request) => runModelSearch(spec, { apiKey, baseURL: config.baseUrl }, label, request),
    },
  };
}

async function runModelSearch(
  spec: ModelSpec,
  connection: { apiKey: string; baseURL?: string },
  label: string,
  request: SearchRequest,
): Promise<SearchOutcome> {
  const { model, tools } = searchingModel(spec, connection, request.domain);
  const deadline = AbortSignal.timeout(request.timeoutMs);
  const where = request.domain ? ` Use only pages on ${request.domain} (site:${request.domain}).` : "";
  try {
    const result = await generateText({
      model,
      tools,
      prompt: `Search the web for: ${request.query}${where}\nThen answer in a few sentences with what the results say, citing them.`,
      abortSignal: AbortSignal.any([request.signal, deadline]),
      // a failed search comes back to the agent, which decides whether to try again
      maxRetries: 0,
    });
    // a provider library that cannot give this model the search tool drops it and says so: the answer is then not a search
    const dropped = result.warnings?.find(
      (warning) =>
        warning.type === "unsupported" && /tool/.test(String((warning as { feature?: unknown }).feature)),
    );
    if (dropped) {
      const why = (dropped as { details?: string }).details ?? "the provider does not offer it to this model";
      return {
        ok: false,
        code: "unavailable",
        message: `${label} cannot search: ${why} Set web.search.model to a model that can, or use another backend.`,
      };
    }
    const hits = hitsOf(result, request.maxResults);
    const queries = queriesOf(result);
    return {
      ok: true,
      hits,
      ...(result.text.trim() ? { answer: result.text } : {}),
      ...(queries.length > 0 ? { queries } : {}),
    };
  } catch (cause) {
    if (request.signal.aborted)
      return { ok: false, code: "aborted", message: `The ${label} search was aborted.` };
    if (deadline.aborted) {
      return {
        ok: false,
        code: "timeout",
        message: `${label} did not answer within ${request.timeoutMs} ms (web.timeoutMs).`,
      };
    }
    const error = classifyModelError(cause);
    const code =
      error.kind === "auth"
        ? "denied"
        : error.kind === "bad_request" || error.kind === "unknown"
          ? "execution_failed"
          : "unavailable";
    return {
      ok: false,
      code,
      message: `${label}: ${error.message}`,
      metadata: { ...(error.status !== undefined ? { status: error.status } : {}) },
    };
  }
}

function searchingModel(
  spec: ModelSpec,
  connection: { apiKey: string; baseURL?: string },
  domain: string | undefined,
): { model: LanguageModel; tools: ToolSet } {
  const domains = domain ? [domain] : undefined;
  switch (spec.provider) {
    case "google": {
      const google = createGoogle(connection);
      return { model: google(spec.modelId), tools: { google_search: google.tools.googleSearch({}) } };
    }
    case "openai": {
      // web search is a tool of the Responses API only, not of chat completions
      const openai = createOpenAI(connection);
      return {
        model: openai.responses(spec.modelId),
        tools: {
          web_search: openai.tools.webSearch(domains ? { filters: { allowedDomains: domains } } : {}),
        },
      };
    }
    default: {
      const anthropic = createAnthropic(connection);
      return {
        model: anthropic(spec.modelId),
        tools: {
          web_search: anthropic.tools.webSearch_20250305({
            maxUses: 3,
            ...(domains ? { allowedDomains: domains } : {}),
          }),
        },
      };
    }
  }
}
