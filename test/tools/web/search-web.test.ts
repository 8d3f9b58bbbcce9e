import { afterEach, describe, expect, it } from "vitest";
import type { Settings } from "../../../src/config/settings.js";
import { createGantrySession, type GantrySession } from "../../../src/gantry.js";
import { type SearchApi, type SearchServer, startSearchServer } from "../../support/search-server.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

let ws: TempWorkspace | undefined;
let session: GantrySession | undefined;
let server: SearchServer | undefined;

afterEach(async () => {
  await session?.dispose();
  await ws?.cleanup();
  await server?.close();
  session = undefined;
  ws = undefined;
  server = undefined;
});

async function searchWith(
  search: NonNullable<NonNullable<Settings["web"]>["search"]> | undefined,
  variables: Record<string, string> = {},
  web: Omit<NonNullable<Settings["web"]>, "search"> = {},
) {
  ws = await createTempWorkspace();
  session = createGantrySession({
    workspace: ws.root,
    home: ws.home,
    settings: { web: { ...web, ...(search ? { search } : {}) } },
    variables,
  });
  const s = session;
  return (args: Record<string, unknown>) => s.pipeline.run({ name: "search_web", args });
}

async function serve(api: SearchApi) {
  server = await startSearchServer(api);
  return server;
}

describe("search_web without a backend", () => {
  it("says exactly which setting to add for each backend", async () => {
    const search = await searchWith(undefined);
    const result = await search({ query: "vitest snapshot" });
    expect(result.error).toBe(true);
    expect(result.errorCode).toBe("unavailable");
    expect(result.text).toContain(
      '{"web": {"search": {"backend": "searxng", "baseUrl": "http://localhost:8888"}}}',
    );
    expect(result.text).toContain("BRAVE_API_KEY");
    expect(result.text).toContain("TAVILY_API_KEY");
    expect(result.text).toContain('"backend": "model"');
  });

  it("asks for the instance's address when searxng has no baseUrl (it has no public endpoint)", async () => {
    const search = await searchWith({ backend: "searxng" });
    const result = await search({ query: "x" });
    expect(result.text).toContain("set web.search.baseUrl");
  });
});

