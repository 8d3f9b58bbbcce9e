import { afterEach, describe, expect, it } from "vitest";
import {
  createSubagentCatalog,
  GENERAL_PURPOSE,
  loadSubagentDefinitions,
  parseSubagentMarkdown,
} from "../../src/subagents/types.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

const reviewer = `---
name: code-reviewer
description: Reviews code for quality
tools: Read, Grep, Glob
model: openai:gpt-4o-mini
---
You review code. Be strict.
`;

describe("subagent definitions", () => {
  it("parses front matter and takes the body as the system prompt", () => {
    const parsed = parseSubagentMarkdown(reviewer, "/x/code-reviewer.md");
    expect(parsed).toEqual({
      ok: true,
      definition: {
        name: "code-reviewer",
        description: "Reviews code for quality",
        systemPrompt: "You review code. Be strict.",
        tools: { kind: "list", names: ["Read", "Grep", "Glob"] },
        model: "openai:gpt-4o-mini",
        source: "/x/code-reviewer.md",
      },
      warnings: [],
    });
  });

  it("accepts a YAML tools list, defaults the name to the file name and treats model inherit as none", () => {
    const parsed = parseSubagentMarkdown(
      "---\ndescription: d\ntools:\n  - view_file\n  - grep_search\nmodel: inherit\n---\nprompt",
      "/x/finder.md",
    );
    expect(parsed.ok && parsed.definition).toMatchObject({
      name: "finder",
      tools: { kind: "list", names: ["view_file", "grep_search"] },
      model: undefined,
    });
  });

  it("an absent tools field means every tool", () => {
    const parsed = parseSubagentMarkdown("---\nname: a\ndescription: d\n---\nbody", "/x/a.md");
    expect(parsed.ok && parsed.definition.tools).toEqual({ kind: "all" });
  });

  it.each([
    ["no front matter", "just text", "no front matter"],
    ["missing description", "---\nname: a\n---\nbody", "description is required"],
    ["bad YAML", "---\nname: [a\n---\nbody", "not valid YAML"],
    ["empty body", "---\nname: a\ndescription: d\n---\n", "system prompt"],
    ["reserved fork name", "---\nname: fork\ndescription: d\n---\nbody", "reserved"],
    ["bad name", "---\nname: a b/c\ndescription: d\n---\nbody", "name must be"],
    ["tools of numbers", "---\nname: a\ndescription: d\ntools: [1, 2]\n---\nbody", "tools must be"],
  ])("refuses a file with %s, naming the problem", (_label, text, message) => {
    const parsed = parseSubagentMarkdown(text, "/x/a.md");
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.message).toContain(message);
  });

  it("loads .agents, .claude and .qwen folders of home and workspace; the workspace .agents wins, the user's own over it", async () => {
    ws = await createTempWorkspace({
      ".claude/agents/tester.md": "---\nname: tester\ndescription: from claude\n---\nrun tests",
      ".qwen/agents/writer.md": "---\nname: writer\ndescription: from qwen\n---\nwrite docs",
      ".agents/agents/tester.md": "---\nname: tester\ndescription: from agents\n---\nrun tests well",
      ".agents/agents/broken.md": "no front matter here",
      ".agents/agents/notes.txt": "ignored",
    });
    const { mkdir, writeFile } = await import("node:fs/promises");
    await mkdir(`${ws.home}/.agents/agents`, { recursive: true });
    await writeFile(
      `${ws.home}/.agents/agents/helper.md`,
      "---\nname: helper\ndescription: from home\n---\nhelp",
    );
    await writeFile(
      `${ws.home}/.agents/agents/writer.md`,
      "---\nname: writer\ndescription: home writer\n---\nw",
    );

    const { definitions, problems } = loadSubagentDefinitions(ws.root, ws.home);
    const byName = Object.fromEntries(definitions.map((d) => [d.name, d.description]));
    expect(byName).toEqual({
      "general-purpose": GENERAL_PURPOSE.description,
      helper: "from home",
      tester: "from agents",
      writer: "home writer",
    });
    expect(problems.filter((p) => !p.warning)).toHaveLength(1);
    expect(problems.find((p) => !p.warning)?.file).toContain("broken.md");
    expect(problems.find((p) => p.warning)?.message).toBe(
      "not used: your own ~/.agents/agents/writer.md of the same name wins",
    );
  });

  it("define adds a session type but never shadows a file or the built-in type", async () => {
    ws = await createTempWorkspace({
      ".agents/agents/tester.md": "---\nname: tester\ndescription: d\n---\nb",
    });
    const catalog = createSubagentCatalog(ws.root, ws.home);
    const session = {
      name: "sql-expert",
      description: "SQL",
      systemPrompt: "You know SQL.",
      tools: { kind: "capabilities", write: false, mcp: false, subagents: false } as const,
      source: "x",
    };
    expect(catalog.define(session)).toEqual({ ok: true });
    expect(catalog.get("sql-expert")?.source).toBe("session");
    expect(catalog.define({ ...session, description: "again" })).toEqual({ ok: true });
    expect(catalog.get("sql-expert")?.description).toBe("again");
    expect(catalog.define({ ...session, name: "tester" })).toMatchObject({ ok: false });
    expect(catalog.define({ ...session, name: "general-purpose" })).toMatchObject({ ok: false });
    expect(catalog.define({ ...session, name: "fork" })).toMatchObject({ ok: false });
  });

  it("reads the agent folders at the first question, and only then", async () => {
    ws = await createTempWorkspace({ "notes.txt": "x" });
    const catalog = createSubagentCatalog(ws.root, ws.home);
    // nothing is read when the catalog is made (a one-shot tool call never asks it)
    await ws.write(".claude/agents/tester.md", "---\nname: tester\ndescription: d\n---\nb");
    expect(catalog.get("tester")?.description).toBe("d");
    await ws.write(".claude/agents/later.md", "---\nname: later\ndescription: d\n---\nb");
    expect(catalog.list().map((d) => d.name)).toEqual(["general-purpose", "tester"]);
    expect(catalog.problems).toEqual([]);
  });
});
