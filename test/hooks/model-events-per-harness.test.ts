import { afterEach, describe, expect, it } from "vitest";
import { loadHookConfig } from "../../src/hooks/config.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace;
afterEach(async () => ws?.cleanup());

const rule = [{ hooks: [{ type: "command", command: "true" }] }];
const modelEvents = { BeforeModel: rule, AfterModel: rule, BeforeToolSelection: rule, Stop: rule };

/**
 * BeforeModel, AfterModel and BeforeToolSelection are Gemini CLI's events: Claude Code and Qwen Code have
 * none of them (Qwen's HookEventName, Claude's hook events), and Qwen's registry skips an event name it
 * does not know. In their files such a hook would be sent the conversation, and its answer read by a
 * contract that has no field for it: it is flagged and not run.
 */
describe.each([".claude/settings.json", ".qwen/settings.json"])("Gemini's model events in %s", (file) => {
  it("are flagged, naming the harness, and their hooks are not run", async () => {
    ws = await createTempWorkspace({ [file]: JSON.stringify({ hooks: modelEvents }) });
    const config = loadHookConfig(ws.root, ws.home);
    const harness = file.startsWith(".claude") ? "Claude Code" : "Qwen Code";
    expect(config.problems.map((p) => `${p.at}: ${p.message}`)).toEqual(
      ["BeforeModel", "AfterModel", "BeforeToolSelection"].map(
        (key) =>
          `hooks.${key}: event "${key}" is Gemini CLI's; ${harness} has no such event, so its hooks are ignored (put it in .gemini/settings.json, or as ${key === "BeforeToolSelection" ? "before_tool_selection" : key === "BeforeModel" ? "before_model" : "after_model"} in .agents/hooks.json)`,
      ),
    );
    expect(config.groups.flatMap((group) => group.rules.map((r) => r.event))).toEqual(["stop"]);
  });
});

describe("Gemini's model events where they belong", () => {
  it("run from .gemini/settings.json and .agents/hooks.json, unflagged", async () => {
    ws = await createTempWorkspace({
      ".gemini/settings.json": JSON.stringify({ hooks: { BeforeModel: rule, BeforeToolSelection: rule } }),
      ".agents/hooks.json": JSON.stringify({ g: { after_model: rule } }),
    });
    const config = loadHookConfig(ws.root, ws.home);
    expect(config.problems).toEqual([]);
    expect(config.groups.flatMap((group) => group.rules.map((r) => r.event)).sort()).toEqual([
      "after_model",
      "before_model",
      "before_tool_selection",
    ]);
  });
});
