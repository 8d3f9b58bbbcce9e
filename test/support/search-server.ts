import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readBody } from "./request-body.js";

/**
 * A scripted search API on 127.0.0.1 (STYLE rule 10): it answers SearXNG's, Brave Search's or Tavily's
 * real HTTP API from a script of replies, in strict order, records every request, and fails loudly on a
 * request the script did not expect (a wrong path or method, or one too many).
 */
export type SearchApi = "searxng" | "brave" | "tavily";

export interface ScriptedHit {
  title: string;
  url: string;
  snippet?: string;
  date?: string;
}

export type ScriptedReply =
  | {
      results: ScriptedHit[];
      answer?: string;
      delayMs?: number;
      expect?: (request: SearchRequestSeen) => void;
    }
  /** An error as the service sends it: a status, its headers, and its own error body. */
  | { status: number; body: unknown; headers?: Record<string, string>; contentType?: string }
  | { redirect: string };

export interface SearchRequestSeen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: unknown;
}

export interface SearchServer {
  readonly origin: string;
  /** What web.search.baseUrl is set to for this API. */
  readonly baseUrl: string;
  readonly requests: SearchRequestSeen[];
  readonly failures: string[];
  script(...replies: ScriptedReply[]): void;
  assertDone(): void;
  close(): Promise<void>;
}

const ROUTES: Record<SearchApi, { method: string; path: string; base: string }> = {
  searxng: { method: "GET", path: "/search", base: "" },
  brave: { method: "GET", path: "/res/v1/web/search", base: "/res/v1" },
  tavily: { method: "POST", path: "/search", base: "" },
};

export async function startSearchServer(
  api: SearchApi,
  replies: ScriptedReply[] = [],
): Promise<SearchServer> {
  const queue = [...replies];
  const requests: SearchRequestSeen[] = [];
  const failures: string[] = [];
  const route = ROUTES[api];
  const server: Server = createServer((req, res) => void serve(req, res));

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const url = new URL(req.url ?? "/", "http://localhost");
    const seen: SearchRequestSeen = {
      method: req.method ?? "",
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: raw ? safeJson(raw) : undefined,
    };
    requests.push(seen);
    const reply = queue.shift();
    const problem =
      seen.method !== route.method || seen.path !== route.path
        ? `unexpected ${seen.method} ${seen.path} (the ${api} API is ${route.method} ${route.path})`
        : reply === undefined
          ? `unexpected request #${requests.length} (the script has no reply left)`
          : expectation(reply, seen);
    if (problem !== undefined || reply === undefined) {
      failures.push(`${problem}: ${raw.slice(0, 2000)}`);
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(`scripted search server: ${problem}`);
      return;
    }
    await answer(api, reply, seen, res);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    baseUrl: `${origin}${route.base}`,
    requests,
    failures,
    script: (...more) => void queue.push(...more),
    assertDone() {
      if (failures.length > 0) throw new Error(`scripted search server failures:\n${failures.join("\n")}`);
      if (queue.length > 0)
        throw new Error(`${queue.length} scripted search reply(ies) were never requested`);
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function expectation(reply: ScriptedReply, seen: SearchRequestSeen): string | undefined {
  if (!("expect" in reply) || reply.expect === undefined) return undefined;
  try {
    reply.expect(seen);
    return undefined;
  } catch (cause) {
    return `request failed its expectation: ${(cause as Error).message}`;
  }
}

async function answer(api: SearchApi, reply: ScriptedReply, seen: SearchRequestSeen, res: ServerResponse) {
  if ("redirect" in reply) {
    res.writeHead(301, { location: reply.redirect });
    res.end();
    return;
  }
  if ("status" in reply) {
    const body = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
    res.writeHead(reply.status, {
      "content-type": reply.contentType ?? "application/json",
      ...reply.headers,
    });
    res.end(body);
    return;
  }
  if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
  if (res.destroyed) return;
  res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
  res.end(JSON.stringify(successBody(api, reply, seen)));
}

/** Each API's answer with the fields the real one sends (most of which Gantry does not read). */
function successBody(
  api: SearchApi,
  reply: Extract<ScriptedReply, { results: ScriptedHit[] }>,
  seen: SearchRequestSeen,
) {
  if (api === "searxng") {
    const query = seen.query.get("q") ?? "";
    return {
      query,
      number_of_results: 0,
      results: reply.results.map((hit, index) => ({
        url: hit.url,
        title: hit.title,
        content: hit.snippet ?? "",
        publishedDate: hit.date ?? null,
        engine: "duckduckgo",
        engines: ["duckduckgo", "brave"],
        parsed_url: ["https", new URL(hit.url).host, new URL(hit.url).pathname, "", "", ""],
        template: "default.html",
        positions: [index + 1],
        score: 1 / (index + 1),
        category: "general",
      })),
      answers: reply.answer ? [{ answer: reply.answer, url: null, engine: "wikipedia" }] : [],
      corrections: [],
      infoboxes: [],
      suggestions: [],
      unresponsive_engines: [],
    };
  }
  if (api === "brave") {
    return {
      type: "search",
      query: { original: seen.query.get("q") ?? "", more_results_available: false },
      mixed: { type: "mixed", main: reply.results.map((_, index) => ({ type: "web", index, all: false })) },
      web: {
        type: "search",
        family_friendly: true,
        results: reply.results.map((hit) => ({
          type: "search_result",
          subtype: "generic",
          title: hit.title,
          url: hit.url,
          description: hit.snippet ?? "",
          ...(hit.date ? { age: hit.date, page_age: hit.date } : {}),
          is_source_local: false,
          is_source_both: false,
          language: "en",
          family_friendly: true,
          profile: { name: new URL(hit.url).hostname, url: hit.url, long_name: new URL(hit.url).hostname },
          meta_url: {
            scheme: "https",
            netloc: new URL(hit.url).host,
            hostname: new URL(hit.url).hostname,
            path: "› docs",
          },
        })),
      },
    };
  }
  const body = seen.body as { query?: string } | undefined;
  return {
    query: body?.query ?? "",
    follow_up_questions: null,
    answer: reply.answer ?? null,
    images: [],
    results: reply.results.map((hit, index) => ({
      title: hit.title,
      url: hit.url,
      content: hit.snippet ?? "",
      score: 0.9 - index * 0.1,
      raw_content: null,
      ...(hit.date ? { published_date: hit.date } : {}),
    })),
    response_time: 0.42,
    request_id: "scripted-request",
  };
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
