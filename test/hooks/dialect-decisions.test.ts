import { afterEach, describe, expect, it } from "vitest";
import { loadHookConfig } from "../../src/hooks/config.js";
import { createHookStep } from "../../src/hooks/step.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { hookHarness, probeTools } from "./support.js";

let ws: TempWorkspace;
afterEach(async () => ws?.cleanup());

const call = { name: "run_command", args: { CommandLine: "make" } };
const echo = (json: unknown) => ({ type: "command", command: `echo '${JSON.stringify(json)}'` });
const gemini = (hook: unknown) =>
  JSON.stringify({ hooks: { BeforeTool: [{ matcher: "run_shell_command", hooks: [hook] }] } });
const claude = (hook: unknown) =>
  JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [hook] }] } });

/** The hook step's own verdict for one run_command call (the pipeline folds an allow into the policy's). */
async function preDecision() {
  const { tools } = probeTools(ws.root);
  const [runCommand] = tools;
  if (!runCommand) throw new Error("no run_command stand-in");
  const step = createHookStep({
    config: loadHookConfig(ws.root, ws.home),
    workspaceRoot: ws.root,
    log: () => {},
  });
  const outcome = await step.before(
    { callId: "c1", agentId: "main", requestedName: "run_command", tool: runCommand, args: call.args },
    new AbortController().signal,
  );
  return outcome.decision;
}

describe("Gemini CLI decisions", () => {
  it("deny blocks the call with the reason", async () => {
    ws = await createTempWorkspace({
      ".gemini/settings.json": gemini(echo({ decision: "deny", reason: "no make" })),
    });
    const { pipeline, commands, log } = hookHarness(ws);
    const result = await pipeline.run(call);
    expect(result).toMatchObject({
      errorCode: "denied",
      text: "Denied by hook gemini:.gemini/settings.json: no make",
    });
    expect(commands).toEqual([]);
    expect(log).toEqual([]);
  });

  it("ask forces consent, which a headless run answers with a deny naming the hook", async () => {
    ws = await createTempWorkspace({
      ".gemini/settings.json": gemini(echo({ decision: "ask", reason: "sure?" })),
    });
    const { pipeline, commands } = hookHarness(ws);
    const result = await pipeline.run(call);
    expect(result).toMatchObject({
      errorCode: "denied",
      text: "Denied by hook gemini:.gemini/settings.json: sure?",
    });
    expect(commands).toEqual([]);
    expect(await preDecision()).toEqual({
      verdict: "force_ask",
      source: "hook gemini:.gemini/settings.json",
      reason: "sure?",
    });
  });

  it("approve is no objection (Gemini CLI's policy check still runs), not an unrecognised answer", async () => {
    ws = await createTempWorkspace({ ".gemini/settings.json": gemini(echo({ decision: "approve" })) });
    const { pipeline, commands, log } = hookHarness(ws);
    expect(await pipeline.run(call)).toMatchObject({ error: false, text: "ran" });
    expect(commands).toEqual(["make"]);
    expect(log).toEqual([]);
    expect(await preDecision()).toEqual({ verdict: "allow", source: "hooks" });
  });

  it("an unknown decision value is no decision at all (contrast for approve)", async () => {
    ws = await createTempWorkspace({ ".gemini/settings.json": gemini(echo({ decision: "maybe" })) });
    expect(await preDecision()).toEqual({ verdict: "allow", source: "hooks" });
  });
});

describe("Claude Code decisions", () => {
  it("the legacy top-level approve is an allow from the hook", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": claude(echo({ decision: "approve", reason: "fine" })),
    });
    const { pipeline, commands, log } = hookHarness(ws);
    expect(await pipeline.run(call)).toMatchObject({ error: false, text: "ran" });
    expect(commands).toEqual(["make"]);
    expect(log).toEqual([]);
    expect(await preDecision()).toEqual({
      verdict: "allow",
      source: "hook claude:.claude/settings.json",
      reason: "fine",
    });
  });

  it("the legacy approve does not outvote another hook's deny", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [echo({ decision: "approve" }), echo({ decision: "block", reason: "no" })],
            },
          ],
        },
      }),
    });
    const { pipeline, commands } = hookHarness(ws);
    expect((await pipeline.run(call)).errorCode).toBe("denied");
    expect(commands).toEqual([]);
  });

  it("an explicit timeout is in seconds: the hook is killed after it and the call fails open", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": claude({
        type: "command",
        command: `sleep 10; echo '{"decision":"block","reason":"too late"}'`,
        timeout: 1,
      }),
    });
    const { pipeline, commands, log } = hookHarness(ws);
    const started = Date.now();
    const result = await pipeline.run(call);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    expect(elapsed).toBeLessThan(4000);
    expect(result).toMatchObject({ error: false, text: "ran" });
    expect(commands).toEqual(["make"]);
    expect(log).toEqual(["hook claude:.claude/settings.json: timed out after 1 s (fail-open: allowed)"]);
  });
});
