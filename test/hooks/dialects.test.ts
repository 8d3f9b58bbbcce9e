import { readFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { hookHarness, startServer } from "./support.js";

let ws: TempWorkspace;
afterEach(async () => ws?.cleanup());

function settings(hooks: unknown): string {
  return JSON.stringify({ permissions: { allow: [] }, hooks }, null, 2);
}

const captured = async (file = "captured.json") => JSON.parse(await readFile(`${ws.root}/${file}`, "utf8"));

describe("Claude Code hooks (.claude/settings.json)", () => {
  it("runs a Bash matcher on run_command with Claude's stdin and honours permissionDecision deny", async () => {
    const answer = {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "use the test runner",
      },
    };
    ws = await createTempWorkspace({
      ".claude/settings.json": settings({
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [{ type: "command", command: `cat > captured.json; echo '${JSON.stringify(answer)}'` }],
          },
        ],
      }),
    });
    const { pipeline, commands } = hookHarness(ws);
    const result = await pipeline.run(
      { name: "run_command", args: { CommandLine: "npm test", Cwd: "sub" }, callId: "call_1" },
      { agentId: "sub-7" },
    );
    expect(result.text).toBe("Denied by hook claude:.claude/settings.json: use the test runner");
    expect(commands).toEqual([]);
    const input = await captured();
    expect(input).toEqual({
      session_id: expect.any(String),
      transcript_path: "",
      cwd: ws.root,
      permission_mode: "default",
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "npm test", cwd: `${ws.root}/sub` },
      tool_use_id: "call_1",
      agent_id: "sub-7",
    });
  });

  it("blocks on exit 2 with stderr as the reason", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": settings({
        PreToolUse: [
          {
            matcher: "Edit|Write",
            hooks: [{ type: "command", command: "echo 'protected file' >&2; exit 2" }],
          },
        ],
      }),
    });
    const { pipeline } = hookHarness(ws);
    const result = await pipeline.run({ name: "write_to_file", args: { TargetFile: "a", CodeContent: "b" } });
    expect(result.text).toBe("Denied by hook claude:.claude/settings.json: protected file");
    // Read is not in "Edit|Write": exact names, not a regex search
    expect((await pipeline.run({ name: "view_file", args: { AbsolutePath: "a" } })).errorCode).toBe(
      "not_found",
    );
  });

  it("reads the legacy decision block, and ignores plain-text stdout", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.local.json": settings({
        PreToolUse: [
          { matcher: "Read", hooks: [{ type: "command", command: "echo checking" }] },
          {
            matcher: "Re.*",
            hooks: [{ type: "command", command: `echo '{"decision":"block","reason":"legacy"}'` }],
          },
        ],
      }),
    });
    const { pipeline, log } = hookHarness(ws);
    const result = await pipeline.run({ name: "view_file", args: { AbsolutePath: "a" } });
    expect(result.text).toBe(
      "Denied by hook claude:.claude/settings.local.json hooks.PreToolUse[1].hooks[0]: legacy",
    );
    expect(log).toEqual([]);
  });

  it("applies updatedInput, in Claude's argument names, and feeds additionalContext to the model", async () => {
    const answer = {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        updatedInput: { command: "npm test -- --run", cwd: "/tmp" },
        additionalContext: "tests run once, not in watch mode",
      },
    };
    ws = await createTempWorkspace({
      ".claude/settings.json": settings({
        PreToolUse: [
          { matcher: "Bash", hooks: [{ type: "command", command: `echo '${JSON.stringify(answer)}'` }] },
        ],
      }),
    });
    const { pipeline, commands } = hookHarness(ws);
    const result = await pipeline.run({ name: "code_execution", args: { CommandLine: "npm test" } });
    expect(commands).toEqual(["npm test -- --run"]);
    expect(result.text).toBe("ran\n\ntests run once, not in watch mode");
  });

  it("runs PostToolUse after a success and PostToolUseFailure after a failure, with tool_response", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": settings({
        PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "cat > ok.json" }] }],
        PostToolUseFailure: [
          {
            matcher: "Bash",
            hooks: [
              {
                type: "command",
                command: `cat > failed.json; echo '{"decision":"block","reason":"look at the log"}'`,
              },
            ],
          },
        ],
      }),
    });
    const { pipeline } = hookHarness(ws);
    expect((await pipeline.run({ name: "run_command", args: { CommandLine: "true" } })).text).toBe("ran");
    const failed = await pipeline.run({ name: "run_command", args: { CommandLine: "fail" } });
    expect(failed.text).toBe("boom: exit 1\n\nlook at the log");
    const ok = await captured("ok.json");
    expect(ok.hook_event_name).toBe("PostToolUse");
    expect(ok.tool_response).toMatchObject({ success: true, output: "ran" });
    const bad = await captured("failed.json");
    expect(bad.tool_response).toMatchObject({ success: false, error: "boom: exit 1" });
  });
});

