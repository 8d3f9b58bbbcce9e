import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runGantry, runGantryTool } from "../../support/cli.js";
import { type ModelServer, startModelServer } from "../../support/model-server.js";
import { type SearchServer, startSearchServer } from "../../support/search-server.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

/** CLI runs spawn node and load the AI SDK: slow on a busy machine. */
const E2E = { timeout: 120_000 };

let ws: TempWorkspace | undefined;
let model: ModelServer | undefined;
let search: SearchServer | undefined;
afterEach(async () => {
  await model?.close();
  await search?.close();
  await ws?.cleanup();
  ws = model = search = undefined;
});

async function homeSettings(home: string, settings: unknown, file = "settings.json") {
  await mkdir(path.join(home, ".agents"), { recursive: true });
  await writeFile(path.join(home, ".agents", file), JSON.stringify(settings));
}

describe("search_web end to end through gantry -p", () => {
  it(
    "the model searches with Brave under a WebSearch allow rule and answers from the results",
    E2E,
    async () => {
      ws = await createTempWorkspace();
      search = await startSearchServer("brave", [
        {
          results: [
            {
              title: "Node.js 22 release notes",
              url: "https://nodejs.org/en/blog/release/v22.0.0",
              snippet: "require(esm) behind a flag",
            },
          ],
          expect: (request) => expect(request.headers["x-subscription-token"]).toBe("brave-key"),
        },
      ]);
      await homeSettings(ws.home, {
        web: { search: { backend: "brave", baseUrl: search.baseUrl } },
        permissions: { allow: ["WebSearch"] },
      });
      model = await startModelServer([
        { toolCalls: [{ name: "search_web", args: { query: "node 22 release notes" } }] },
        {
          text: "Node 22 brings require(esm).",
          expect: (request) => {
            expect(request.text).toContain("Node.js 22 release notes");
            expect(request.text).toContain("https://nodejs.org/en/blog/release/v22.0.0");
          },
        },
      ]);
      const run = await runGantry(
        [
          "-p",
          "What is new in Node 22?",
          "--model",
          "openai:test-model",
          "--base-url",
          model.baseUrl("openai"),
          "--workspace",
          ws.root,
          "--output-format",
          "json",
        ],
        { env: { HOME: ws.home, OPENAI_API_KEY: "k", BRAVE_API_KEY: "brave-key" }, timeoutMs: 60_000 },
      );
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout).result).toBe("Node 22 brings require(esm).");
      model.assertDone();
      search.assertDone();
    },
  );

  it(
    "the model's own search (Gemini grounding) serves the search, and the model reads its sources",
    E2E,
    async () => {
      ws = await createTempWorkspace();
      model = await startModelServer([
        { toolCalls: [{ name: "search_web", args: { query: "vitest 3", domain: "vitest.dev" } }] },
        {
          search: {
            text: "Vitest 3 shipped in January 2025.",
            results: [
              {
                title: "vitest.dev",
                url: "https://vitest.dev/blog/vitest-3",
                snippet: "Vitest 3 shipped in January 2025.",
              },
            ],
          },
          expect: (request) => {
            expect(request.path).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
            expect(request.body.tools).toEqual([{ googleSearch: {} }]);
            expect(request.text).toContain("site:vitest.dev");
          },
        },
        {
          text: "It shipped in January 2025.",
          expect: (request) => expect(request.text).toContain("https://vitest.dev/blog/vitest-3"),
        },
      ]);
      await homeSettings(ws.home, { web: { search: { backend: "model" } } });
      const run = await runGantry(
        [
          "-p",
          "When did Vitest 3 ship?",
          "--model",
          "google:gemini-2.5-flash",
          "--base-url",
          model.baseUrl("gemini"),
          "--workspace",
          ws.root,
          "--approval-mode",
          "yolo",
        ],
        { env: { HOME: ws.home, GEMINI_API_KEY: "k" }, timeoutMs: 60_000 },
      );
      expect(`${run.stderr}${model.failures.join("\n")}`).toBe("");
      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toBe("It shipped in January 2025.");
      model.assertDone();
    },
  );

  it("a hook on search_web sees the call and can deny it; no search is made", E2E, async () => {
    ws = await createTempWorkspace();
    search = await startSearchServer("searxng");
    await homeSettings(ws.home, { web: { search: { backend: "searxng", baseUrl: search.origin } } });
    await homeSettings(
      ws.home,
      {
        gate: {
          pre_tool_execution: [
            {
              matcher: "search_web",
              hooks: [
                {
                  type: "command",
                  command: `echo '{"decision":"deny","reason":"no web searches in this repo"}'`,
                },
              ],
            },
          ],
        },
      },
      "hooks.json",
    );
    model = await startModelServer([
      { toolCalls: [{ name: "search_web", args: { query: "anything" } }] },
      {
        text: "Searching is not allowed.",
        expect: (request) => expect(request.text).toContain("no web searches in this repo"),
      },
    ]);
    const run = await runGantry(
      [
        "-p",
        "search",
        "--model",
        "openai:test-model",
        "--base-url",
        model.baseUrl("openai"),
        "--workspace",
        ws.root,
        "--approval-mode",
        "yolo",
      ],
      { env: { HOME: ws.home, OPENAI_API_KEY: "k" }, timeoutMs: 60_000 },
    );
    expect(run.code).toBe(0);
    expect(search.requests).toHaveLength(0);
    model.assertDone();
  });

  it("ignores a workspace's web.search until the folder is trusted, and says so", E2E, async () => {
    ws = await createTempWorkspace();
    search = await startSearchServer("searxng", [{ results: [{ title: "t", url: "https://example.com/" }] }]);
    await ws.write(
      ".agents/settings.json",
      JSON.stringify({ web: { search: { backend: "searxng", baseUrl: search.origin } } }),
    );
    const untrusted = await runGantryTool(
      "search_web",
      { query: "q" },
      { workspace: ws.root, env: { HOME: ws.home }, extra: ["--approval-mode", "yolo"] },
    );
    expect(untrusted.run.stderr).toContain("ignored web.search");
    expect(untrusted.result.text).toContain("search_web has no search backend configured");
    expect(search.requests).toHaveLength(0);
    const trusted = await runGantryTool(
      "search_web",
      { query: "q" },
      { workspace: ws.root, env: { HOME: ws.home }, extra: ["--approval-mode", "yolo", "--trust"] },
    );
    expect(trusted.result.error).toBe(false);
    search.assertDone();
  });

  it("gantry tools lists search_web and generate_image with their groups and safety", E2E, async () => {
    ws = await createTempWorkspace();
    const run = await runGantry(["tools", "--workspace", ws.root], { env: { HOME: ws.home } });
    expect(run.stdout).toMatch(/search_web\s+-\s+network\s+WebSearch\s+yes/);
    expect(run.stdout).toMatch(/generate_image\s+-\s+network\s+Interaction\s+yes/);
  });
});
