import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadForkProfile } from "../../src/subagents/profiles.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

const canonical = (name: string) =>
  ["view_file", "grep_search", "list_dir"].includes(name) ? name : undefined;
let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

describe("fork profiles", () => {
  it("loads tools and promptHint from .agents/fork-profiles, then .qwen/fork-profiles", async () => {
    ws = await createTempWorkspace({
      ".agents/fork-profiles/ro.md": "---\ntools: [view_file, grep_search]\npromptHint: Only read.\n---\n",
      ".qwen/fork-profiles/ro.md": "---\ntools: [list_dir]\n---\n",
      ".qwen/fork-profiles/lister.md": "---\ntools: [list_dir]\n---\n",
      ".qwen/fork-profiles/none.md": "---\ntools: []\n---",
    });
    expect(await loadForkProfile(ws.root, "ro", canonical)).toEqual({
      ok: true,
      profile: {
        name: "ro",
        tools: ["view_file", "grep_search"],
        promptHint: "Only read.",
        file: ".agents/fork-profiles/ro.md",
      },
    });
    expect(await loadForkProfile(ws.root, "lister", canonical)).toMatchObject({
      ok: true,
      profile: { tools: ["list_dir"] },
    });
    expect(await loadForkProfile(ws.root, "none", canonical)).toMatchObject({
      ok: true,
      profile: { tools: [] },
    });
  });

  it("refuses a profile that is a symlink to a file outside its folder", async () => {
    ws = await createTempWorkspace({ "secret-plan.md": "---\ntools: [view_file]\n---\n" });
    await mkdir(path.join(ws.root, ".agents/fork-profiles"), { recursive: true });
    await symlink(
      path.join(ws.root, "secret-plan.md"),
      path.join(ws.root, ".agents/fork-profiles/escape.md"),
    );
    const result = await loadForkProfile(ws.root, "escape", canonical);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toContain("outside .agents/fork-profiles");
  });

  it("refuses a profile folder that is a symlink out of the workspace", async () => {
    ws = await createTempWorkspace();
    await mkdir(path.join(ws.parent, "elsewhere"));
    await writeFile(path.join(ws.parent, "elsewhere/ro.md"), "---\ntools: [view_file]\n---\n");
    await mkdir(path.join(ws.root, ".agents"));
    await symlink(path.join(ws.parent, "elsewhere"), path.join(ws.root, ".agents/fork-profiles"));
    const result = await loadForkProfile(ws.root, "ro", canonical);
    expect(!result.ok && result.message).toContain("outside the workspace");
  });

  it.each(["../ro", "a/b", "..", ".hidden", ""])("refuses the name %j", async (name) => {
    ws = await createTempWorkspace({ ".agents/fork-profiles/ro.md": "---\ntools: []\n---\n" });
    const result = await loadForkProfile(ws.root, name, canonical);
    expect(!result.ok && result.message).toContain("not a plain profile name");
  });

  it.each([
    ["text after the front matter", "---\ntools: []\n---\nYou are...", "front matter only"],
    ["no tools", "---\npromptHint: hi\n---\n", "`tools` is required"],
    ["a long promptHint", `---\ntools: []\npromptHint: ${"x".repeat(201)}\n---\n`, "at most 200"],
    ["a bad tool entry", "---\ntools: [' view_file']\n---\n", "surrounding spaces"],
    ["an oversized file", `---\ntools: []\n---\n${" ".repeat(70 * 1024)}`, "at most 65536"],
  ])("refuses %s", async (_label, text, message) => {
    ws = await createTempWorkspace({ ".agents/fork-profiles/p.md": text });
    const result = await loadForkProfile(ws.root, "p", canonical);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toContain(message);
  });

  it("says where it looked when no profile has the name", async () => {
    ws = await createTempWorkspace();
    const result = await loadForkProfile(ws.root, "missing", canonical);
    expect(!result.ok && result.message).toContain(".agents/fork-profiles/ or .qwen/fork-profiles/");
  });
});
