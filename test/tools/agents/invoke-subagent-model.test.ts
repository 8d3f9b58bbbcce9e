import { afterEach, describe, expect, it } from "vitest";
import { assertScriptsDone, type Harness, startHarness } from "../../subagents/support/harness.js";
import { startModelRouter } from "../../subagents/support/model-router.js";
import { runGantry } from "../../support/cli.js";
import { type ModelServer, type ScriptedTurn, startModelServer } from "../../support/model-server.js";
import { createTempWorkspace } from "../../support/workspace.js";

let cleanup: (() => Promise<void>)[] = [];
let harness: Harness | undefined;
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
  await harness?.close();
  harness = undefined;
});

const sees = (needle: string) => (request: { text: string }) => {
  if (!request.text.includes(needle))
    throw new Error(`the request does not contain ${JSON.stringify(needle)}`);
};

const TESTER_FILE =
  "---\nname: tester\ndescription: Runs the tests\nmodel: openai:file-model\n---\nTESTER-SYSTEM: you run tests.\n";

describe("subagent models: invoke_subagent's Model and an agent file's model:", () => {
  it("gantry -p: each subagent's requests go to the model it was given, its type's, or the parent's", async () => {
    const ws = await createTempWorkspace({ ".agents/agents/tester.md": TESTER_FILE, "a.txt": "a\n" });
    cleanup.push(ws.cleanup);
    // the main agent starts one background coordinator; the coordinator's own invoke_subagent call
    // runs its children in the foreground, so every report comes back in one result
    const children = [
      { Prompt: "TASK-M1: report", Model: "openai:other-model" },
      { Prompt: "TASK-M2: report", TypeName: "tester" },
      { Prompt: "TASK-M3: report", Model: "anthropic:claude-sub-test" },
      { Prompt: "TASK-M4: report", TypeName: "tester", Model: "openai:override-model" },
      { Prompt: "TASK-M5: report" },
      { Prompt: "TASK-M6: report", Model: "nope:bad" },
    ];
    const scripts: [string, ScriptedTurn[]][] = [
      [
        "MAIN-PROMPT-MODELS",
        [
          {
            toolCalls: [
              { name: "invoke_subagent", args: { Subagents: [{ Prompt: "TASK-COORD: start them" }] } },
            ],
          },
          { text: "waiting" },
          { expect: sees("COORD-REPORT"), text: "all reported" },
        ],
      ],
      [
        "TASK-COORD",
        [
          { toolCalls: [{ name: "invoke_subagent", args: { Subagents: children } }] },
          {
            expect: (r) => {
              for (const n of [1, 2, 3, 4, 5]) sees(`M${n}-REPORT`)(r);
              sees('5: not started: model \\"nope:bad\\" is not provider:model-id')(r);
            },
            text: "COORD-REPORT",
          },
        ],
      ],
      ["TASK-M1", [{ text: "M1-REPORT" }]],
      ["TASK-M2", [{ expect: sees("TESTER-SYSTEM"), text: "M2-REPORT" }]],
      ["TASK-M3", [{ text: "M3-REPORT" }]],
      ["TASK-M4", [{ expect: sees("TESTER-SYSTEM"), text: "M4-REPORT" }]],
      ["TASK-M5", [{ text: "M5-REPORT" }]],
    ];
    const servers: Record<string, ModelServer> = {};
    for (const [marker, turns] of scripts) {
      servers[marker] = await startModelServer(turns);
      cleanup.push((servers[marker] as ModelServer).close);
    }
    const router = await startModelRouter(
      scripts.map(([marker]) => ({ marker, server: servers[marker] as ModelServer })),
    );
    cleanup.push(router.close);

    const run = await runGantry(
      [
        "-p",
        "MAIN-PROMPT-MODELS",
        "--model",
        "openai:main-model",
        "--base-url",
        router.baseUrl("openai"),
        "--workspace",
        ws.root,
      ],
      { env: { HOME: ws.home, OPENAI_API_KEY: "test-key", ANTHROPIC_API_KEY: "test-key" } },
    );
    expect(router.unrouted).toEqual([]);
    for (const [marker, server] of Object.entries(servers)) {
      expect(server.failures, marker).toEqual([]);
      expect(server.remaining, marker).toBe(0);
    }
    expect(run.stdout.trim()).toBe("all reported");
    expect(run.code).toBe(0);

    const modelsOf = (marker: string) =>
      servers[marker]?.requests.map((r) => [r.protocol, r.body.model]) ?? [];
    expect(modelsOf("MAIN-PROMPT-MODELS")).toEqual([
      ["openai", "main-model"],
      ["openai", "main-model"],
      ["openai", "main-model"],
    ]);
    expect(modelsOf("TASK-COORD")).toEqual([
      ["openai", "main-model"],
      ["openai", "main-model"],
    ]);
    // Model wins; the agent file's model: is used without it; another provider works with the same base URL
    expect(modelsOf("TASK-M1")).toEqual([["openai", "other-model"]]);
    expect(modelsOf("TASK-M2")).toEqual([["openai", "file-model"]]);
    expect(modelsOf("TASK-M3")).toEqual([["anthropic", "claude-sub-test"]]);
    expect(modelsOf("TASK-M4")).toEqual([["openai", "override-model"]]);
    expect(modelsOf("TASK-M5")).toEqual([["openai", "main-model"]]);
  });

  it("gantry -p: an agent file whose model: cannot be made fails that run with the reason", async () => {
    const ws = await createTempWorkspace({
      ".agents/agents/broken.md":
        "---\nname: broken\ndescription: Has a model without a key\nmodel: anthropic:claude-nokey\n---\nBROKEN.\n",
    });
    cleanup.push(ws.cleanup);
    const main = await startModelServer([
      {
        toolCalls: [
          {
            name: "invoke_subagent",
            args: { Subagents: [{ Prompt: "TASK-BROKEN", TypeName: "broken" }] },
          },
        ],
      },
      {
        expect: sees("0: not started: anthropic needs an API key: set ANTHROPIC_API_KEY"),
        text: "could not start it",
      },
    ]);
    cleanup.push(main.close);
    const run = await runGantry(
      [
        "-p",
        "Start the broken agent",
        "--model",
        "openai:main-model",
        "--base-url",
        main.baseUrl("openai"),
        "--workspace",
        ws.root,
        "--trust",
      ],
      { env: { HOME: ws.home, OPENAI_API_KEY: "test-key", ANTHROPIC_API_KEY: "" } },
    );
    main.assertDone();
    expect(run.stdout.trim()).toBe("could not start it");
    expect(run.code).toBe(0);
  });

  it("a front end that cannot make other models refuses Model and model: by name instead of ignoring them", async () => {
    harness = await startHarness([["SAME-MODEL", [{ text: "same" }]]], {
      files: { ".agents/agents/tester.md": TESTER_FILE },
    });
    const result = await harness.session.pipeline.run({
      name: "invoke_subagent",
      args: {
        Subagents: [
          { Prompt: "p", Model: "openai:other-model" },
          { Prompt: "q", TypeName: "tester" },
        ],
      },
    });
    expect(result).toMatchObject({ error: true, errorCode: "execution_failed" });
    expect(result.text).toContain(
      '0: not started: this front end cannot switch subagents to another model ("openai:other-model")',
    );
    expect(result.text).toContain(
      '1: not started: this front end cannot switch subagents to another model ("openai:file-model")',
    );
    // the parent's own model id is no switch at all
    const same = await harness.session.pipeline.run({
      name: "invoke_subagent",
      args: { Subagents: [{ Prompt: "SAME-MODEL", Model: harness.model.id }] },
    });
    expect(same.text).toContain("0: started agent-1 in the background");
    await harness.session.subagents.agents.get("agent-1")?.settled;
    assertScriptsDone(harness);
    expect(harness.servers["SAME-MODEL"]?.requests[0]?.body.model).toBe("scripted");
  });
});