describe("search_web on SearXNG", () => {
  it("asks GET /search with q and format=json, and lists title, URL, snippet and date", async () => {
    const api = await serve("searxng");
    api.script({
      results: [
        {
          title: "Vitest Snapshot",
          url: "https://vitest.dev/guide/snapshot",
          snippet: "Snapshot tests are a very useful tool",
          date: "2025-03-01T00:00:00",
        },
        {
          title: "Jest snapshots",
          url: "https://jestjs.io/docs/snapshot-testing",
          snippet: "Compare against a reference",
        },
      ],
      answer: "Use toMatchSnapshot.",
      expect: (request) => {
        expect(request.query.get("q")).toBe("vitest snapshot");
        expect(request.query.get("format")).toBe("json");
        expect(request.headers["user-agent"]).toBe("Gantry search_web");
      },
    });
    const search = await searchWith({ backend: "searxng", baseUrl: api.origin });
    const result = await search({ query: "vitest snapshot" });
    api.assertDone();
    expect(result.error).toBe(false);
    expect(result.text).toContain('Web search for "vitest snapshot" (SearXNG): 2 results.');
    expect(result.text).toContain("1. [Vitest Snapshot](https://vitest.dev/guide/snapshot)");
    expect(result.text).toContain("   Snapshot tests are a very useful tool");
    expect(result.text).toContain("   Date: 2025-03-01T00:00:00");
    expect(result.text).toContain("2. [Jest snapshots](https://jestjs.io/docs/snapshot-testing)");
    expect(result.text).toContain("Summary from SearXNG:\nUse toMatchSnapshot.");
    expect(result.metadata).toMatchObject({ backend: "searxng", resultCount: 2, query: "vitest snapshot" });
  });

  it("restricts to a domain with site: and leaves out results the engines still sent from elsewhere", async () => {
    const api = await serve("searxng");
    api.script({
      results: [
        { title: "asyncio", url: "https://docs.python.org/3/library/asyncio.html" },
        { title: "a blog", url: "https://blog.example.com/asyncio" },
        { title: "www", url: "https://www.docs.python.org/3/x" },
      ],
      expect: (request) => expect(request.query.get("q")).toBe("asyncio gather site:docs.python.org"),
    });
    const search = await searchWith({ backend: "searxng", baseUrl: `${api.origin}/` });
    const result = await search({ query: "asyncio gather", domain: "https://docs.python.org/3/" });
    api.assertDone();
    expect(result.metadata).toMatchObject({ domain: "docs.python.org", resultCount: 2, droppedOffDomain: 1 });
    expect(result.text).not.toContain("blog.example.com");
  });

  it("explains a 403 from an instance whose JSON format is switched off", async () => {
    const api = await serve("searxng");
    api.script({
      status: 403,
      contentType: "text/html",
      body: "<html><body><h1>403 Forbidden</h1></body></html>",
    });
    const search = await searchWith({ backend: "searxng", baseUrl: api.origin });
    const result = await search({ query: "x" });
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain("SearXNG refused the request (HTTP 403): 403 Forbidden");
    expect(result.text).toContain('"json" is missing from search.formats');
  });

  it("does not follow a redirect from the configured address, and names the fix", async () => {
    const api = await serve("searxng");
    api.script({ redirect: "https://search.example.com/search" });
    const search = await searchWith({ backend: "searxng", baseUrl: api.origin });
    const result = await search({ query: "x" });
    expect(result.errorCode).toBe("unavailable");
    expect(result.text).toContain(
      "answered a redirect (301) to https://search.example.com/search, which is not followed",
    );
  });

  it("turns an answer that is not JSON into a clear error", async () => {
    const api = await serve("searxng");
    api.script({ status: 200, contentType: "text/html", body: "<html>results page</html>" });
    const search = await searchWith({ backend: "searxng", baseUrl: api.origin });
    const result = await search({ query: "x" });
    expect(result.errorCode).toBe("execution_failed");
    expect(result.text).toContain("SearXNG answered 200 with something that is not JSON (text/html)");
  });

  it("stops at web.timeoutMs and says so", async () => {
    const api = await serve("searxng");
    api.script({ results: [], delayMs: 2_000 });
    const search = await searchWith({ backend: "searxng", baseUrl: api.origin }, {}, { timeoutMs: 200 });
    const result = await search({ query: "slow" });
    expect(result.errorCode).toBe("timeout");
    expect(result.text).toContain("did not answer within 200 ms (web.timeoutMs)");
  });

  it("says when nothing was found (not an error)", async () => {
    const api = await serve("searxng");
    api.script({ results: [] });
    const search = await searchWith({ backend: "searxng", baseUrl: api.origin });
    const result = await search({ query: "qwxzzy" });
    expect(result.error).toBe(false);
    expect(result.text).toContain("0 results");
    expect(result.text).toContain("No results.");
  });
});

