import { z } from "zod";
import { lazySchema } from "../../../config/lazy-schema.js";
import { defineTool, errorResult, okResult } from "../../contract.js";
import type { ToolEnvironment } from "../../environment.js";
import { createNetworkGuard } from "../network-guard.js";
import { resolveWebSettings } from "../settings.js";
import { createBraveBackend, createSearxngBackend, createTavilyBackend } from "./http-backends.js";
import { withoutUnreachableHits } from "./private-results.js";
import {
  formatSearchResults,
  hitOnDomain,
  normalizeDomain,
  type SearchBackend,
  type SearchOutcome,
} from "./results.js";
import {
  DEFAULT_MAX_RESULTS,
  HOW_TO_CONFIGURE_SEARCH,
  HTTP_BACKEND_DEFAULTS,
  type WebSearchSettings,
} from "./settings.js";

const SearchWebParameters = lazySchema(() =>
  z.object({
    query: z
      .string()
      .trim()
      .min(1)
      .describe("What to search for, as you would type it into a search engine."),
    domain: z
      .string()
      .optional()
      .describe("Only results from this site and its subdomains, e.g. docs.python.org."),
  }),
);

/** `search_web` (seed 000): results as a Markdown list from the backend chosen in `web.search`. */
export function createSearchWebTool(env: ToolEnvironment) {
  const web = resolveWebSettings(env.settings.web);
  const search = env.settings.web?.search;
  // the endpoint is the user's own setting (a loosening key); the results are judged as fetches would be
  const guard = createNetworkGuard({
    allowPrivateNetwork: web.allowPrivateNetwork,
    permissions: env.permissions,
  });
  return defineTool({
    spec: {
      name: "search_web",
      description:
        "Search the web for current information: documentation, release notes, error messages, library changes. Returns titles, URLs, snippets and dates as a list; `domain` keeps the results to one site. Read a result's page with read_url_content.",
      parameters: SearchWebParameters,
      safety: "network",
      group: "WebSearch",
    },
    async execute(args, ctx) {
      if (!search) return errorResult("unavailable", HOW_TO_CONFIGURE_SEARCH, { backend: "none" });
      const domain = args.domain === undefined ? undefined : normalizeDomain(args.domain);
      if (args.domain !== undefined && !domain) {
        return errorResult(
          "invalid_arguments",
          `domain "${args.domain}" is not a host name; give a site such as docs.python.org.`,
        );
      }
      const backend = await backendFor(search, env);
      if (!backend.ok) return errorResult("unavailable", backend.message, { backend: search.backend });
      const request = {
        query: args.query,
        ...(domain ? { domain } : {}),
        maxResults: search.maxResults ?? DEFAULT_MAX_RESULTS,
        signal: ctx.signal,
        timeoutMs: web.timeoutMs,
      };
      const outcome = await backend.value.search(request);
      const facts = { backend: backend.value.id, query: args.query, ...(domain ? { domain } : {}) };
      if (!outcome.ok) return errorResult(outcome.code, outcome.message, { ...facts, ...outcome.metadata });
      const reachable = withoutUnreachableHits(outcome.hits, guard);
      const kept = keepOnDomain({ ...outcome, hits: reachable.hits }, domain, request.maxResults);
      const note =
        reachable.dropped > 0
          ? `\n(${reachable.dropped} result(s) on this machine or a private network were left out: read_url_content could not fetch them; web.allowPrivateNetwork allows such hosts.)`
          : "";
      return okResult(`${formatSearchResults(request, backend.value, kept.outcome)}${note}`, {
        ...facts,
        resultCount: kept.outcome.hits.length,
        results: kept.outcome.hits.map((hit) => ({ title: hit.title, url: hit.url })),
        ...(kept.dropped > 0 ? { droppedOffDomain: kept.dropped } : {}),
        ...(reachable.dropped > 0 ? { droppedPrivate: reachable.dropped } : {}),
      });
    },
  });
}

type Built = { ok: true; value: SearchBackend } | { ok: false; message: string };

async function backendFor(search: WebSearchSettings, env: ToolEnvironment): Promise<Built> {
  const variables = env.variables ?? process.env;
  if (search.backend === "model") {
    const chat = env.conversationModel;
    const model = search.model ?? chat?.model;
    if (!model) {
      return {
        ok: false,
        message:
          'The "model" search backend uses the session\'s model, and there is none: run with --model, or set web.search.model (e.g. "google:gemini-2.5-flash").',
      };
    }
    // the session's own endpoint goes with the session's model, not with another one named for search
    const baseUrl = search.baseUrl ?? (search.model ? undefined : chat?.baseUrl);
    // the provider libraries load only when a search needs them: `gantry tool` starts without them
    const { createModelSearchBackend } = await import("../../../models/web-search.js");
    return createModelSearchBackend({
      model,
      env: variables,
      ...(baseUrl ? { baseUrl } : {}),
      ...(search.apiKeyEnv ? { apiKeyEnv: search.apiKeyEnv } : {}),
    });
  }
  if (search.model !== undefined) {
    return {
      ok: false,
      message: `web.search.model is for the "model" backend only, not ${search.backend}; remove it.`,
    };
  }
  const defaults = HTTP_BACKEND_DEFAULTS[search.backend];
  const endpoint = search.baseUrl ?? defaults.endpoint;
  if (!endpoint) {
    return {
      ok: false,
      message: `The ${defaults.label} backend needs the address of your instance: set web.search.baseUrl, e.g. "http://localhost:8888".`,
    };
  }
  if (!isHttpUrl(endpoint)) {
    return { ok: false, message: `web.search.baseUrl "${endpoint}" is not an http:// or https:// URL.` };
  }
  const keyEnv = search.apiKeyEnv ?? defaults.keyEnv;
  const apiKey = keyEnv ? variables[keyEnv] || undefined : undefined;
  const config = { endpoint, ...(apiKey ? { apiKey } : {}), ...(keyEnv ? { keyEnv } : {}) };
  const make = { searxng: createSearxngBackend, brave: createBraveBackend, tavily: createTavilyBackend };
  return { ok: true, value: make[search.backend](config) };
}

/** Results off the requested site are left out, counted, whatever the backend did with the hint. */
function keepOnDomain(
  outcome: Extract<SearchOutcome, { ok: true }>,
  domain: string | undefined,
  max: number,
): { outcome: Extract<SearchOutcome, { ok: true }>; dropped: number } {
  const hits = domain ? outcome.hits.filter((hit) => hitOnDomain(hit, domain)) : outcome.hits;
  return { outcome: { ...outcome, hits: hits.slice(0, max) }, dropped: outcome.hits.length - hits.length };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
