import { z } from "zod";
import { lazySchema } from "../../../config/lazy-schema.js";
import { failure, type JsonAnswer, requestJson } from "./http.js";
import { plainSnippet, type SearchBackend, type SearchHit, type SearchOutcome } from "./results.js";

export interface HttpBackendConfig {
  /** The API's base URL: the setting, or the public endpoint. */
  endpoint: string;
  /** The key, read from the environment variable the settings name. */
  apiKey?: string;
  /** The variable it came from (or should come from), for messages. */
  keyEnv?: string;
}

const text = lazySchema(() => z.string().nullish());

const SearxngAnswer = lazySchema(() =>
  z.object({
    results: z.array(
      z.object({ url: z.string(), title: text(), content: text(), publishedDate: text(), pubdate: text() }),
    ),
    answers: z.array(z.unknown()).nullish(),
  }),
);

/**
 * SearXNG's JSON API (`GET /search?q=…&format=json`), on an instance the user runs. The instance must
 * list `json` in `search.formats` of its settings.yml, or it answers 403.
 */
export function createSearxngBackend(config: HttpBackendConfig): SearchBackend {
  const label = "SearXNG";
  return {
    id: "searxng",
    label,
    async search(request) {
      const url = apiUrl(config.endpoint, "search");
      url.searchParams.set("q", withSite(request.query, request.domain));
      url.searchParams.set("format", "json");
      const answer = await requestJson({
        service: label,
        url,
        timeoutMs: request.timeoutMs,
        signal: request.signal,
        ...(config.apiKey ? { headers: { authorization: `Bearer ${config.apiKey}` } } : {}),
        keyHint: `An instance answers 403 when "json" is missing from search.formats in its settings.yml${config.keyEnv ? `, or when its proxy refuses the token in ${config.keyEnv}` : ""}.`,
      });
      return parsed(label, answer, SearxngAnswer(), (body) => ({
        ok: true,
        hits: body.results.map((result) =>
          hit(result.title, result.url, result.content, result.publishedDate ?? result.pubdate),
        ),
        ...(answerText(body.answers) ? { answer: answerText(body.answers) } : {}),
      }));
    },
  };
}

const BraveAnswer = lazySchema(() =>
  z.object({
    web: z
      .object({
        results: z.array(
          z.object({ url: z.string(), title: text(), description: text(), age: text(), page_age: text() }),
        ),
      })
      .nullish(),
  }),
);

/** Brave Search's web search API (`GET /res/v1/web/search`, key in `X-Subscription-Token`). */
export function createBraveBackend(config: HttpBackendConfig): SearchBackend {
  const label = "Brave Search";
  return {
    id: "brave",
    label,
    async search(request) {
      if (!config.apiKey) return missingKey(label, config.keyEnv);
      const url = apiUrl(config.endpoint, "web/search");
      url.searchParams.set("q", withSite(request.query, request.domain));
      url.searchParams.set("count", String(request.maxResults));
      const answer = await requestJson({
        service: label,
        url,
        timeoutMs: request.timeoutMs,
        signal: request.signal,
        headers: { "x-subscription-token": config.apiKey },
        keyHint: `Check the key in ${config.keyEnv}.`,
      });
      return parsed(label, answer, BraveAnswer(), (body) => ({
        ok: true,
        hits: (body.web?.results ?? []).map((result) =>
          hit(result.title, result.url, result.description, result.age ?? result.page_age),
        ),
      }));
    },
  };
}

const TavilyAnswer = lazySchema(() =>
  z.object({
    answer: text(),
    results: z.array(z.object({ url: z.string(), title: text(), content: text(), published_date: text() })),
  }),
);

/** Tavily's search API (`POST /search`, key as a bearer token); `domain` becomes `include_domains`. */
export function createTavilyBackend(config: HttpBackendConfig): SearchBackend {
  const label = "Tavily";
  return {
    id: "tavily",
    label,
    async search(request) {
      if (!config.apiKey) return missingKey(label, config.keyEnv);
      const answer = await requestJson({
        service: label,
        url: apiUrl(config.endpoint, "search"),
        method: "POST",
        headers: { authorization: `Bearer ${config.apiKey}` },
        body: {
          query: request.query,
          max_results: request.maxResults,
          search_depth: "basic",
          ...(request.domain ? { include_domains: [request.domain] } : {}),
        },
        timeoutMs: request.timeoutMs,
        signal: request.signal,
        keyHint: `Check the key in ${config.keyEnv}.`,
      });
      return parsed(label, answer, TavilyAnswer(), (body) => ({
        ok: true,
        hits: body.results.map((result) =>
          hit(result.title, result.url, result.content, result.published_date),
        ),
        ...(body.answer ? { answer: body.answer } : {}),
      }));
    },
  };
}

/** `base` + `path`, keeping a base's own path (`https://proxy/brave/v1` + `web/search`). */
function apiUrl(base: string, path: string): URL {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${path}`;
  return url;
}

function withSite(query: string, domain: string | undefined): string {
  return domain ? `${query} site:${domain}` : query;
}

function hit(
  title: string | null | undefined,
  url: string,
  snippet: string | null | undefined,
  date: string | null | undefined,
): SearchHit {
  const clean = plainSnippet(snippet);
  return {
    title: plainSnippet(title) ?? url,
    url,
    ...(clean ? { snippet: clean } : {}),
    ...(date ? { date } : {}),
  };
}

function answerText(answers: unknown[] | null | undefined): string | undefined {
  const texts = (answers ?? [])
    .map((entry) => (typeof entry === "string" ? entry : (entry as { answer?: unknown } | null)?.answer))
    .filter((entry): entry is string => typeof entry === "string" && entry.trim() !== "");
  return texts.length > 0 ? texts.join("\n") : undefined;
}

function parsed<S extends z.ZodType>(
  label: string,
  answer: JsonAnswer,
  schema: S,
  toOutcome: (body: z.infer<S>) => SearchOutcome,
): SearchOutcome {
  if (!answer.ok) return answer;
  const body = schema.safeParse(answer.value);
  if (!body.success) {
    const issue = body.error.issues[0];
    return failure(
      "execution_failed",
      `${label} answered JSON of an unexpected shape (${issue ? `${issue.path.join(".") || "(top)"}: ${issue.message}` : "unknown"}).`,
    );
  }
  return toOutcome(body.data);
}

function missingKey(label: string, keyEnv: string | undefined): SearchOutcome {
  return failure(
    "unavailable",
    `${label} needs an API key: set the environment variable ${keyEnv} (or name another one in web.search.apiKeyEnv). Keys are never read from settings files.`,
  );
}