describe("search_web on Brave Search", () => {
  it("sends the key from the variable apiKeyEnv names in X-Subscription-Token, with count, and strips the snippet's marks", async () => {
    const api = await serve("brave");
    api.script({
      results: [
        {
          title: "Node.js <strong>22</strong>",
          url: "https://nodejs.org/en/blog/release/v22.0.0",
          snippet: "Node.js <strong>22</strong> is &quot;current&quot;",
          date: "2 days ago",
        },
      ],
      expect: (request) => {
        expect(request.headers["x-subscription-token"]).toBe("brave-secret");
        expect(request.headers.accept).toBe("application/json");
        expect(request.query.get("q")).toBe("node 22 release");
        expect(request.query.get("count")).toBe("5");
      },
    });
    const search = await searchWith(
      { backend: "brave", baseUrl: api.baseUrl, apiKeyEnv: "MY_BRAVE", maxResults: 5 },
      { MY_BRAVE: "brave-secret" },
    );
    const result = await search({ query: "node 22 release" });
    api.assertDone();
    expect(result.text).toContain("1. [Node.js 22](https://nodejs.org/en/blog/release/v22.0.0)");
    expect(result.text).toContain('   Node.js 22 is "current"');
    expect(result.text).toContain("   Date: 2 days ago");
    expect(result.metadata).toMatchObject({ backend: "brave", resultCount: 1 });
  });

  it("asks for the key, by its variable, before sending anything", async () => {
    const api = await serve("brave");
    const search = await searchWith({ backend: "brave", baseUrl: api.baseUrl });
    const result = await search({ query: "x" });
    expect(api.requests).toHaveLength(0);
    expect(result.errorCode).toBe("unavailable");
    expect(result.text).toContain("set the environment variable BRAVE_API_KEY");
    expect(result.text).toContain("never read from settings files");
  });

  it("reports a 429 with the wait Brave's rate-limit headers ask for", async () => {
    const api = await serve("brave");
    api.script({
      status: 429,
      headers: {
        "x-ratelimit-limit": "1, 2000",
        "x-ratelimit-remaining": "0, 1990",
        "x-ratelimit-reset": "1, 2419200",
      },
      body: {
        type: "ErrorResponse",
        error: {
          id: "e1",
          status: 429,
          code: "RATE_LIMITED",
          detail: "Request rate limit exceeded for plan.",
          meta: { plan: "Free", rate_limit: 1 },
        },
        time: 1,
      },
    });
    const search = await searchWith({ backend: "brave", baseUrl: api.baseUrl }, { BRAVE_API_KEY: "k" });
    const result = await search({ query: "x" });
    expect(result.errorCode).toBe("unavailable");
    expect(result.text).toBe(
      "Brave Search rate limit reached (HTTP 429): Request rate limit exceeded for plan. Wait 1 s before searching again.",
    );
    expect(result.metadata).toMatchObject({ status: 429, retryAfterSeconds: 1 });
  });

  it("passes Brave's message for a refused subscription token", async () => {
    const api = await serve("brave");
    api.script({
      status: 422,
      body: {
        type: "ErrorResponse",
        error: {
          id: "e2",
          status: 422,
          code: "SUBSCRIPTION_TOKEN_INVALID",
          detail: "The provided subscription token is invalid.",
        },
      },
    });
    const search = await searchWith({ backend: "brave", baseUrl: api.baseUrl }, { BRAVE_API_KEY: "bad" });
    const result = await search({ query: "x" });
    expect(result.error).toBe(true);
    expect(result.text).toBe("Brave Search answered HTTP 422: The provided subscription token is invalid.");
  });
});

describe("search_web on Tavily", () => {
  it("POSTs the query with max_results and include_domains, the key as a bearer token, and shows Tavily's answer", async () => {
    const api = await serve("tavily");
    api.script({
      results: [
        {
          title: "Release notes",
          url: "https://react.dev/blog/2024/12/05/react-19",
          snippet: "React 19 is now stable",
          date: "2024-12-05",
        },
      ],
      answer: "React 19 was released on December 5, 2024.",
      expect: (request) => {
        expect(request.headers.authorization).toBe("Bearer tvly-secret");
        expect(request.headers["content-type"]).toBe("application/json");
        expect(request.body).toEqual({
          query: "react 19 release date",
          max_results: 8,
          search_depth: "basic",
          include_domains: ["react.dev"],
        });
      },
    });
    const search = await searchWith(
      { backend: "tavily", baseUrl: api.baseUrl },
      { TAVILY_API_KEY: "tvly-secret" },
    );
    const result = await search({ query: "react 19 release date", domain: "react.dev" });
    api.assertDone();
    expect(result.text).toContain("1. [Release notes](https://react.dev/blog/2024/12/05/react-19)");
    expect(result.text).toContain("Summary from Tavily:\nReact 19 was released on December 5, 2024.");
  });

  it("reports a refused key as denied with Tavily's own message", async () => {
    const api = await serve("tavily");
    api.script({ status: 401, body: { detail: { error: "Unauthorized: missing or invalid API key." } } });
    const search = await searchWith({ backend: "tavily", baseUrl: api.baseUrl }, { TAVILY_API_KEY: "nope" });
    const result = await search({ query: "x" });
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain(
      "Tavily refused the request (HTTP 401): Unauthorized: missing or invalid API key.",
    );
    expect(result.text).toContain("Check the key in TAVILY_API_KEY.");
  });

  it("reports a 429 with Retry-After", async () => {
    const api = await serve("tavily");
    api.script({
      status: 429,
      headers: { "retry-after": "30" },
      body: { detail: { error: "Rate limit exceeded" } },
    });
    const search = await searchWith({ backend: "tavily", baseUrl: api.baseUrl }, { TAVILY_API_KEY: "k" });
    const result = await search({ query: "x" });
    expect(result.text).toContain(
      "Tavily rate limit reached (HTTP 429): Rate limit exceeded. Wait 30 s before searching again.",
    );
    expect(result.metadata).toMatchObject({ retryAfterSeconds: 30 });
  });

  it("turns a 5xx into an unavailable error", async () => {
    const api = await serve("tavily");
    api.script({ status: 502, contentType: "text/html", body: "<html>Bad Gateway</html>" });
    const search = await searchWith({ backend: "tavily", baseUrl: api.baseUrl }, { TAVILY_API_KEY: "k" });
    const result = await search({ query: "x" });
    expect(result.errorCode).toBe("unavailable");
    expect(result.text).toContain("Tavily answered HTTP 502: Bad Gateway");
  });
});

