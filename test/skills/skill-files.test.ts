import { mkdir, symlink } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Settings } from "../../src/config/settings.js";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { put } from "./support.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;
afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
});

/** A home with one skill, `pdf`, in ~/.claude/skills: SKILL.md, a reference file, a secret and a link out. */
async function homeWithSkill(settings?: Settings) {
  ws = await createTempWorkspace();
  const skill = path.join(ws.home, ".claude/skills/pdf");
  await put(
    skill,
    "SKILL.md",
    "---\nname: pdf\ndescription: Fill PDF forms.\n---\nRead reference/forms.md first.\n",
  );
  await put(skill, "reference/forms.md", "# Forms\nUse fill.py.\n");
  await put(skill, ".env", "TOKEN=secret\n");
  await put(skill, "certs/signing.pem", "-----BEGIN PRIVATE KEY-----\n");
  await put(ws.home, "private/notes.txt", "the user's private notes\n");
  await symlink(path.join(ws.home, "private/notes.txt"), path.join(skill, "reference/notes-link.md"));
  await symlink(path.join(skill, "reference/forms.md"), path.join(skill, ".env.local"));
  session = createGantrySession({ workspace: ws.root, home: ws.home, ...(settings ? { settings } : {}) });
  const s = session;
  const view = (AbsolutePath: string, extra: Record<string, unknown> = { IsSkillFile: true }) =>
    s.pipeline.run({ name: "view_file", args: { AbsolutePath, ...extra } });
  return { skill, view };
}

describe("view_file with IsSkillFile", () => {
  it("reads a home skill's SKILL.md and the files it names, outside the workspace", async () => {
    const { skill, view } = await homeWithSkill();
    const main = await view(path.join(skill, "SKILL.md"));
    expect(main.error).toBe(false);
    expect(main.text).toContain("Read reference/forms.md first.");
    const reference = await view(path.join(skill, "reference/forms.md"));
    expect(reference.text).toContain("Use fill.py.");
    expect(reference.metadata.path).toBe(path.join(skill, "reference/forms.md"));
  });

  it("changes nothing without the flag: the same file is outside the workspace", async () => {
    const { skill, view } = await homeWithSkill();
    const result = await view(path.join(skill, "SKILL.md"), {});
    expect(result.errorCode).toBe("outside_workspace");
  });

  it("refuses `..` out of the skill folder, to the user's other files", async () => {
    const { skill, view } = await homeWithSkill();
    const result = await view(path.join(skill, "../../../private/notes.txt"));
    expect(result.errorCode).toBe("outside_workspace");
    expect(result.text).toContain("neither inside the workspace nor inside a discovered skill's folder");
    expect(result.text).not.toContain("private notes");
  });

  it("refuses a symlink inside the skill folder that points out of it", async () => {
    const { skill, view } = await homeWithSkill();
    const result = await view(path.join(skill, "reference/notes-link.md"));
    expect(result.errorCode).toBe("outside_workspace");
    expect(result.text).toContain("leads out of the skill folder ~/.claude/skills/pdf");
    expect(result.text).not.toContain("private notes");
  });

  it("refuses secret files inside the skill folder, by their name or their target", async () => {
    const { skill, view } = await homeWithSkill();
    for (const name of [".env", "certs/signing.pem", ".env.local"]) {
      const result = await view(path.join(skill, name));
      expect(result.errorCode, name).toBe("secret_path");
      expect(result.text).not.toContain("TOKEN=secret");
    }
  });

  it("refuses a file of the home that lies in no skill folder", async () => {
    const { view } = await homeWithSkill();
    const result = await view(path.join(ws.home, "private/notes.txt"));
    expect(result.errorCode).toBe("outside_workspace");
  });

  it("holds for the user's secret patterns too", async () => {
    const { skill, view } = await homeWithSkill({ secrets: { patterns: ["reference/**"] } });
    const result = await view(path.join(skill, "reference/forms.md"));
    expect(result.errorCode).toBe("secret_path");
  });

  it("reads through a skill folder that is itself a symlink (the user's dotfiles), both ways", async () => {
    ws = await createTempWorkspace();
    const dotfiles = path.join(ws.parent, "dotfiles/review");
    await put(dotfiles, "SKILL.md", "---\nname: review\ndescription: Review.\n---\nLook at checklist.md.\n");
    await put(dotfiles, "checklist.md", "- tests\n");
    await mkdir(path.join(ws.home, ".agents/skills"), { recursive: true });
    await symlink(dotfiles, path.join(ws.home, ".agents/skills/review"));
    session = createGantrySession({ workspace: ws.root, home: ws.home });
    const s = session;
    const view = (AbsolutePath: string) =>
      s.pipeline.run({ name: "view_file", args: { AbsolutePath, IsSkillFile: true } });
    expect((await view(path.join(ws.home, ".agents/skills/review/checklist.md"))).text).toContain("- tests");
    expect((await view(path.join(dotfiles, "checklist.md"))).text).toContain("- tests");
    expect((await view(path.join(ws.home, ".agents/skills/review/../review/checklist.md"))).error).toBe(
      false,
    );
  });

  it("still reads workspace files when the flag is set on one", async () => {
    ws = await createTempWorkspace({ "docs/a.md": "inside\n" });
    session = createGantrySession({ workspace: ws.root, home: ws.home });
    const result = await session.pipeline.run({
      name: "view_file",
      args: { AbsolutePath: "docs/a.md", IsSkillFile: true },
    });
    expect(result.text).toContain("inside");
  });

  it("keeps IsSkillFile in the next call of a cut result", async () => {
    ws = await createTempWorkspace();
    const skill = path.join(ws.home, ".agents/skills/long");
    await put(skill, "SKILL.md", "---\nname: long\ndescription: Long.\n---\n");
    await put(skill, "big.md", Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join("\n"));
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      settings: { limits: { maxReadLines: 10 } },
    });
    const result = await session.pipeline.run({
      name: "view_file",
      args: { AbsolutePath: path.join(skill, "big.md"), IsSkillFile: true },
    });
    expect(result.metadata.next).toEqual({
      AbsolutePath: path.join(skill, "big.md"),
      IsSkillFile: true,
      StartLine: 11,
    });
  });

  it("is bound by Read deny rules on the skill's real path", async () => {
    const { skill } = await homeWithSkill();
    await session?.dispose();
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      approvalMode: "yolo",
      settings: { permissions: { deny: [`Read(/${path.join(skill, "reference")}/**)`] } },
    });
    const result = await session.pipeline.run({
      name: "view_file",
      args: { AbsolutePath: path.join(skill, "reference/forms.md"), IsSkillFile: true },
    });
    expect(result.errorCode).toBe("denied");
  });
});
