import { mkdir, symlink } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildSystemPrompt } from "../../src/agent/context.js";
import { discoverSkills, SKILL_PLACES } from "../../src/skills/catalog.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { put } from "./support.js";

let ws: TempWorkspace;
afterEach(async () => {
  await ws?.cleanup();
});

const skillMd = (name: string, description: string, extra = "") =>
  `---\nname: ${name}\ndescription: ${description}\n${extra}---\n# ${name}\nThe body of ${name}: step one, step two.\n`;

describe("skill discovery", () => {
  it("finds skills in every home and workspace folder of Gantry, Claude Code, Gemini CLI, Codex and Qwen Code", async () => {
    ws = await createTempWorkspace();
    for (const [index, place] of SKILL_PLACES.entries()) {
      await put(ws.home, `${place}/home-${index}/SKILL.md`, skillMd(`home-${index}`, `home skill ${index}`));
      await put(ws.root, `${place}/ws-${index}/SKILL.md`, skillMd(`ws-${index}`, `workspace skill ${index}`));
    }
    const catalog = discoverSkills({ root: ws.root, home: ws.home });
    expect(catalog.problems).toEqual([]);
    expect(catalog.skills.map((s) => [s.name, s.origin, s.place])).toEqual([
      ...SKILL_PLACES.map((place, i) => [`home-${i}`, "home", place]),
      ...SKILL_PLACES.map((place, i) => [`ws-${i}`, "workspace", place]),
    ]);
    const claude = catalog.skills.find((s) => s.name === "home-1");
    expect(claude?.shown).toBe("~/.claude/skills/home-1");
    expect(claude?.file).toBe(path.join(ws.home, ".claude/skills/home-1/SKILL.md"));
    expect(catalog.skills.find((s) => s.name === "ws-0")?.shown).toBe(".agents/skills/ws-0");
  });

  it("lets the home win over the workspace, and .agents/skills over the others; the problem says which and why", async () => {
    ws = await createTempWorkspace();
    await put(ws.home, ".claude/skills/review/SKILL.md", skillMd("review", "the user's review"));
    await put(ws.root, ".agents/skills/review/SKILL.md", skillMd("review", "the repository's review"));
    await put(ws.home, ".agents/skills/deploy/SKILL.md", skillMd("deploy", "from .agents"));
    await put(ws.home, ".gemini/skills/deploy/SKILL.md", skillMd("deploy", "from .gemini"));
    const catalog = discoverSkills({ root: ws.root, home: ws.home });
    expect(catalog.skills.map((s) => [s.name, s.description])).toEqual([
      ["deploy", "from .agents"],
      ["review", "the user's review"],
    ]);
    expect(catalog.problems).toEqual([
      {
        where: "~/.gemini/skills/deploy/SKILL.md",
        message:
          'skill "deploy" is also defined by ~/.agents/skills/deploy/SKILL.md, which wins (.agents/skills comes before .gemini/skills); this one is not used',
      },
      {
        where: ".agents/skills/review/SKILL.md",
        message:
          "skill \"review\" is also defined by ~/.claude/skills/review/SKILL.md, which wins (your home's skills win over a workspace's); this one is not used",
      },
    ]);
  });

  it("skips a broken SKILL.md and says what is wrong with it", async () => {
    ws = await createTempWorkspace();
    const dir = ".agents/skills";
    await put(ws.root, `${dir}/no-front/SKILL.md`, "# Just a heading\n");
    await put(ws.root, `${dir}/bad-yaml/SKILL.md`, "---\nname: [unclosed\n---\nbody\n");
    await put(ws.root, `${dir}/no-description/SKILL.md`, "---\nname: no-description\n---\nbody\n");
    await put(ws.root, `${dir}/Bad_Name/SKILL.md`, skillMd("Bad_Name", "x"));
    await mkdir(path.join(ws.root, dir, "empty-folder"), { recursive: true });
    await put(ws.root, `${dir}/renamed/SKILL.md`, skillMd("other-name", "works, with a warning"));
    await put(ws.root, `${dir}/fine/SKILL.md`, skillMd("fine", "a good one"));
    const catalog = discoverSkills({ root: ws.root, home: ws.home });
    expect(catalog.skills.map((s) => s.name)).toEqual(["fine", "other-name"]);
    const problems = Object.fromEntries(catalog.problems.map((p) => [p.where, p.message]));
    expect(problems[`${dir}/no-front/SKILL.md`]).toContain("no front matter");
    expect(problems[`${dir}/bad-yaml/SKILL.md`]).toContain("front matter is not valid YAML");
    expect(problems[`${dir}/no-description/SKILL.md`]).toBe("front matter has no description:; skipped");
    expect(problems[`${dir}/Bad_Name/SKILL.md`]).toContain('name "Bad_Name" is not a skill name');
    expect(problems[`${dir}/empty-folder`]).toBe("has no SKILL.md; skipped");
    expect(problems[`${dir}/renamed/SKILL.md`]).toBe('name "other-name" differs from its folder "renamed"');
  });

  it("reads allowed-tools in Claude Code's and the Agent Skills form", async () => {
    ws = await createTempWorkspace();
    await put(ws.home, ".claude/skills/a/SKILL.md", skillMd("a", "x", "allowed-tools: Read, Grep, Glob\n"));
    await put(
      ws.home,
      ".agents/skills/b/SKILL.md",
      skillMd("b", "x", "allowed-tools: Bash(git status:*) Read\n"),
    );
    const catalog = discoverSkills({ root: ws.root, home: ws.home });
    expect(catalog.skills.map((s) => [s.name, s.allowedTools])).toEqual([
      ["b", ["Bash(git status:*)", "Read"]],
      ["a", ["Read", "Grep", "Glob"]],
    ]);
  });

  it("follows a home skill folder that is a symlink (the user's dotfiles), but not a workspace's that leaves the workspace", async () => {
    ws = await createTempWorkspace();
    const dotfiles = path.join(ws.parent, "dotfiles");
    await put(dotfiles, "pdf/SKILL.md", skillMd("pdf", "pdf forms"));
    await put(dotfiles, "steal/SKILL.md", skillMd("steal", "reads the home"));
    await mkdir(path.join(ws.home, ".claude/skills"), { recursive: true });
    await symlink(path.join(dotfiles, "pdf"), path.join(ws.home, ".claude/skills/pdf"));
    await mkdir(path.join(ws.root, ".claude/skills"), { recursive: true });
    await symlink(path.join(dotfiles, "steal"), path.join(ws.root, ".claude/skills/steal"));
    const catalog = discoverSkills({ root: ws.root, home: ws.home });
    expect(catalog.skills.map((s) => [s.name, s.folder])).toEqual([["pdf", path.join(dotfiles, "pdf")]]);
    expect(catalog.problems).toEqual([
      {
        where: ".claude/skills/steal",
        message: `links outside the workspace (to ${path.join(dotfiles, "steal")}); skipped`,
      },
    ]);
  });

  it("skips a whole workspace skills folder that is a symlink out of the workspace", async () => {
    ws = await createTempWorkspace();
    const elsewhere = path.join(ws.parent, "elsewhere");
    await put(elsewhere, "x/SKILL.md", skillMd("x", "x"));
    await mkdir(path.join(ws.root, ".agents"), { recursive: true });
    await symlink(elsewhere, path.join(ws.root, ".agents/skills"));
    const catalog = discoverSkills({ root: ws.root, home: ws.home });
    expect(catalog.skills).toEqual([]);
    expect(catalog.problems[0]?.message).toContain("leads outside the workspace");
  });

  it("refuses a SKILL.md that is a link out of its skill folder", async () => {
    ws = await createTempWorkspace();
    const target = await put(ws.parent, "notes.md", skillMd("linked", "a file elsewhere"));
    await mkdir(path.join(ws.root, ".agents/skills/linked"), { recursive: true });
    await symlink(target, path.join(ws.root, ".agents/skills/linked/SKILL.md"));
    const catalog = discoverSkills({ root: ws.root, home: ws.home });
    expect(catalog.skills).toEqual([]);
    expect(catalog.problems[0]).toEqual({
      where: ".agents/skills/linked/SKILL.md",
      message: `is a link that leaves its skill folder (to ${target}); skipped`,
    });
  });

  it("counts a workspace that is the home once, as the user's", async () => {
    ws = await createTempWorkspace();
    await put(ws.home, ".agents/skills/mine/SKILL.md", skillMd("mine", "x"));
    const catalog = discoverSkills({ root: ws.home, home: ws.home });
    expect(catalog.skills.map((s) => [s.name, s.origin])).toEqual([["mine", "home"]]);
    expect(catalog.problems).toEqual([]);
  });
});

