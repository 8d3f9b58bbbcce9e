import { symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadProjectInstructions } from "../../src/agent/instructions.js";
import { createSecretGuard } from "../../src/workspace/secrets.js";
import { put } from "../skills/support.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

// Instruction files as Claude Code, Gemini CLI and Qwen Code keep them, with their `@path` imports. A
// workspace is somebody else's until trusted: its instructions may import only what view_file could read.

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

const secrets = createSecretGuard();
const load = (root: string, home: string) =>
  loadProjectInstructions(root, { home, isSecret: (rel) => secrets.isSecret(rel) });

describe("project instructions", () => {
  it("reads the user's own files and the workspace's, Claude Code's other places too", async () => {
    ws = await createTempWorkspace({
      "AGENTS.md": "agents",
      ".claude/CLAUDE.md": "claude in folder",
      "CLAUDE.local.md": "local notes",
    });
    await put(ws.home, ".claude/CLAUDE.md", "my own rules");
    await put(ws.home, ".gemini/GEMINI.md", "my gemini rules");
    expect(load(ws.root, ws.home).map((i) => [i.file, i.text])).toEqual([
      ["~/.claude/CLAUDE.md", "my own rules"],
      ["~/.gemini/GEMINI.md", "my gemini rules"],
      ["AGENTS.md", "agents"],
      [".claude/CLAUDE.md", "claude in folder"],
      ["CLAUDE.local.md", "local notes"],
    ]);
  });

  it("follows @path imports, nested and once each, but not in code or for words that name no file", async () => {
    ws = await createTempWorkspace({
      "CLAUDE.md":
        "See @README for the overview and @docs/style.md.\n```\n@docs/in-code.md\n```\nMail me@example.com, `@docs/span.md`, @nowhere.md",
      README: "the readme",
      "docs/style.md": "style: @./tabs.md and back to @../CLAUDE.md",
      "docs/tabs.md": "use tabs",
      "docs/in-code.md": "NOT IMPORTED",
      "docs/span.md": "NOT IMPORTED EITHER",
    });
    const [claude] = load(ws.root, ws.home);
    expect(claude?.text).toContain("--- imported from @README ---\nthe readme");
    expect(claude?.text).toContain("--- imported from @docs/style.md ---\nstyle:");
    expect(claude?.text).toContain("--- imported from @./tabs.md ---\nuse tabs");
    expect(claude?.text).not.toContain("NOT IMPORTED");
    expect(claude?.text.match(/imported from/g)).toHaveLength(3);
  });

  it("a workspace's file imports nothing from outside it, no secret and nothing through a symlink out", async () => {
    ws = await createTempWorkspace({
      "AGENTS.md": "Rules: @../outside.md @~/.claude/CLAUDE.md @.env @linked.md @/etc/hostname",
      "../outside.md": "OUTSIDE",
      ".env": "API_KEY=sk-live",
    });
    await put(ws.home, ".claude/CLAUDE.md", "HOME SECRET RULES");
    symlinkSync(path.join(ws.parent, "outside.md"), path.join(ws.root, "linked.md"));
    const agents = load(ws.root, ws.home).find((i) => i.file === "AGENTS.md");
    expect(agents?.text).not.toMatch(/OUTSIDE|sk-live/);
    expect(agents?.text.match(/HOME SECRET RULES/g) ?? []).toHaveLength(0);
    expect(agents?.text).toContain(
      "[@../outside.md not imported: outside the folder of the file that imports it]",
    );
    expect(agents?.text).toContain("[@.env not imported: a secret file]");
    expect(agents?.text).toContain(
      "[@linked.md not imported: outside the folder of the file that imports it]",
    );
    expect(agents?.text).toContain(
      "[@/etc/hostname not imported: outside the folder of the file that imports it]",
    );
  });

  it("stops importing once the instructions reach their size limit (a file naming thousands of files)", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`docs/part-${i}.md`] = `part ${i} `.repeat(1000);
    files["CLAUDE.md"] = Array.from({ length: 300 }, (_, i) => `@docs/part-${i}.md`).join("\n");
    ws = await createTempWorkspace(files);
    const [claude] = load(ws.root, ws.home);
    // about 8 parts of 9 KB fill 64 K: the other files are never read
    expect(claude?.text).toMatch(/\[CLAUDE\.md truncated at 65536 characters; 29\d more imports not read\]$/);
  });

  it("the user's own file imports from the home folder (@~/), never a secret there", async () => {
    ws = await createTempWorkspace();
    await put(ws.home, ".claude/CLAUDE.md", "Mine: @~/notes/rules.md @~/.ssh/id_rsa");
    await put(ws.home, "notes/rules.md", "be brief");
    await put(ws.home, ".ssh/id_rsa", "PRIVATE KEY");
    const [mine] = load(ws.root, ws.home);
    expect(mine?.text).toContain("--- imported from @~/notes/rules.md ---\nbe brief");
    expect(mine?.text).not.toContain("PRIVATE KEY");
    expect(mine?.text).toContain("[@~/.ssh/id_rsa not imported: a secret file]");
  });
});
