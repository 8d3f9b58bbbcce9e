import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { hookHarness, hooksJson } from "./support.js";

let ws: TempWorkspace;
afterEach(async () => ws?.cleanup());

const decide = (json: unknown) => ({ type: "command", command: `echo '${JSON.stringify(json)}'` });
const call = { name: "run_command", args: { CommandLine: "make" } };

describe("decisions: the strictest wins, rewrites apply in declaration order", () => {
  for (const verdict of ["ask", "force_ask", "deny_unless_prior_grant"]) {
    it(`sends ${verdict} to consent, which headless denies, naming the hook`, async () => {
      ws = await createTempWorkspace({
        ".agents/hooks.json": hooksJson({
          "ok-gate": { pre_tool_execution: [{ matcher: "", hooks: [decide({ decision: "allow" })] }] },
          "ask-gate": {
            pre_tool_execution: [
              { matcher: "", hooks: [decide({ decision: verdict, reason: "confirm make" })] },
            ],
          },
        }),
      });
      const { pipeline, commands } = hookHarness(ws);
      const result = await pipeline.run(call);
      expect(result).toMatchObject({ errorCode: "denied", text: "Denied by hook ask-gate: confirm make" });
      expect(commands).toEqual([]);
    });
  }

  it("runs every matching handler after a deny: an audit hook still sees the call, the first deny wins", async () => {
    ws = await createTempWorkspace({
      ".agents/hooks.json": hooksJson({
        first: {
          pre_tool_execution: [
            { matcher: "", hooks: [decide({ decision: "deny", reason: "first says no" })] },
          ],
        },
        asker: {
          pre_tool_execution: [{ matcher: "", hooks: [decide({ decision: "ask", reason: "sure?" })] }],
        },
        broken: {
          pre_tool_execution: [{ matcher: "", hooks: [{ type: "command", command: "exit 3" }] }],
        },
        strict: {
          failClosed: true,
          pre_tool_execution: [{ matcher: "", hooks: [{ type: "command", command: "exit 4" }] }],
        },
        audit: {
          pre_tool_execution: [
            { matcher: "run_.*", hooks: [{ type: "command", command: "cat > audit.json" }] },
          ],
        },
        second: {
          pre_tool_execution: [
            { matcher: "", hooks: [decide({ decision: "deny", reason: "second says no" })] },
          ],
        },
      }),
    });
    const { pipeline, commands, log } = hookHarness(ws);
    const result = await pipeline.run(call);
    expect(result).toMatchObject({ errorCode: "denied", text: "Denied by hook first: first says no" });
    expect(commands).toEqual([]);
    const audited = JSON.parse(await readFile(`${ws.root}/audit.json`, "utf8"));
    // Gantry's names, and beside them seed 002's container shape of the call
    expect(audited.tool_call).toEqual({ ...call, args: { ...call.args, code: "make", language: "bash" } });
    // a failure after (or before) another hook's deny does not claim the call is allowed
    expect(log).toEqual([
      "hook broken: exited with 3 (fail-open; the call is denied anyway by hook first)",
      "hook strict: exited with 4 (failClosed: the call is denied)",
    ]);
    expect(result.metadata.hookWarnings).toEqual(log);
  });

  it("a rewrite after a deny changes nothing: the call is denied and never runs", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [
                decide({
                  hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "no make" },
                }),
                decide({ hookSpecificOutput: { updatedInput: { command: "make safe" } } }),
                { type: "command", command: "cat > audit.json" },
              ],
            },
          ],
        },
      }),
    });
    const { pipeline, commands } = hookHarness(ws);
    const result = await pipeline.run(call);
    expect(result).toMatchObject({
      errorCode: "denied",
      text: "Denied by hook claude:.claude/settings.json hooks.PreToolUse[0].hooks[0]: no make",
    });
    expect(commands).toEqual([]);
    // later hooks still run, and see the arguments as rewritten so far
    const audited = JSON.parse(await readFile(`${ws.root}/audit.json`, "utf8"));
    expect(audited.tool_input.command).toBe("make safe");
  });

  it("chains rewrites in declaration order: each hook sees the previous one's rewrite", async () => {
    // each hook appends its letter to the command it is given
    const append = (letter: string) => ({
      type: "command",
      command: `python3 -c 'import json,sys; d=json.load(sys.stdin); c=d["tool_input"]["command"]; print(json.dumps({"hookSpecificOutput":{"updatedInput":{"command":c+" ${letter}"}}}))'`,
    });
    ws = await createTempWorkspace({
      ".claude/settings.json": JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: "Bash", hooks: [append("A"), append("B"), { type: "command", command: "true" }] },
          ],
        },
      }),
    });
    const { pipeline, commands } = hookHarness(ws);
    await pipeline.run(call);
    expect(commands).toEqual(["make A B"]);
  });

  it("denies a rewritten call when any hook denies", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [decide({ hookSpecificOutput: { updatedInput: { command: "make safe" } } })],
            },
            {
              matcher: "Bash",
              hooks: [
                decide({
                  hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "no make" },
                }),
              ],
            },
          ],
        },
      }),
    });
    const { pipeline, commands } = hookHarness(ws);
    expect((await pipeline.run(call)).errorCode).toBe("denied");
    expect(commands).toEqual([]);
  });

  it("validates a rewrite like the original call", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: "Bash", hooks: [decide({ hookSpecificOutput: { updatedInput: { command: 42 } } })] },
          ],
        },
      }),
    });
    const { pipeline, commands } = hookHarness(ws);
    const result = await pipeline.run(call);
    expect(result.errorCode).toBe("invalid_arguments");
    expect(result.text).toContain("CommandLine");
    expect(commands).toEqual([]);
  });

  it("runs every matching group, in order, and post hooks cannot undo a call", async () => {
    ws = await createTempWorkspace({
      ".agents/hooks.json": hooksJson({
        one: {
          post_tool_execution: [
            { matcher: "run_.*", hooks: [{ type: "command", command: "echo one >> order" }] },
          ],
        },
        two: {
          post_tool_execution: [
            {
              matcher: "code_execution",
              hooks: [
                {
                  type: "command",
                  command: `echo two >> order; echo '{"decision":"deny","additionalContext":"lint: 0 problems"}'`,
                },
              ],
            },
          ],
        },
      }),
    });
    const { pipeline, commands } = hookHarness(ws);
    const result = await pipeline.run(call);
    expect(commands).toEqual(["make"]);
    expect(result).toMatchObject({ error: false, text: "ran\n\nlint: 0 problems" });
    expect(await readFile(`${ws.root}/order`, "utf8")).toBe("one\ntwo\n");
  });

  it("ignores a post hook's deny: later post hooks still run; a failing one is logged, even if failClosed", async () => {
    ws = await createTempWorkspace({
      ".agents/hooks.json": hooksJson({
        denier: {
          post_tool_execution: [{ matcher: "", hooks: [decide({ decision: "deny", reason: "too late" })] }],
        },
        broken: {
          failClosed: true,
          post_tool_execution: [{ matcher: "", hooks: [{ type: "command", command: "exit 3" }] }],
        },
        audit: {
          post_tool_execution: [{ matcher: "", hooks: [{ type: "command", command: "touch audited" }] }],
        },
      }),
    });
    const { pipeline, commands, log } = hookHarness(ws);
    const result = await pipeline.run(call);
    expect(result).toMatchObject({ error: false, text: "ran" });
    expect(commands).toEqual(["make"]);
    expect(existsSync(`${ws.root}/audited`)).toBe(true);
    expect(log).toEqual(["hook broken: exited with 3 (the call already ran)"]);
    expect(result.metadata.hookWarnings).toEqual(log);
  });

  it("reads home hooks before workspace hooks", async () => {
    ws = await createTempWorkspace({
      ".agents/hooks.json": hooksJson({
        workspace: {
          pre_tool_execution: [{ matcher: "", hooks: [{ type: "command", command: "echo ws >> order" }] }],
        },
      }),
    });
    const { mkdir, writeFile } = await import("node:fs/promises");
    await mkdir(`${ws.home}/.agents`);
    await writeFile(
      `${ws.home}/.agents/hooks.json`,
      hooksJson({
        user: {
          pre_tool_execution: [{ matcher: "", hooks: [{ type: "command", command: "echo home >> order" }] }],
        },
      }),
    );
    const { pipeline } = hookHarness(ws);
    await pipeline.run(call);
    expect(await readFile(`${ws.root}/order`, "utf8")).toBe("home\nws\n");
  });
});
