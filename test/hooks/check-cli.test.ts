import { afterEach, describe, expect, it } from "vitest";
import { runGantry } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { hooksJson } from "./support.js";

let ws: TempWorkspace;
afterEach(async () => ws?.cleanup());

describe("gantry hooks check", () => {
  it("prints every group, event, matcher and handler, and exits 0 when all is well", async () => {
    ws = await createTempWorkspace({
      ".agents/hooks-scripts/gate.py": "print('{}')\n",
      ".agents/hooks.json": hooksJson({
        "security-gate": {
          failClosed: true,
          pre_tool_execution: [
            {
              matcher: "code_execution",
              hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 }],
            },
          ],
        },
        "audit-logging": {
          post_tool_execution: [
            {
              matcher: "read_file|write_file",
              hooks: [
                {
                  type: "http",
                  url: "https://telemetry.example.com/e",
                  headers: { Authorization: "Bearer ${T}" },
                },
              ],
            },
          ],
        },
      }),
    });
    const run = await runGantry(["hooks", "check", "--workspace", ws.root], {
      env: { HOME: ws.home, T: "x" },
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`found   ${ws.root}/.agents/hooks.json (native)`);
    expect(run.stdout).toContain(`Group "security-gate" (native, enabled, failClosed)`);
    expect(run.stdout).toContain(
      `  pre_tool_execution  matcher "code_execution"\n    - command: python3 "$GANTRY_PROJECT_DIR"/.agents/hooks-scripts/gate.py (timeout 10 s)`,
    );
    expect(run.stdout).toContain(
      `  post_tool_execution  matcher "read_file|write_file"\n    - http POST https://telemetry.example.com/e headers: Authorization (timeout 30 s)`,
    );
    expect(run.stdout).toContain("No problems found in 2 group(s).");
  });

  it("shows Claude's async and prompt hooks and Gemini's sequential rules as they will run", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": JSON.stringify({
        hooks: {
          PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true", async: true }] }],
          Stop: [{ hooks: [{ type: "prompt", prompt: "Done? $ARGUMENTS" }] }],
        },
      }),
      ".gemini/settings.json": JSON.stringify({
        hooks: {
          BeforeTool: [{ matcher: "", sequential: true, hooks: [{ type: "command", command: "true" }] }],
        },
      }),
    });
    const run = await runGantry(["hooks", "check", "--workspace", ws.root, "--trust"], {
      env: { HOME: ws.home },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("    - command: true (timeout 600 s, async: in the background)");
    expect(run.stdout).toContain('    - prompt: "Done? $ARGUMENTS" (timeout 30 s)');
    expect(run.stdout).toContain('  pre_tool_execution (BeforeTool)  matcher "", sequential');
  });

  it("flags invalid matchers, unknown fields and missing scripts, and exits 1", async () => {
    ws = await createTempWorkspace({
      ".agents/hooks.json": hooksJson({
        audit: {
          post_tool_execution: [
            {
              matcher: "",
              hooks: [{ type: "http", url: "http://127.0.0.1:9/x", headers: { A: "${UNSET_TOKEN_XYZ}" } }],
            },
          ],
        },
        lint: {
          post_tool_execution: [
            {
              matcher: "*_file",
              hooks: [{ type: "command", command: "python3 .agents/hooks-scripts/auto_lint.py", timout: 15 }],
            },
            { matcher: "", hooks: [{ type: "command", command: "./scripts/missing.sh --fast" }] },
            { matcher: "", hooks: [{ type: "command", command: "no-such-program-xyz" }] },
          ],
        },
      }),
      ".claude/settings.json": JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [{ type: "command", command: "$CLAUDE_PROJECT_DIR/.claude/hooks/x.sh" }],
            },
          ],
        },
      }),
    });
    const run = await runGantry(["hooks", "check", "--workspace", ws.root], { env: { HOME: ws.home } });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`matcher "*_file"  <- INVALID, matches nothing`);
    const problems = run.stdout.slice(run.stdout.indexOf("problem(s):"));
    expect(problems).toContain(
      `warning: ${ws.root}/.agents/hooks.json: lint.post_tool_execution[0].matcher: invalid RE2 pattern "*_file"`,
    );
    expect(problems).toContain(`lint.post_tool_execution[0].hooks[0].timout: unknown field "timout"`);
    expect(problems).toContain(
      `lint.post_tool_execution[0].hooks[0]: script not found: .agents/hooks-scripts/auto_lint.py`,
    );
    expect(problems).toContain(
      `lint.post_tool_execution[1].hooks[0]: script not found: ./scripts/missing.sh`,
    );
    expect(problems).toContain(
      `lint.post_tool_execution[2].hooks[0]: command not found on PATH: no-such-program-xyz`,
    );
    expect(problems).toContain(
      `hooks.PreToolUse[0].hooks[0]: script not found: ${ws.root}/.claude/hooks/x.sh`,
    );
    expect(problems).toContain(
      `audit.post_tool_execution[0].hooks[0].headers: references UNSET_TOKEN_XYZ, which is not set here`,
    );
    expect(run.stdout).toContain("7 problem(s):");
  });

  it("reports a hooks file that is not JSON", async () => {
    ws = await createTempWorkspace({ ".agents/hooks.json": "{" });
    const run = await runGantry(["hooks", "check", "--workspace", ws.root], { env: { HOME: ws.home } });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`error: ${ws.root}/.agents/hooks.json: (file): not valid JSON`);
  });
});

describe("gantry tool with hooks", () => {
  it("logs a failing hook on stderr with its name and records it in the result's hookWarnings", async () => {
    ws = await createTempWorkspace({
      "a.txt": "hello\n",
      ".agents/hooks.json": hooksJson({
        gate: {
          pre_tool_execution: [
            { matcher: "read_file", hooks: [{ type: "command", command: "echo oops >&2; exit 1" }] },
          ],
        },
      }),
    });
    const run = await runGantry(
      ["tool", "view_file", JSON.stringify({ AbsolutePath: "a.txt" }), "--workspace", ws.root, "--trust"],
      {
        env: { HOME: ws.home },
      },
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("gantry: hook gate: exited with 1: oops (fail-open: allowed)\n");
    const result = JSON.parse(run.stdout);
    expect(result.text).toContain("hello");
    expect(result.metadata.hookWarnings).toEqual(["hook gate: exited with 1: oops (fail-open: allowed)"]);
  });
});
