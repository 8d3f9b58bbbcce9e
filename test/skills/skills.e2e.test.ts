import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runGantry } from "../support/cli.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { put } from "./support.js";

/** CLI runs spawn node and load the AI SDK: slow on a busy machine. */
const E2E = { timeout: 120_000 };

let ws: TempWorkspace | undefined;
let model: ModelServer | undefined;
afterEach(async () => {
  await model?.close();
  await ws?.cleanup();
  ws = model = undefined;
});

describe("skills end to end", () => {
  it("the scripted model reads a home skill with IsSkillFile and follows it", E2E, async () => {
    ws = await createTempWorkspace();
    const skillFile = await put(
      ws.home,
      ".claude/skills/changelog/SKILL.md",
      "---\nname: changelog\ndescription: Write a changelog entry for this project.\n---\nWrite CHANGELOG.md containing exactly the line from template.md.\n",
    );
    const template = await put(ws.home, ".claude/skills/changelog/template.md", "## 1.0.0 - first release\n");
    model = await startModelServer([
      {
        toolCalls: [{ name: "view_file", args: { AbsolutePath: skillFile, IsSkillFile: true } }],
        expect: (request) => {
          // the prompt lists the skill, not its body
          expect(request.text).toContain(
            `- changelog: Write a changelog entry for this project. [${skillFile}]`,
          );
          expect(request.text).not.toContain("containing exactly the line");
        },
      },
      {
        toolCalls: [{ name: "view_file", args: { AbsolutePath: template, IsSkillFile: true } }],
        expect: (request) =>
          expect(request.text).toContain("Write CHANGELOG.md containing exactly the line from template.md."),
      },
      {
        toolCalls: [
          {
            name: "write_to_file",
            args: {
              TargetFile: "CHANGELOG.md",
              Overwrite: false,
              CodeContent: "## 1.0.0 - first release\n",
              Description: "changelog",
            },
          },
        ],
        expect: (request) => expect(request.text).toContain("## 1.0.0 - first release"),
      },
      { text: "Wrote the changelog as the skill says." },
    ]);
    const run = await runGantry(
      [
        "-p",
        "add a changelog",
        "--model",
        "openai:test-model",
        "--base-url",
        model.baseUrl("openai"),
        "--workspace",
        ws.root,
        "--approval-mode",
        "auto-edit",
      ],
      { env: { HOME: ws.home, OPENAI_API_KEY: "k" }, timeoutMs: 60_000 },
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    model.assertDone();
    expect(await readFile(path.join(ws.root, "CHANGELOG.md"), "utf8")).toBe("## 1.0.0 - first release\n");
  });

  it("gantry skills lists each skill with where it comes from, and every problem", E2E, async () => {
    ws = await createTempWorkspace();
    await put(
      ws.home,
      ".agents/skills/deploy/SKILL.md",
      "---\nname: deploy\ndescription: Deploy the app.\nallowed-tools: Bash(npm run deploy:*)\n---\n",
    );
    await put(
      ws.root,
      ".claude/skills/deploy/SKILL.md",
      "---\nname: deploy\ndescription: The repository's deploy.\n---\n",
    );
    await put(ws.root, ".gemini/skills/lint/SKILL.md", "---\nname: lint\ndescription: Lint the code.\n---\n");
    await put(ws.root, ".agents/skills/broken/SKILL.md", "no front matter here\n");
    const run = await runGantry(["skills", "--workspace", ws.root], { env: { HOME: ws.home } });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        "NAME    FROM       FOLDER                   ALLOWED-TOOLS           DESCRIPTION",
        "deploy  you        ~/.agents/skills/deploy  Bash(npm run deploy:*)  Deploy the app.",
        "lint    workspace  .gemini/skills/lint      -                       Lint the code.",
        "",
        "Problems:",
        "  .agents/skills/broken/SKILL.md: no front matter: SKILL.md must start with a `---` line, then name: and description:, then `---`; skipped",
        "  .claude/skills/deploy/SKILL.md: skill \"deploy\" is also defined by ~/.agents/skills/deploy/SKILL.md, which wins (your home's skills win over a workspace's); this one is not used",
        "",
      ].join("\n"),
    );
  });
});
