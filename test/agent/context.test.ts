import { afterEach, describe, expect, it } from "vitest";
import {
  buildSystemPrompt,
  compactionSplit,
  estimateTokens,
  renderTranscript,
} from "../../src/agent/context.js";
import {
  answerUnansweredCalls,
  type ConversationMessage,
  createConversation,
} from "../../src/agent/conversation.js";
import { loadProjectInstructions } from "../../src/agent/instructions.js";
import { contextWindowFor } from "../../src/models/context-windows.js";
import { createLanguageModel, HOW_TO_CONFIGURE_A_MODEL, parseModelSpec } from "../../src/models/provider.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

describe("system prompt", () => {
  it("declares the tools and carries AGENTS.md, CLAUDE.md, GEMINI.md and QWEN.md in that order", async () => {
    ws = await createTempWorkspace({
      "QWEN.md": "qwen rule",
      "AGENTS.md": "Always run npm test.",
      "CLAUDE.md": "claude rule",
      "GEMINI.md": "",
    });
    const instructions = loadProjectInstructions(ws.root);
    expect(instructions.map((i) => i.file)).toEqual(["AGENTS.md", "CLAUDE.md", "QWEN.md"]);
    const prompt = buildSystemPrompt({
      workspaceRoot: ws.root,
      declarations: [{ name: "view_file", description: "Read a file. Long details here.", parameters: {} }],
      instructions,
      now: new Date("2026-01-02T00:00:00Z"),
    });
    expect(prompt).toContain(ws.root);
    expect(prompt).toContain("2026-01-02");
    expect(prompt).toContain("- view_file: Read a file.");
    expect(prompt).not.toContain("Long details here");
    expect(prompt.indexOf("Always run npm test.")).toBeLessThan(prompt.indexOf("claude rule"));
    expect(prompt.indexOf("claude rule")).toBeLessThan(prompt.indexOf("qwen rule"));
  });

  it("caps a huge instruction file and says so", async () => {
    ws = await createTempWorkspace({ "AGENTS.md": "a".repeat(100_000) });
    const [agents] = loadProjectInstructions(ws.root);
    expect(agents?.text.length).toBeLessThan(70_000);
    expect(agents?.text).toContain("AGENTS.md truncated");
  });
});

describe("compaction split", () => {
  const turn = (n: number, withTool: boolean): ConversationMessage[] => [
    { role: "user", text: `u${n}` },
    {
      role: "assistant",
      text: `a${n}`,
      toolCalls: withTool ? [{ callId: `c${n}`, name: "view_file", args: {} }] : [],
    },
    ...(withTool
      ? [
          {
            role: "tool" as const,
            results: [{ callId: `c${n}`, name: "view_file", text: "r", error: false }],
          },
        ]
      : []),
  ];

  it("keeps the last turns with their prompts and never separates a call from its result", () => {
    const messages = [...turn(1, true), ...turn(2, true), ...turn(3, false)];
    const split = compactionSplit(messages, 2);
    expect(messages[split]).toEqual({ role: "user", text: "u2" });
    expect(compactionSplit(messages, 1)).toBe(6);
    expect(compactionSplit(messages, 5)).toBe(0);
  });

  it("renders older turns as a plain transcript for the summariser, cutting long tool output", () => {
    const transcript = renderTranscript([
      { role: "user", text: "fix the bug" },
      {
        role: "assistant",
        text: "looking",
        toolCalls: [{ callId: "c", name: "view_file", args: { AbsolutePath: "/w/a.ts" } }],
      },
      { role: "tool", results: [{ callId: "c", name: "view_file", text: "z".repeat(5_000), error: false }] },
      { role: "user", text: "done?", source: "schedule 2" },
    ]);
    expect(transcript).toContain("User: fix the bug");
    expect(transcript).toContain('Assistant called view_file {"AbsolutePath":"/w/a.ts"}');
    expect(transcript).toContain("view_file returned: zzz");
    expect(transcript).toContain("3000 characters cut");
    expect(transcript).toContain("[schedule 2]: done?");
  });

  it("estimates tokens at about four characters each", () => {
    expect(estimateTokens([{ role: "user", text: "x".repeat(400) }])).toBeGreaterThan(100);
  });
});

describe("conversation repair", () => {
  it("answers tool calls left without a result (a crash mid-tool) as aborted", () => {
    const conversation = createConversation([
      { role: "user", text: "go" },
      {
        role: "assistant",
        text: "",
        toolCalls: [
          { callId: "a", name: "view_file", args: {} },
          { callId: "b", name: "view_file", args: {} },
        ],
      },
      { role: "tool", results: [{ callId: "a", name: "view_file", text: "ok", error: false }] },
      { role: "assistant", text: "", toolCalls: [{ callId: "c", name: "run_command", args: {} }] },
    ]);
    answerUnansweredCalls(conversation);
    expect(conversation.messages[2]).toMatchObject({
      role: "tool",
      results: [{ callId: "a" }, { callId: "b", errorCode: "aborted" }],
    });
    expect(conversation.messages[4]).toMatchObject({
      role: "tool",
      results: [{ callId: "c", errorCode: "aborted" }],
    });
  });
});

describe("model configuration", () => {
  it("parses provider:model-id and refuses anything else with the provider list", () => {
    expect(parseModelSpec("anthropic:claude-sonnet-4-5")).toEqual({
      ok: true,
      value: { provider: "anthropic", modelId: "claude-sonnet-4-5" },
    });
    expect(parseModelSpec("gemini:gemini-2.5-pro")).toMatchObject({ value: { provider: "google" } });
    expect(parseModelSpec("openai-compatible:qwen3:8b")).toMatchObject({ value: { modelId: "qwen3:8b" } });
    const bad = parseModelSpec("gpt-4");
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.message).toContain("google, anthropic, openai, openai-compatible");
  });

  it("names the missing key, the missing base URL, or how to configure a model at all", () => {
    expect(createLanguageModel({ env: {} })).toEqual({ ok: false, message: HOW_TO_CONFIGURE_A_MODEL });
    expect(createLanguageModel({ model: "google:gemini-2.5-pro", env: {} })).toMatchObject({
      message: expect.stringContaining("GEMINI_API_KEY"),
    });
    expect(createLanguageModel({ model: "openai-compatible:qwen3", env: {} })).toMatchObject({
      message: expect.stringContaining("--base-url"),
    });
    expect(
      createLanguageModel({ model: "google:gemini-2.5-pro", env: { GOOGLE_GENERATIVE_AI_API_KEY: "k" } }).ok,
    ).toBe(true);
    expect(
      createLanguageModel({ model: "openai-compatible:qwen3", baseUrl: "http://localhost:11434/v1", env: {} })
        .ok,
    ).toBe(true);
  });

  it("knows common context windows and lets settings override them", () => {
    expect(contextWindowFor({ provider: "anthropic", modelId: "claude-sonnet-4-5" })).toBe(200_000);
    expect(contextWindowFor({ provider: "google", modelId: "gemini-2.5-pro" })).toBe(1_048_576);
    expect(contextWindowFor({ provider: "openai-compatible", modelId: "mystery" })).toBe(32_768);
    expect(contextWindowFor({ provider: "openai", modelId: "gpt-4o-mini" }, 8_000)).toBe(8_000);
  });
});
