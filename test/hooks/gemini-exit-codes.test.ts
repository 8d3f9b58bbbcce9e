import { chmod } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { DIALECT_CASES, type DialectCase, type HookRun, runWithHooks } from "./dialect-cases.js";
import { hookHarness } from "./support.js";

/** CLI runs spawn node and load the AI SDK: slow on a busy machine. */
const E2E = { timeout: 120_000 };

let ws: TempWorkspace;
afterEach(async () => ws?.cleanup());

const call = { name: "run_command", args: { CommandLine: "make deploy" } };

/**
 * A workspace whose `.gemini/settings.json` (or `.claude/settings.json`) runs one BeforeTool guard script
 * on the shell tool. Gemini CLI's hookRunner.ts reads such a script's output whatever its exit code:
 * JSON (stdout, else stderr) is the answer; plain text is a warning at exit 1 and a deny at any other
 * non-zero code.
 */
async function guard(script: string, harness: "gemini" | "claude" = "gemini") {
  const settings =
    harness === "gemini"
      ? { hooks: { BeforeTool: [{ matcher: "run_shell_command", hooks: [hookAt("$GEMINI_PROJECT_DIR")] }] } }
      : { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [hookAt("$CLAUDE_PROJECT_DIR")] }] } };
  ws = await createTempWorkspace({
    [`.${harness}/settings.json`]: JSON.stringify(settings),
    [`.${harness}/hooks/guard.sh`]: `#!/usr/bin/env bash\ncat > /dev/null\n${script}\n`,
  });
  await chmod(path.join(ws.root, `.${harness}/hooks/guard.sh`), 0o755);
  return hookHarness(ws);
}
const hookAt = (root: string) => ({
  name: "guard",
  type: "command",
  command: `${root}/.${root.includes("GEMINI") ? "gemini" : "claude"}/hooks/guard.sh`,
});

describe("Gemini CLI's exit codes, as its hookRunner reads them", () => {
  it("exit 1 with a JSON deny on stdout denies (the JSON is the answer whatever the code)", async () => {
    const { pipeline, commands, log } = await guard(
      `echo '{"decision": "deny", "reason": "no deploys on Friday"}'\nexit 1`,
    );
    const result = await pipeline.run(call);
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain("no deploys on Friday");
    expect(commands).toEqual([]);
    // Gemini CLI still reports the hook as failed: so does Gantry
    expect(log.join("\n")).toMatch(/hook gemini:\.gemini\/settings\.json: [^\n]*exited with 1/);
  });

  it("exit 3 with a message on stderr denies, the message as the reason", async () => {
    const { pipeline, commands } = await guard(`echo "policy check crashed: jq missing" >&2\nexit 3`);
    const result = await pipeline.run(call);
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain("policy check crashed: jq missing");
    expect(commands).toEqual([]);
  });

  it("a guard whose own command is missing (exit 127, bash's message) denies, and says why", async () => {
    const { pipeline, commands, log } = await guard(`"$GEMINI_PROJECT_DIR/.gemini/hooks/missing-check.sh"`);
    const result = await pipeline.run(call);
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain("missing-check.sh");
    expect(commands).toEqual([]);
    expect(log.join("\n")).toMatch(/hook gemini:\.gemini\/settings\.json: [^\n]*127/);
  });

  it("exit 1 with plain text is a warning: the call runs (Gemini's non-blocking error)", async () => {
    const { pipeline, commands, log } = await guard(`echo "could not reach the audit server" >&2\nexit 1`);
    const result = await pipeline.run(call);
    expect(result.error).toBe(false);
    expect(commands).toEqual(["make deploy"]);
    expect(log.join("\n")).toContain("could not reach the audit server");
  });

  it("a non-zero exit with no output at all is a warning: the call runs", async () => {
    const { pipeline, commands, log } = await guard("exit 5");
    const result = await pipeline.run(call);
    expect(result.error).toBe(false);
    expect(commands).toEqual(["make deploy"]);
    expect(log.join("\n")).toMatch(/hook gemini:\.gemini\/settings\.json: [^\n]*exited with 5/);
  });

  it("exit 2 with the reason on stdout (stderr empty) blocks with that reason", async () => {
    const { pipeline, commands } = await guard(`echo "deploys need a ticket"\nexit 2`);
    const result = await pipeline.run(call);
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain("deploys need a ticket");
    expect(commands).toEqual([]);
  });

  it("exit 0 is unchanged: a JSON allow lets the call run", async () => {
    const { pipeline, commands } = await guard(`echo '{"decision": "allow"}'`);
    expect((await pipeline.run(call)).error).toBe(false);
    expect(commands).toEqual(["make deploy"]);
  });
});

describe("Claude Code's exit codes stay Claude's", () => {
  it("exit 3 with stderr fails open there (only exit 2 blocks in Claude Code)", async () => {
    const { pipeline, commands, log } = await guard(`echo "crashed" >&2\nexit 3`, "claude");
    const result = await pipeline.run(call);
    expect(result.error).toBe(false);
    expect(commands).toEqual(["make deploy"]);
    expect(log.join("\n")).toContain("fail-open");
  });
});

describe("Gemini exit codes in a real session (gantry -p)", () => {
  let run: HookRun | undefined;
  afterEach(async () => {
    await run?.server.close();
    await run?.ws.cleanup();
    run = undefined;
  });
  const gemini = DIALECT_CASES.find((dialect) => dialect.id === "gemini") as DialectCase;
  const script = (body: string) => `#!/usr/bin/env bash\ncat > /dev/null\n${body}\n`;
  const settings = (event: string, matcher?: string) =>
    JSON.stringify({
      hooks: {
        [event]: [
          {
            ...(matcher ? { matcher } : {}),
            hooks: [{ type: "command", command: 'bash "$GEMINI_PROJECT_DIR/.gemini/hooks/check.sh"' }],
          },
        ],
      },
    });

  it(
    "a BeforeAgent check that crashes (exit 3, stderr) refuses the prompt: the model is never asked",
    E2E,
    async () => {
      run = await runWithHooks({
        dialect: gemini,
        rules: {},
        files: {
          ".gemini/settings.json": settings("BeforeAgent"),
          ".gemini/hooks/check.sh": script('echo "secret scanner unavailable" >&2\nexit 3'),
        },
        turns: [],
      });
      expect(run.code).toBe(1);
      expect(run.requests()).toEqual([]);
      expect(run.stderr).toContain("secret scanner unavailable");
    },
  );

  it(
    "an AfterTool check that prints a JSON deny and exits 1 hides the result from the model",
    E2E,
    async () => {
      run = await runWithHooks({
        dialect: gemini,
        rules: {},
        files: {
          ".gemini/settings.json": settings("AfterTool", "read_file"),
          ".gemini/hooks/check.sh": script(
            `echo '{"decision": "deny", "reason": "the file holds a credential"}'\nexit 1`,
          ),
          "notes.txt": "token=SECRET-42",
        },
        turns: [
          { toolCalls: [{ name: "view_file", args: { AbsolutePath: "notes.txt" } }] },
          {
            text: "ok",
            expect: (request) => {
              const body = JSON.stringify(request.body);
              if (body.includes("SECRET-42")) throw new Error("the hidden result reached the model");
              if (!body.includes("the file holds a credential")) throw new Error("the reason did not");
            },
          },
        ],
      });
      expect(run.code).toBe(0);
      run.server.assertDone();
    },
  );
});
