import { describe, expect, it } from "vitest";
import { runGantry } from "../support/cli.js";
import { createTempWorkspace } from "../support/workspace.js";

describe("gantry agents", () => {
  it("lists the built-in type, the workspace's agent files, and reports broken files", async () => {
    const ws = await createTempWorkspace({
      ".agents/agents/reviewer.md":
        "---\nname: reviewer\ndescription: Reviews code\ntools: [view_file, grep_search]\n---\nReview.",
      ".claude/agents/tester.md":
        "---\nname: tester\ndescription: Runs tests\nmodel: openai:gpt-4o-mini\n---\nTest.",
      ".qwen/agents/broken.md": "---\nname: broken\n---\nno description",
    });
    try {
      const run = await runGantry(["agents", "--workspace", ws.root], { env: { HOME: ws.home } });
      expect(run.code).toBe(0);
      const lines = run.stdout.trim().split("\n");
      expect(lines[0]).toMatch(/^NAME\s+TOOLS\s+MODEL\s+SOURCE\s+DESCRIPTION$/);
      expect(run.stdout).toMatch(/general-purpose\s+all\s+inherit\s+built-in/);
      expect(run.stdout).toMatch(
        /reviewer\s+view_file,grep_search\s+inherit\s+\.agents\/agents\/reviewer\.md\s+Reviews code/,
      );
      expect(run.stdout).toMatch(/tester\s+all\s+openai:gpt-4o-mini\s+\.claude\/agents\/tester\.md/);
      expect(run.stderr).toContain("broken.md: description is required");
    } finally {
      await ws.cleanup();
    }
  });
});
