import { afterEach, describe, expect, it } from "vitest";
import { everythingStdio } from "../mcp/support.js";
import type { RecordedRequest } from "../support/model-server.js";
import { DIALECT_CASES, eventsNamed, type HookRun, runWithHooks } from "./dialect-cases.js";

/** CLI runs spawn node, an MCP server and load the AI SDK: slow on a busy machine. */
const E2E = { timeout: 120_000 };
let run: HookRun | undefined;
afterEach(async () => {
  await run?.server.close();
  await run?.ws.cleanup();
  run = undefined;
});

const gemini = DIALECT_CASES.find((dialect) => dialect.id === "gemini");
if (!gemini) throw new Error("no gemini dialect case");
const native = DIALECT_CASES.find((dialect) => dialect.id === "native");
if (!native) throw new Error("no native dialect case");

const toolNames = (request: RecordedRequest) =>
  ((request.body.tools as { function: { name: string } }[] | undefined) ?? []).map(
    (tool) => tool.function.name,
  );

/**
 * A Gemini BeforeToolSelection hook answering `allowedFunctionNames`, in a workspace whose
 * `.gemini/settings.json` also configures server-everything (its tools are `mcp__everything__*` in
 * Gantry, `mcp_everything_*` in Gemini CLI).
 */
async function selectWith(allowed: string[], expectTools: (names: string[]) => void, mode = "AUTO") {
  const dialect = gemini as NonNullable<typeof gemini>;
  const rules = {
    before_tool_selection: [
      { answer: { hookSpecificOutput: { toolConfig: { mode, allowedFunctionNames: allowed } } } },
    ],
  };
  const settings = JSON.parse(dialect.configure(rules, ".agents/hooks-scripts/answer.py"));
  return runWithHooks({
    dialect,
    rules,
    files: {
      ".gemini/settings.json": JSON.stringify({ ...settings, mcpServers: { everything: everythingStdio() } }),
    },
    turns: [{ text: "done", expect: (request) => expectTools(toolNames(request)) }],
  });
}

describe("Gemini BeforeToolSelection: Gemini CLI's tool names, MCP included, both ways", () => {
  it(
    "the hook sees the offered tools by Gemini's names: run_shell_command, read_file, mcp_everything_echo",
    E2E,
    async () => {
      run = await selectWith(["read_file"], () => undefined);
      expect(run.code).toBe(0);
      const [seen] = eventsNamed(run, gemini, "before_tool_selection");
      const names = (seen?.llm_request as { toolConfig: { allowedFunctionNames: string[] } }).toolConfig
        .allowedFunctionNames;
      expect(names).toEqual(
        expect.arrayContaining(["run_shell_command", "read_file", "mcp_everything_echo"]),
      );
      expect(names).not.toContain("run_command");
      expect(names).not.toContain("view_file");
      expect(names.filter((name) => name.startsWith("mcp__"))).toEqual([]);
    },
  );

  it(
    "allowing mcp_everything_echo and run_shell_command declares exactly Gantry's two tools",
    E2E,
    async () => {
      run = await selectWith(["mcp_everything_echo", "run_shell_command"], (names) =>
        expect(names.sort()).toEqual(["mcp__everything__echo", "run_command"]),
      );
      expect(run.code).toBe(0);
      run.server.assertDone();
    },
  );

  it("a name that matches no offered tool is said on stderr, naming the hook and the name", E2E, async () => {
    run = await selectWith(["mcp_github_search", "read_file"], (names) =>
      expect(names).toEqual(["view_file"]),
    );
    expect(run.code).toBe(0);
    run.server.assertDone();
    expect(run.stderr).toMatch(/hook gemini:\.gemini\/settings\.json: [^\n]*"mcp_github_search"/);
    // the offered names closest to it come first: the MCP tools Gemini CLI would name
    expect(run.stderr).toMatch(/offered: [^\n]*mcp_everything_echo/);
    expect(run.stderr).toContain("matches no tool offered");
  });

  it(
    "a hook that allows only unknown names is said too (the model gets no tools, as it asked)",
    E2E,
    async () => {
      run = await selectWith(["mcp_github_search"], (names) => expect(names).toEqual([]));
      expect(run.code).toBe(0);
      run.server.assertDone();
      expect(run.stderr).toContain("mcp_github_search");
    },
  );
});

describe("Gemini BeforeToolSelection: what cannot apply is said", () => {
  it(
    "replace stands for both edit tools, Gantry's own names count, and mode ANY is said not to force a call",
    E2E,
    async () => {
      run = await selectWith(
        ["replace", "view_file"],
        (names) =>
          expect(names.sort()).toEqual(["multi_replace_file_content", "replace_file_content", "view_file"]),
        "ANY",
      );
      expect(run.code).toBe(0);
      run.server.assertDone();
      expect(run.stderr).toMatch(/hook gemini:[^\n]*toolConfig\.mode "ANY"[^\n]*not applied/);
    },
  );
});

describe("native before_tool_selection keeps Gantry's names (and takes Gemini's)", () => {
  it("an unknown name is said on stderr; known names narrow as before", E2E, async () => {
    run = await runWithHooks({
      dialect: native as NonNullable<typeof native>,
      rules: {
        before_tool_selection: [
          { answer: { toolConfig: { allowedFunctionNames: ["view_file", "no_such_tool"] } } },
        ],
      },
      turns: [{ text: "done", expect: (request) => expect(toolNames(request)).toEqual(["view_file"]) }],
    });
    expect(run.code).toBe(0);
    run.server.assertDone();
    expect(run.stderr).toContain("no_such_tool");
    const [seen] = eventsNamed(run, native as NonNullable<typeof native>, "before_tool_selection");
    expect(JSON.stringify(seen?.llm_request)).toContain('"run_command"');
  });
});
