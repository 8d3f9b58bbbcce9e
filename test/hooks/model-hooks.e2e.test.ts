import { afterEach, describe, expect, it } from "vitest";
import type { RecordedRequest } from "../support/model-server.js";
import { DIALECT_CASES, eventsNamed, type HookRun, runWithHooks } from "./dialect-cases.js";

/** CLI runs spawn node and load the AI SDK: slow on a busy machine. */
const E2E = { timeout: 120_000 };
let run: HookRun | undefined;
afterEach(async () => {
  await run?.server.close();
  await run?.ws.cleanup();
  run = undefined;
});

const toolNames = (request: RecordedRequest) =>
  ((request.body.tools as { function: { name: string } }[] | undefined) ?? []).map(
    (tool) => tool.function.name,
  );
const llmResponse = (text: string) => ({
  candidates: [{ content: { role: "model", parts: [text] }, finishReason: "STOP" }],
});

// Gemini CLI's model hooks, and the same moments under their native names in .agents/hooks.json
const MODEL_DIALECTS = DIALECT_CASES.filter((dialect) => dialect.id === "gemini" || dialect.id === "native");
/** How each answers with a reply or a tool configuration: Gemini inside hookSpecificOutput, native at the top. */
const wrap = (id: string, fields: Record<string, unknown>) =>
  id === "gemini" ? { hookSpecificOutput: fields } : fields;

describe.each(MODEL_DIALECTS.map((dialect) => [dialect.id, dialect] as const))(
  "%s model hooks",
  (_id, dialect) => {
    it("BeforeModel: a synthetic reply replaces the model call", E2E, async () => {
      run = await runWithHooks({
        dialect,
        rules: {
          before_model: [{ answer: wrap(dialect.id, { llm_response: llmResponse("CANNED ANSWER") }) }],
        },
        turns: [],
      });
      expect(run.code).toBe(0);
      expect(run.requests()).toEqual([]);
      expect(run.result()).toMatchObject({ result: "CANNED ANSWER" });
      const [seen] = eventsNamed(run, dialect, "before_model");
      expect(JSON.stringify(seen?.llm_request)).toContain("Do the task");
    });

    it("BeforeModel: a deny ends the run before the model is asked", E2E, async () => {
      run = await runWithHooks({
        dialect,
        rules: { before_model: [{ answer: dialect.block("before_model", "model budget exhausted") }] },
        turns: [],
      });
      expect(run.code).toBe(0);
      expect(run.requests()).toEqual([]);
      expect(run.result()).toMatchObject({ stop_reason: expect.stringContaining("model budget exhausted") });
    });

    it("AfterModel: the reply's text is replaced before anyone sees it", E2E, async () => {
      run = await runWithHooks({
        dialect,
        extra: ["--output-format", "stream-json"],
        rules: {
          after_model: [
            { answer: wrap(dialect.id, { llm_response: llmResponse("the password is [REDACTED]") }) },
          ],
        },
        turns: [{ text: "the password is hunter2" }],
      });
      expect(run.code).toBe(0);
      expect(run.stdout).not.toContain("hunter2");
      expect(run.result()).toMatchObject({ result: "the password is [REDACTED]" });
      const [seen] = eventsNamed(run, dialect, "after_model");
      expect(JSON.stringify(seen?.llm_response)).toContain("hunter2");
      // Gemini CLI's llm_response carries the reply's text beside its candidates
      expect(seen?.llm_response).toMatchObject({ text: "the password is hunter2" });
    });

    it("AfterModel: a deny discards the reply and ends the run", E2E, async () => {
      run = await runWithHooks({
        dialect,
        rules: { after_model: [{ answer: dialect.block("after_model", "PII in the reply") }] },
        turns: [{ text: "SSN 000-00-0000" }],
      });
      expect(run.code).toBe(0);
      expect(run.stdout).not.toContain("000-00-0000");
      expect(run.result()).toMatchObject({ stop_reason: expect.stringContaining("PII in the reply") });
    });

    it(
      "BeforeToolSelection: NONE declares no tools; allowedFunctionNames narrows them (Gemini names count)",
      E2E,
      async () => {
        run = await runWithHooks({
          dialect,
          rules: {
            before_tool_selection: [{ answer: wrap(dialect.id, { toolConfig: { mode: "NONE" } }) }],
          },
          turns: [
            {
              text: "no tools",
              expect: (request) => {
                if (toolNames(request).length > 0)
                  throw new Error(`tools declared: ${toolNames(request).join(",")}`);
              },
            },
          ],
        });
        expect(run.code).toBe(0);
        run.server.assertDone();
        await run.server.close();
        await run.ws.cleanup();
        run = await runWithHooks({
          dialect,
          rules: {
            before_tool_selection: [
              {
                answer: wrap(dialect.id, {
                  toolConfig: { mode: "AUTO", allowedFunctionNames: ["read_file", "glob"] },
                }),
              },
            ],
          },
          turns: [
            {
              text: "two tools",
              expect: (request) => expect(toolNames(request).sort()).toEqual(["find_by_name", "view_file"]),
            },
          ],
        });
        expect(run.code).toBe(0);
        run.server.assertDone();
      },
    );
  },
);