describe("skills in the system prompt", () => {
  it("lists name, description and SKILL.md path compactly, marks the workspace's, and never includes a body", async () => {
    ws = await createTempWorkspace();
    await put(ws.home, ".agents/skills/pdf/SKILL.md", skillMd("pdf", "Fill and merge PDF forms."));
    await put(
      ws.root,
      ".claude/skills/release/SKILL.md",
      skillMd("release", "Cut a release of this repository."),
    );
    const { skills } = discoverSkills({ root: ws.root, home: ws.home });
    const prompt = buildSystemPrompt({ workspaceRoot: ws.root, declarations: [], instructions: [], skills });
    expect(prompt).toContain("# Skills");
    expect(prompt).toContain("IsSkillFile: true");
    expect(prompt).toContain(
      `- pdf: Fill and merge PDF forms. [${path.join(ws.home, ".agents/skills/pdf/SKILL.md")}]`,
    );
    expect(prompt).toContain(
      `- release (workspace): Cut a release of this repository. [${path.join(ws.root, ".claude/skills/release/SKILL.md")}]`,
    );
    expect(prompt).not.toContain("The body of");
  });

  it("stays within its size however many skills are installed, and says how many were left out", async () => {
    ws = await createTempWorkspace();
    for (let i = 0; i < 150; i++)
      await put(ws.home, `.agents/skills/skill-${i}/SKILL.md`, skillMd(`skill-${i}`, "d".repeat(200)));
    const { skills } = discoverSkills({ root: ws.root, home: ws.home });
    const prompt = buildSystemPrompt({ workspaceRoot: ws.root, declarations: [], instructions: [], skills });
    const section = prompt.slice(prompt.indexOf("# Skills"));
    expect(section.length).toBeLessThan(8_200);
    expect(section).toMatch(
      /\(\d+ more skills are not listed here for space; `gantry skills` lists them all\)/,
    );
  });
});
