import { afterEach, describe, expect, it } from "vitest";
import { fatalProblems, loadHookConfig } from "../../src/hooks/config.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { hooksJson } from "./support.js";

let ws: TempWorkspace;
afterEach(async () => ws?.cleanup());

describe("hook configuration", () => {
  it("reads named groups with enabled, failClosed and both spellings of the tool events", async () => {
    ws = await createTempWorkspace({
      ".agents/hooks.json": hooksJson({
        "security-gate": {
          enabled: true,
          failClosed: true,
          PreToolUse: [
            { matcher: "code_execution", hooks: [{ type: "command", command: "true", timeout: 0.25 }] },
          ],
        },
        "auto-format": {
          enabled: false,
          post_tool_execution: [{ matcher: "*", hooks: [{ type: "http", url: "http://127.0.0.1:1/x" }] }],
        },
      }),
    });
    const config = loadHookConfig(ws.root, ws.home);
    expect(config.problems).toEqual([]);
    expect(config.groups.map((g) => [g.name, g.enabled, g.failClosed, g.rules[0]?.event])).toEqual([
      ["security-gate", true, true, "pre_tool_execution"],
      ["auto-format", false, false, "post_tool_execution"],
    ]);
    expect(config.groups[0]?.rules[0]?.handlers[0]).toMatchObject({ kind: "command", timeoutMs: 250 });
    expect(config.groups[1]?.rules[0]?.handlers[0]).toMatchObject({ kind: "http", timeoutMs: 30_000 });
  });

  it("flags unknown fields, invalid matchers and events Gantry never fires as warnings", async () => {
    ws = await createTempWorkspace({
      ".agents/hooks.json": hooksJson({
        g: {
          enabeld: false,
          SessionStart: [],
          PermissionDenied: [],
          pre_tool_execution: [
            { matcher: "*_file", hooks: [{ type: "command", command: "true", timout: 3 }] },
          ],
        },
      }),
    });
    const config = loadHookConfig(ws.root, ws.home);
    expect(fatalProblems(config)).toEqual([]);
    expect(config.problems.map((p) => `${p.at}: ${p.message}`)).toEqual([
      'g.enabeld: unknown field or event "enabeld"',
      'g.PermissionDenied: event "PermissionDenied" does not fire in Gantry (it has no such moment); its hooks are ignored',
      expect.stringMatching(/^g\.pre_tool_execution\[0\]\.matcher: invalid RE2 pattern "\*_file"/),
      'g.pre_tool_execution[0].hooks[0].timout: unknown field "timout"',
    ]);
  });

  it("makes structural mistakes errors that name the file and the place", async () => {
    ws = await createTempWorkspace({
      ".agents/hooks.json": hooksJson({
        g: {
          failClosed: "yes",
          pre_tool_execution: [
            { matcher: "", hooks: [{ type: "command" }, { type: "shell", command: "x" }] },
          ],
        },
      }),
    });
    const errors = fatalProblems(loadHookConfig(ws.root, ws.home));
    expect(errors.map((p) => `${p.file}: ${p.at}: ${p.message}`)).toEqual([
      `${ws.root}/.agents/hooks.json: g.failClosed: must be true or false`,
      `${ws.root}/.agents/hooks.json: g.pre_tool_execution[0].hooks[0].command: must be a non-empty string`,
      `${ws.root}/.agents/hooks.json: g.pre_tool_execution[0].hooks[1].type: unsupported handler type "shell"; skipped`,
    ]);
  });

  it("reports a hooks file that is not JSON", async () => {
    ws = await createTempWorkspace({ ".agents/hooks.json": "{ nope" });
    const [problem] = fatalProblems(loadHookConfig(ws.root, ws.home));
    expect(problem?.message).toMatch(/^not valid JSON/);
  });

  it("reads Claude's hooks (seconds, default 600) and Gemini's (milliseconds, default 60,000)", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": JSON.stringify({
        model: "opus",
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [
                { type: "command", command: "a" },
                { type: "prompt", prompt: "is it safe?" },
                { type: "agent", prompt: "check it" },
              ],
            },
          ],
          Stop: [{ hooks: [{ type: "command", command: "b" }] }],
        },
      }),
      ".gemini/settings.json": JSON.stringify({
        hooks: {
          AfterTool: [
            {
              matcher: "write_file",
              sequential: true,
              hooks: [
                { type: "command", command: "c", timeout: 1500 },
                { type: "command", command: "d" },
              ],
            },
          ],
        },
      }),
    });
    const config = loadHookConfig(ws.root, ws.home);
    const handlers = config.groups.flatMap((g) =>
      g.rules.flatMap((r) => r.handlers.map((h) => [g.dialect, r.event, h.timeoutMs])),
    );
    expect(handlers).toEqual([
      ["claude", "pre_tool_execution", 600_000],
      // a prompt hook's default timeout is 30 s, an agent hook's 60 s
      ["claude", "pre_tool_execution", 30_000],
      ["claude", "pre_tool_execution", 60_000],
      ["claude", "stop", 600_000],
      ["gemini", "post_tool_execution", 1500],
      ["gemini", "post_tool_execution", 60_000],
    ]);
    expect(config.problems).toEqual([]);
  });

  it("honours Claude's disableAllHooks", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.local.json": JSON.stringify({
        disableAllHooks: true,
        hooks: { PreToolUse: [{ matcher: "", hooks: [{ type: "command", command: "a" }] }] },
      }),
    });
    expect(loadHookConfig(ws.root, ws.home).groups.map((g) => g.enabled)).toEqual([false]);
  });

  it("honours Gemini's hooksConfig.enabled and hooksConfig.disabled", async () => {
    ws = await createTempWorkspace({
      ".gemini/settings.json": JSON.stringify({
        hooksConfig: { disabled: ["noisy"] },
        hooks: {
          BeforeTool: [
            {
              hooks: [
                { name: "noisy", type: "command", command: "a" },
                { name: "kept", type: "command", command: "b" },
              ],
            },
          ],
        },
      }),
    });
    const config = loadHookConfig(ws.root, ws.home);
    expect(config.groups[0]?.rules[0]?.handlers.map((h) => h.name)).toEqual(["kept"]);
  });
});

describe("seed 002's /.agents paths", () => {
  it("rewrites /.agents/ to the workspace's, and leaves a path already under the project dir as written", async () => {
    ws = await createTempWorkspace({
      ".agents/hooks.json": hooksJson({
        g: {
          PreToolUse: [
            {
              matcher: "",
              hooks: [
                { type: "command", command: "sh /.agents/gate.sh" },
                { type: "command", command: 'sh "$GANTRY_PROJECT_DIR"/.agents/gate.sh' },
                { type: "command", command: 'sh "$CLAUDE_PROJECT_DIR"/.agents/gate.sh' },
                { type: "command", command: "sh '/.agents/gate.sh'" },
                { type: "command", command: 'sh "/.agents/gate.sh"' },
              ],
            },
          ],
        },
      }),
    });
    const handlers = loadHookConfig(ws.root, ws.home).groups[0]?.rules[0]?.handlers ?? [];
    expect(handlers.map((handler) => (handler.kind === "command" ? handler.command : ""))).toEqual([
      'sh "$GANTRY_PROJECT_DIR"/.agents/gate.sh',
      'sh "$GANTRY_PROJECT_DIR"/.agents/gate.sh',
      'sh "$CLAUDE_PROJECT_DIR"/.agents/gate.sh',
      `sh ''"$GANTRY_PROJECT_DIR"'/.agents/gate.sh'`,
      'sh "$GANTRY_PROJECT_DIR/.agents/gate.sh"',
    ]);
  });
});
