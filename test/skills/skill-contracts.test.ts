import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { discoverSkills } from "../../src/skills/catalog.js";
import { E2E, gantryOn, serverAndWorkspace } from "../support/e2e.js";
import { startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { put } from "./support.js";

// SKILL.md as the harnesses read it: the Agent Skills fields, Claude Code's additions
// (code.claude.com/docs/en/skills), and Gemini CLI's lenient reading (packages/core/src/skills/skillLoader.ts).

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

const catalogOf = async (front: string) => {
  ws = await createTempWorkspace();
  await put(ws.root, ".claude/skills/deploy/SKILL.md", `---\n${front}\n---\nDeploy with npm run deploy.\n`);
  const catalog = discoverSkills({ root: ws.root, home: ws.home });
  return { names: catalog.skills.map((s) => s.name), problems: catalog.problems.map((p) => p.message) };
};

describe("SKILL.md fields", () => {
  it("a description with a colon that YAML refuses is read as Gemini CLI reads it, and said", async () => {
    const { names, problems } = await catalogOf("name: deploy\ndescription: Use when: the user says ship it");
    expect(names).toEqual(["deploy"]);
    expect(problems).toEqual([
      expect.stringMatching(
        /^front matter is not valid YAML: .*; name and description read line by line, as Gemini CLI does/,
      ),
    ]);
    const catalog = discoverSkills({ root: ws?.root ?? "", home: ws?.home ?? "" });
    expect(catalog.skills[0]?.description).toBe("Use when: the user says ship it");
    // nothing else is taken from a file YAML refuses
    expect(catalog.skills[0]?.allowedTools).toBeUndefined();
  });

  it("the Agent Skills fields and Claude Code's harmless ones are read quietly", async () => {
    const { names, problems } = await catalogOf(
      "name: deploy\ndescription: Deploy.\nlicense: MIT\ncompatibility: node 22\nmetadata:\n  owner: ops\nargument-hint: '[env]'\nuser-invocable: true\nversion: 1.0.0",
    );
    expect(names).toEqual(["deploy"]);
    expect(problems).toEqual([]);
  });

  it("names what Gantry does not act on, and unknown fields", async () => {
    const { names, problems } = await catalogOf(
      "name: deploy\ndescription: Deploy.\nmodel: haiku\ncontext: fork\nagent: Explore\nhooks:\n  PreToolUse: []\nflavour: mint",
    );
    expect(names).toEqual(["deploy"]);
    expect(problems).toEqual([
      "model (the model the skill runs on) is not acted on: the skill is followed by the agent that reads it, on its model",
      "context: fork (the skill run in an agent of its own) is not acted on: the agent that reads the skill follows it",
      "agent (the agent a forked skill runs in) is not acted on: the agent that reads the skill follows it",
      "hooks in a skill do not run here; put them in .agents/hooks.json or a settings file",
      'unknown field "flavour"; ignored',
    ]);
  });

  it("disable-model-invocation: true keeps the skill from the model, as in Claude Code, and says so", async () => {
    const { names, problems } = await catalogOf(
      "name: deploy\ndescription: Deploy.\ndisable-model-invocation: true",
    );
    expect(names).toEqual([]);
    expect(problems).toEqual([
      "disable-model-invocation: true: Claude Code runs this skill only when the user types /deploy, which Gantry has no command for; not offered to the model; skipped",
    ]);
  });
});

const t = serverAndWorkspace();

describe("allowed-tools of an untrusted workspace's skill", () => {
  it("lets nothing run without asking: its command is still denied in default mode", E2E, async () => {
    t.ws = await createTempWorkspace();
    await put(
      t.ws.root,
      ".claude/skills/deploy/SKILL.md",
      "---\nname: deploy\ndescription: Deploy the app.\nallowed-tools: Bash, Bash(touch:*), Write\n---\nRun touch deployed.\n",
    );
    t.server = await startModelServer([
      {
        toolCalls: [
          {
            name: "run_command",
            args: { CommandLine: "touch deployed", Cwd: ".", WaitMsBeforeAsync: 10_000 },
          },
          {
            name: "write_to_file",
            args: { TargetFile: "written", CodeContent: "x\n", Overwrite: false, Description: "w" },
          },
        ],
        expect: (request) => expect(request.text).toContain("- deploy (workspace): Deploy the app."),
      },
      { text: "blocked", expect: (request) => expect(request.text).toContain("approval mode default") },
    ]);
    const run = await gantryOn(t.server, t.ws, ["-p", "deploy"], { trust: false });
    expect(t.server.failures).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    t.server.assertDone();
    expect(existsSync(`${t.ws.root}/deployed`)).toBe(false);
    expect(existsSync(`${t.ws.root}/written`)).toBe(false);
  });
});
