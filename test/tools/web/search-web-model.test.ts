import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantryOptions, type GantrySession } from "../../../src/gantry.js";
import { type ModelServer, startModelServer } from "../../support/model-server.js";
import type { ScriptedSearch } from "../../support/provider-json.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

let ws: TempWorkspace | undefined;
let session: GantrySession | undefined;
let server: ModelServer | undefined;

afterEach(async () => {
  await session?.dispose();
  await ws?.cleanup();
  await server?.close();
  session = undefined;
  ws = undefined;
  server = undefined;
});

const found: ScriptedSearch = {
  text: "Vitest 3 added the browser mode. [1]",
  queries: ["vitest 3 release notes"],
  results: [
    {
      title: "vitest.dev",
      url: "https://vitest.dev/blog/vitest-3",
      snippet: "Vitest 3 added the browser mode.",
      pageAge: "January 17, 2025",
    },
    { title: "github.com", url: "https://github.com/vitest-dev/vitest/releases" },
  ],
};

async function open(options: Partial<GantryOptions>) {
  ws = await createTempWorkspace();
  session = createGantrySession({ workspace: ws.root, home: ws.home, ...options });
  const s = session;
  return (args: Record<string, unknown>) => s.pipeline.run({ name: "search_web", args });
}

describe("search_web with the model provider's own search", () => {
  it("grounds a Gemini call with Google Search and lists the grounding sources with their sentences", async () => {
    server = await startModelServer([
      {
        search: found,
        expect: (request) => {
          expect(request.path).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
          expect(request.headers["x-goog-api-key"]).toBe("gemini-key");
          expect(request.body.tools).toEqual([{ googleSearch: {} }]);
          expect(request.text).toContain("Search the web for: vitest 3 release notes");
        },
      },
    ]);
    const search = await open({
      settings: { web: { search: { backend: "model" } } },
      model: "google:gemini-2.5-flash",
      baseUrl: server.baseUrl("gemini"),
      variables: { GEMINI_API_KEY: "gemini-key" },
    });
    const result = await search({ query: "vitest 3 release notes" });
    server.assertDone();
    expect(result.error).toBe(false);
    expect(result.text).toContain("(Google Search grounding (google:gemini-2.5-flash)): 2 results.");
    expect(result.text).toContain('Queries run: "vitest 3 release notes"');
    expect(result.text).toContain(
      "1. [vitest.dev](https://vitest.dev/blog/vitest-3)\n   Vitest 3 added the browser mode.",
    );
    expect(result.text).toContain("2. [github.com](https://github.com/vitest-dev/vitest/releases)");
    expect(result.text).toContain("Vitest 3 added the browser mode. [1]");
    expect(result.metadata).toMatchObject({ backend: "model:google:gemini-2.5-flash", resultCount: 2 });
  });

  it("searches with OpenAI's web search tool on the Responses API, the domain as allowed_domains", async () => {
    server = await startModelServer([
      {
        search: found,
        expect: (request) => {
          expect(request.protocol).toBe("openai-responses");
          expect(request.headers.authorization).toBe("Bearer openai-key");
          expect(request.body.model).toBe("gpt-4.1");
          expect(request.body.tools).toEqual([
            { type: "web_search", filters: { allowed_domains: ["vitest.dev"] } },
          ]);
          expect(request.body.include).toEqual(["web_search_call.action.sources"]);
        },
      },
    ]);
    const search = await open({
      settings: {
        web: { search: { backend: "model", model: "openai:gpt-4.1", baseUrl: server.baseUrl("openai") } },
      },
      variables: { OPENAI_API_KEY: "openai-key" },
    });
    const result = await search({ query: "vitest 3", domain: "vitest.dev" });
    server.assertDone();
    expect(result.error).toBe(false);
    expect(result.text).toContain("OpenAI web search (openai:gpt-4.1)");
    // the consulted URLs (action.sources) get their titles and sentences from the answer's citations
    expect(result.text).toContain(
      "1. [vitest.dev](https://vitest.dev/blog/vitest-3)\n   Vitest 3 added the browser mode.",
    );
    // the github.com citation is off the requested site
    expect(result.metadata).toMatchObject({ resultCount: 1, droppedOffDomain: 1 });
  });

  it("searches with Anthropic's web search tool and dates results by their page age", async () => {
    server = await startModelServer([
      {
        search: found,
        expect: (request) => {
          expect(request.protocol).toBe("anthropic");
          expect(request.headers["x-api-key"]).toBe("anthropic-key");
          expect(request.body.tools).toEqual([
            { type: "web_search_20250305", name: "web_search", max_uses: 3 },
          ]);
        },
      },
    ]);
    const search = await open({
      settings: { web: { search: { backend: "model" } } },
      model: "anthropic:claude-sonnet-4-5",
      baseUrl: server.baseUrl("anthropic"),
      variables: { ANTHROPIC_API_KEY: "anthropic-key" },
    });
    const result = await search({ query: "vitest 3 release notes" });
    server.assertDone();
    expect(result.text).toContain("1. [vitest.dev](https://vitest.dev/blog/vitest-3)");
    expect(result.text).toContain("   Date: January 17, 2025");
    expect(result.text).toContain('Queries run: "vitest 3 release notes"');
  });

  it("reports the provider's 429 as a rate limit the agent can wait out", async () => {
    server = await startModelServer([{ error: { status: 429, message: "Resource has been exhausted" } }]);
    const search = await open({
      settings: { web: { search: { backend: "model" } } },
      model: "google:gemini-2.5-flash",
      baseUrl: server.baseUrl("gemini"),
      variables: { GEMINI_API_KEY: "k" },
    });
    const result = await search({ query: "x" });
    expect(result.errorCode).toBe("unavailable");
    expect(result.text).toContain("rate limited (HTTP 429): Resource has been exhausted");
    expect(result.metadata).toMatchObject({ status: 429 });
  });

  it("refuses an answer made without the search tool (a model the provider library gives no search)", async () => {
    server = await startModelServer([
      { search: found, expect: (request) => expect(request.body.tools).toBeUndefined() },
    ]);
    const search = await open({
      settings: { web: { search: { backend: "model" } } },
      model: "google:gemini-1.5-pro",
      baseUrl: server.baseUrl("gemini"),
      variables: { GEMINI_API_KEY: "k" },
    });
    const result = await search({ query: "x" });
    server.assertDone();
    expect(result.errorCode).toBe("unavailable");
    expect(result.text).toContain("cannot search: Google Search requires Gemini 2.0 or newer.");
  });

  it("takes the key from apiKeyEnv when it names one", async () => {
    server = await startModelServer([
      { search: found, expect: (r) => expect(r.headers["x-goog-api-key"]).toBe("team-key") },
    ]);
    const search = await open({
      settings: {
        web: {
          search: {
            backend: "model",
            model: "google:gemini-2.5-flash",
            baseUrl: server.baseUrl("gemini"),
            apiKeyEnv: "TEAM_SEARCH_KEY",
          },
        },
      },
      variables: { TEAM_SEARCH_KEY: "team-key", GEMINI_API_KEY: "personal-key" },
    });
    expect((await search({ query: "x" })).error).toBe(false);
    server.assertDone();
  });

  it("says what to set when there is no model, or the model has no search of its own", async () => {
    let search = await open({ settings: { web: { search: { backend: "model" } } } });
    expect((await search({ query: "x" })).text).toContain("run with --model, or set web.search.model");
    await session?.dispose();
    await ws?.cleanup();
    search = await open({
      settings: { web: { search: { backend: "model" } } },
      model: "openai-compatible:qwen3",
      baseUrl: "http://127.0.0.1:9/v1",
    });
    const result = await search({ query: "x" });
    expect(result.errorCode).toBe("unavailable");
    expect(result.text).toContain("has no web search of its own");
    await session?.dispose();
    await ws?.cleanup();
    search = await open({
      settings: { web: { search: { backend: "model", model: "google:gemini-2.5-flash" } } },
      variables: {},
    });
    expect((await search({ query: "x" })).text).toContain(
      "needs an API key: set GEMINI_API_KEY or GOOGLE_GENERATIVE_AI_API_KEY",
    );
  });
});
