import { afterEach, describe, expect, it } from "vitest";
import { everythingStdio } from "../mcp/support.js";
import type { RecordedRequest } from "../support/model-server.js";
import { DIALECT_CASES, type HookRun, runWithHooks } from "./dialect-cases.js";

/** CLI runs spawn node and load the AI SDK: slow on a busy machine. */
const E2E = { timeout: 120_000 };
let run: HookRun | undefined;
afterEach(async () => {
  await run?.server.close();
  await run?.ws.cleanup();
  run = undefined;
});

const claude = DIALECT_CASES.find((dialect) => dialect.id === "claude");
if (!claude) throw new Error("no claude dialect case");
const READ = { name: "view_file", args: { AbsolutePath: "secrets.txt" } };
const postToolUse = (fields: Record<string, unknown>) => ({
  hookSpecificOutput: { hookEventName: "PostToolUse", ...fields },
});
/** The tool result the model is sent (OpenAI's `tool` message) is `text`, and holds nothing of `never`. */
const modelReads = (text: string, never: string) => (request: RecordedRequest) => {
  const messages = request.body.messages as { role: string; content: unknown }[];
  const results = JSON.stringify(messages.filter((message) => message.role === "tool"));
  if (!results.includes(text)) throw new Error(`the tool result sent was not "${text}": ${results}`);
  if (results.includes(never)) throw new Error(`the tool result sent holds "${never}": ${results}`);
};

describe("Claude PostToolUse replacement output", () => {
  it("updatedToolOutput is the tool result the model reads (a redaction hook)", E2E, async () => {
    run = await runWithHooks({
      dialect: claude,
      files: { "secrets.txt": "API_KEY=sk-live-SECRET\n" },
      rules: {
        post_tool_execution: [{ matcher: "Read", answer: postToolUse({ updatedToolOutput: "[REDACTED]" }) }],
      },
      turns: [{ toolCalls: [READ] }, { text: "ok", expect: modelReads("[REDACTED]", "sk-live-SECRET") }],
    });
    expect(run.code).toBe(0);
    run.server.assertDone();
  });

  it("updatedMCPToolOutput is the MCP tool's result the model reads", E2E, async () => {
    run = await runWithHooks({
      dialect: claude,
      files: { ".mcp.json": JSON.stringify({ mcpServers: { everything: everythingStdio() } }) },
      extra: ["--approval-mode", "yolo"],
      rules: {
        post_tool_execution: [
          { matcher: "mcp__everything__echo", answer: postToolUse({ updatedMCPToolOutput: "[REDACTED]" }) },
        ],
      },
      turns: [
        { toolCalls: [{ name: "mcp__everything__echo", args: { message: "sk-live-SECRET" } }] },
        { text: "ok", expect: modelReads("[REDACTED]", "sk-live-SECRET") },
      ],
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    run.server.assertDone();
  });

  it(
    "updatedMCPToolOutput on a built-in tool is named in a warning, as Claude Code applies it to MCP tools only",
    E2E,
    async () => {
      run = await runWithHooks({
        dialect: claude,
        files: { "secrets.txt": "PLAIN-CONTENT\n" },
        rules: {
          post_tool_execution: [
            { matcher: "Read", answer: postToolUse({ updatedMCPToolOutput: "[REDACTED]" }) },
          ],
        },
        turns: [{ toolCalls: [READ] }, { text: "ok", expect: modelReads("PLAIN-CONTENT", "[REDACTED]") }],
      });
      expect(run.code).toBe(0);
      run.server.assertDone();
      expect(run.stderr).toContain("updatedMCPToolOutput replaces only an MCP tool's output");
    },
  );
});
