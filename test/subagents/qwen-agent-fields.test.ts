import { describe, expect, it } from "vitest";
import { parseSubagentMarkdown } from "../../src/subagents/types.js";
import { gantryOn, serverAndWorkspace } from "../support/e2e.js";
import { startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

// Qwen Code's agent files nest their model and run settings: modelConfig {model, temp, top_p} and
// runConfig {max_turns, max_time_minutes}.

const t = serverAndWorkspace();

const qwenFile = (config: string) =>
  `---\nname: reviewer\ndescription: reviews code\ntools:\n  - read_file\n${config}\n---\nYou review code.\n`;

describe("Qwen Code agent files", () => {
  it("reads modelConfig and runConfig as the flat fields", () => {
    const parsed = parseSubagentMarkdown(
      qwenFile(
        "modelConfig:\n  model: openai:qwen3-coder\n  temp: 0.3\n  top_p: 0.9\nrunConfig:\n  max_turns: 7\n  max_time_minutes: 2\ncolor: blue",
      ),
      "/p/.qwen/agents/reviewer.md",
    );
    expect(parsed.ok && parsed.definition).toMatchObject({
      model: "openai:qwen3-coder",
      temperature: 0.3,
      topP: 0.9,
      maxTurns: 7,
      timeoutMs: 120_000,
    });
    expect(parsed.ok && parsed.warnings).toEqual([]);
    const odd = parseSubagentMarkdown(
      qwenFile("runConfig:\n  max_turns: 3\n  retries: 2"),
      "/p/.qwen/agents/r.md",
    );
    expect(odd.ok && odd.warnings).toEqual(['unknown field "runConfig.retries"; ignored']);
    const bad = parseSubagentMarkdown(qwenFile("modelConfig:\n  top_p: 4"), "/p/.qwen/agents/r.md");
    expect(!bad.ok && bad.message).toContain("top_p must be a number from 0 to 1");
  });

  it("sends the agent's temperature and top-p with each of its model calls", {
    timeout: 120_000,
  }, async () => {
    t.ws = await createTempWorkspace({
      ".qwen/agents/reviewer.md": qwenFile("modelConfig:\n  temp: 0.3\n  top_p: 0.9"),
    });
    t.server = await startModelServer([
      {
        toolCalls: [
          {
            name: "agent",
            args: {
              description: "review",
              prompt: "review",
              subagent_type: "reviewer",
              run_in_background: false,
            },
          },
        ],
      },
      {
        text: "reviewed",
        expect: (request) => {
          expect(request.body.temperature).toBe(0.3);
          expect(request.body.top_p).toBe(0.9);
        },
      },
      { text: "done", expect: (request) => expect(request.body.temperature).toBeUndefined() },
    ]);
    const run = await gantryOn(t.server, t.ws, ["-p", "go"]);
    expect(t.server.failures).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    t.server.assertDone();
  });
});