describe("Claude Code HTTP hooks", () => {
  it("POST Claude's payload and expand only the variables named in allowedEnvVars", async () => {
    const server = await startServer((_req, res) =>
      res.end(
        JSON.stringify({
          hookSpecificOutput: { permissionDecision: "ask", permissionDecisionReason: "sure?" },
        }),
      ),
    );
    try {
      ws = await createTempWorkspace({
        ".claude/settings.json": settings({
          PreToolUse: [
            {
              matcher: "WebFetch|Read",
              hooks: [
                {
                  type: "http",
                  url: `${server.url}/claude`,
                  headers: { Authorization: "Bearer $TOKEN", "X-Other": "${OTHER}" },
                  allowedEnvVars: ["TOKEN"],
                },
              ],
            },
          ],
        }),
      });
      const { pipeline, log } = hookHarness(ws, { TOKEN: "t0k", OTHER: "leak" });
      const result = await pipeline.run({ name: "read", args: { AbsolutePath: "x.md" } });
      expect(result.text).toBe("Denied by hook claude:.claude/settings.json: sure?");
      const [request] = server.requests;
      expect(request?.headers.authorization).toBe("Bearer t0k");
      expect(request?.headers["x-other"]).toBe("");
      expect(request?.body).toMatchObject({
        hook_event_name: "PreToolUse",
        tool_name: "Read",
        tool_input: { file_path: `${ws.root}/x.md` },
      });
      expect(log).toEqual([
        "hook claude:.claude/settings.json: header references OTHER, which is unset or not in allowedEnvVars",
      ]);
    } finally {
      await server.close();
    }
  });
});

describe("Gemini CLI hooks (.gemini/settings.json)", () => {
  it("sends Gemini's stdin (with timestamp) and honours decision block", async () => {
    ws = await createTempWorkspace({
      ".gemini/settings.json": settings({
        BeforeTool: [
          {
            matcher: "read_file|write_file",
            hooks: [
              {
                name: "guard",
                type: "command",
                command: `cat > captured.json; echo '{"decision":"block","reason":"no"}'`,
              },
            ],
          },
        ],
      }),
    });
    const { pipeline } = hookHarness(ws);
    const result = await pipeline.run({ name: "view_file", args: { AbsolutePath: "docs/a.md" } });
    expect(result.text).toBe("Denied by hook gemini:.gemini/settings.json: no");
    const input = await captured();
    expect(input).toMatchObject({
      hook_event_name: "BeforeTool",
      cwd: ws.root,
      tool_name: "read_file",
      tool_input: { file_path: `${ws.root}/docs/a.md` },
    });
    expect(Date.parse(input.timestamp)).not.toBeNaN();
  });

  it("merges hookSpecificOutput.tool_input over the arguments", async () => {
    ws = await createTempWorkspace({
      ".gemini/settings.json": settings({
        BeforeTool: [
          {
            matcher: "run_shell_command",
            hooks: [
              {
                type: "command",
                command: `echo '{"decision":"allow","hookSpecificOutput":{"tool_input":{"command":"ls -a"}}}'`,
              },
            ],
          },
        ],
      }),
    });
    const { pipeline, commands } = hookHarness(ws);
    await pipeline.run({ name: "run_command", args: { CommandLine: "ls", Cwd: "." } });
    expect(commands).toEqual(["ls -a"]);
  });

  it("reads timeouts in milliseconds, and blocks on exit 2", async () => {
    ws = await createTempWorkspace({
      ".gemini/settings.json": settings({
        BeforeTool: [
          { matcher: ".*", hooks: [{ name: "slow", type: "command", command: "sleep 10", timeout: 300 }] },
          {
            matcher: "run_.*",
            hooks: [{ name: "blocker", type: "command", command: "echo 'nope' >&2; exit 2" }],
          },
        ],
      }),
    });
    const { pipeline, log } = hookHarness(ws);
    const result = await pipeline.run({ name: "run_command", args: { CommandLine: "x" } });
    expect(log).toEqual([
      "hook gemini:.gemini/settings.json slow: timed out after 0.3 s (fail-open; the call is denied anyway by hook gemini:.gemini/settings.json blocker)",
    ]);
    expect(result.text).toBe("Denied by hook gemini:.gemini/settings.json blocker: nope");
  });

  it("sends AfterTool a tool_response with llmContent, returnDisplay and error", async () => {
    ws = await createTempWorkspace({
      ".gemini/settings.json": settings({
        AfterTool: [
          {
            matcher: "",
            hooks: [
              {
                type: "command",
                command: `cat > captured.json; echo '{"hookSpecificOutput":{"additionalContext":"noted"}}'`,
              },
            ],
          },
        ],
      }),
    });
    const { pipeline } = hookHarness(ws);
    const result = await pipeline.run({ name: "run_command", args: { CommandLine: "fail" } });
    expect(result.text).toBe("boom: exit 1\n\nnoted");
    expect((await captured()).tool_response).toEqual({
      llmContent: "boom: exit 1",
      returnDisplay: "boom: exit 1",
      error: { message: "boom: exit 1", type: "execution_failed" },
    });
  });
});