describe("Gemini CLI's order of its model events", () => {
  const gemini = DIALECT_CASES.find((dialect) => dialect.id === "gemini");
  if (!gemini) throw new Error("no gemini dialect case");
  const order = (current: HookRun) => current.events().map((event) => event.hook_event_name as string);

  it(
    "BeforeModel fires before BeforeToolSelection, which sees the request as BeforeModel rewrote it",
    E2E,
    async () => {
      run = await runWithHooks({
        dialect: gemini,
        prompt: "original prompt text",
        rules: {
          before_model: [
            {
              answer: {
                hookSpecificOutput: {
                  llm_request: { messages: [{ role: "user", content: "REWRITTEN BY BEFOREMODEL" }] },
                },
              },
            },
          ],
          before_tool_selection: [{ answer: {} }],
        },
        turns: [{ text: "done" }],
      });
      expect(run.code).toBe(0);
      expect(order(run)).toEqual(["BeforeModel", "BeforeToolSelection"]);
      const [selection] = eventsNamed(run, gemini, "before_tool_selection");
      expect(JSON.stringify(selection?.llm_request)).toContain("REWRITTEN BY BEFOREMODEL");
      expect(JSON.stringify(selection?.llm_request)).not.toContain("original prompt text");
    },
  );

  it("a BeforeModel deny ends the turn before BeforeToolSelection fires", E2E, async () => {
    run = await runWithHooks({
      dialect: gemini,
      rules: {
        before_model: [{ answer: { decision: "deny", reason: "no model today" } }],
        before_tool_selection: [{ answer: {} }],
      },
      turns: [],
    });
    expect(run.code).toBe(0);
    expect(order(run)).toEqual(["BeforeModel"]);
    expect(run.requests()).toEqual([]);
  });
});

describe("Gemini's llm_request and llm_response, as Gemini CLI's hookTranslator shapes them", () => {
  const gemini = DIALECT_CASES.find((dialect) => dialect.id === "gemini");
  if (!gemini) throw new Error("no gemini dialect case");
  /** A BeforeModel hook that puts a user message before the messages it was sent and gives the list back. */
  const PREPEND_PY = `import json, sys
request = json.load(sys.stdin)["llm_request"]
messages = [{"role": "user", "content": "PREPENDED BY HOOK"}] + request["messages"]
print(json.dumps({"hookSpecificOutput": {"hookEventName": "BeforeModel", "llm_request": {"messages": messages}}}))
`;

  it(
    "llm_request.messages holds the conversation only; a prepended message leaves the system prompt where it was",
    E2E,
    async () => {
      run = await runWithHooks({
        dialect: gemini,
        rules: { before_model: [{ answer: {} }] },
        files: {
          ".agents/hooks-scripts/prepend.py": PREPEND_PY,
          ".gemini/settings.json": JSON.stringify({
            hooks: {
              BeforeModel: [
                {
                  hooks: [
                    {
                      type: "command",
                      command: 'python3 "$GANTRY_PROJECT_DIR/.agents/hooks-scripts/prepend.py"',
                    },
                  ],
                },
              ],
            },
          }),
        },
        turns: [
          {
            text: "done",
            expect: (request) => {
              const messages = request.body.messages as { role: string; content: unknown }[];
              const [system, ...rest] = messages;
              expect(system?.role).toBe("system");
              expect(JSON.stringify(system?.content)).toContain("You are Gantry");
              expect(rest.map((message) => message.role)).toEqual(["user", "user"]);
              expect(JSON.stringify(rest)).toContain("PREPENDED BY HOOK");
              expect(JSON.stringify(rest)).toContain("Do the task");
              expect(JSON.stringify(rest)).not.toContain("You are Gantry");
            },
          },
        ],
      });
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      run.server.assertDone();
    },
  );

  it("the hook is sent the conversation's texts with Gemini's roles, no system message", E2E, async () => {
    run = await runWithHooks({
      dialect: gemini,
      rules: { before_model: [{ answer: {} }] },
      turns: [{ text: "done" }],
    });
    expect(run.code).toBe(0);
    const [seen] = eventsNamed(run, gemini, "before_model");
    expect((seen?.llm_request as { messages: unknown[] }).messages).toEqual([
      { role: "user", content: "Do the task" },
    ]);
  });
});

describe("Gemini's BeforeModel deny with an llm_response, as geminiChat.ts takes it", () => {
  const gemini = DIALECT_CASES.find((dialect) => dialect.id === "gemini");
  if (!gemini) throw new Error("no gemini dialect case");

  it("the reason is a warning and the synthetic response is the model's reply", E2E, async () => {
    run = await runWithHooks({
      dialect: gemini,
      rules: {
        before_model: [
          {
            answer: {
              decision: "deny",
              reason: "cached answer used",
              hookSpecificOutput: { llm_response: llmResponse("FROM THE CACHE") },
            },
          },
        ],
      },
      turns: [],
    });
    expect(run.code).toBe(0);
    expect(run.requests()).toEqual([]);
    expect(run.result()).toMatchObject({ result: "FROM THE CACHE" });
    expect(run.result().stop_reason).toBeUndefined();
    expect(run.stderr).toContain("cached answer used");
  });
});