describe("search_web results and the private-address rules of read_url_content", () => {
  const lures = [
    { title: "admin", url: "http://127.0.0.1:8080/admin" },
    { title: "metadata", url: "http://169.254.169.254/latest/meta-data/" },
    { title: "local", url: "http://localhost:3000/debug" },
    { title: "intranet", url: "http://10.0.0.5/wiki" },
    { title: "mapped", url: "http://[::ffff:127.0.0.1]/x" },
    { title: "decimal", url: "http://2130706433/x" },
    { title: "file", url: "file:///etc/passwd" },
    { title: "public", url: "https://example.com/page" },
  ];

  it("leaves out results a fetch would refuse (this machine, private networks, metadata, not http) and says so", async () => {
    const api = await serve("searxng");
    api.script({ results: lures });
    const search = await searchWith({ backend: "searxng", baseUrl: api.origin });
    const result = await search({ query: "x" });
    expect(result.metadata).toMatchObject({ resultCount: 1, droppedPrivate: 7 });
    expect(result.text).toContain("1. [public](https://example.com/page)");
    for (const lure of lures.slice(0, -1)) expect(result.text).not.toContain(lure.url);
    expect(result.text).toContain("7 result(s) on this machine or a private network were left out");
  });

  it("keeps those web.allowPrivateNetwork or a WebFetch(domain:) allow rule lets a fetch reach", async () => {
    const api = await serve("searxng");
    api.script({ results: lures });
    ws = await createTempWorkspace();
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      settings: {
        web: { search: { backend: "searxng", baseUrl: api.origin }, allowPrivateNetwork: ["localhost"] },
        permissions: { allow: ["WebSearch", "WebFetch(domain:10.0.0.5)"] },
      },
    });
    const result = await session.pipeline.run({ name: "search_web", args: { query: "x" } });
    expect(result.text).toContain("http://localhost:3000/debug");
    expect(result.text).toContain("http://10.0.0.5/wiki");
    expect(result.text).not.toContain("169.254.169.254");
    expect(result.metadata).toMatchObject({ resultCount: 3, droppedPrivate: 5 });
  });

  it("reaches a search service on this machine when the user configured it (the endpoint is their setting)", async () => {
    const api = await serve("searxng");
    api.script({ results: [{ title: "t", url: "https://example.com/" }] });
    const search = await searchWith({
      backend: "searxng",
      baseUrl: api.origin.replace("127.0.0.1", "localhost"),
    });
    expect((await search({ query: "x" })).error).toBe(false);
    api.assertDone();
  });
});

describe("search_web arguments", () => {
  it("refuses a domain that is not a host name, naming the argument", async () => {
    const search = await searchWith({ backend: "searxng", baseUrl: "http://127.0.0.1:9" });
    const result = await search({ query: "x", domain: "not a domain" });
    expect(result.errorCode).toBe("invalid_arguments");
    expect(result.text).toContain('domain "not a domain" is not a host name');
  });

  it("refuses an empty query in validation", async () => {
    const search = await searchWith({ backend: "searxng", baseUrl: "http://127.0.0.1:9" });
    const result = await search({ query: "  " });
    expect(result.errorCode).toBe("invalid_arguments");
    expect(result.text).toContain("query");
  });
});
