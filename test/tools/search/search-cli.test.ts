import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runGantryTool } from "../../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

const TREE = { "src/a.ts": "const hit = 1;\n", "src/b.md": "no\n", "node_modules/x/i.js": "hit\n" };

describe("gantry tool grep_search / find_by_name", () => {
  it("uses ripgrep when it is on PATH", async () => {
    ws = await createTempWorkspace(TREE);
    const { result } = await runGantryTool(
      "grep_search",
      { SearchPath: ".", Query: "hit" },
      { workspace: ws.root, env: { HOME: ws.home, GANTRY_SEARCH_ENGINE: "" } },
    );
    expect(result.text).toBe("src/a.ts:1: const hit = 1;");
    expect(result.metadata.engine).toBe("ripgrep");
  });

  it("falls back to the Node engine, silently and with the same result, when rg is missing", async () => {
    ws = await createTempWorkspace(TREE);
    const { run, result } = await runGantryTool(
      "grep_search",
      { SearchPath: ".", Query: "hit" },
      // the node binary is called by absolute path; PATH holds only its folder, where no rg lives
      {
        workspace: ws.root,
        env: { HOME: ws.home, PATH: path.dirname(process.execPath), GANTRY_SEARCH_ENGINE: "" },
      },
    );
    expect(run.stderr).toBe("");
    expect(result.error).toBe(false);
    expect(result.text).toBe("src/a.ts:1: const hit = 1;");
    expect(result.metadata.engine).toBe("node");
  });

  it("forces the Node engine with GANTRY_SEARCH_ENGINE=node", async () => {
    ws = await createTempWorkspace(TREE);
    const { result } = await runGantryTool(
      "grep",
      { SearchPath: "src", Query: "HIT", CaseInsensitive: true },
      { workspace: ws.root, env: { HOME: ws.home, GANTRY_SEARCH_ENGINE: "node" } },
    );
    expect(result.text).toBe("src/a.ts:1: const hit = 1;");
    expect(result.metadata.engine).toBe("node");
  });

  it("finds files by glob from the command line", async () => {
    ws = await createTempWorkspace(TREE);
    const { result } = await runGantryTool(
      "find_by_name",
      { SearchDirectory: ".", Pattern: "*.ts" },
      { workspace: ws.root, env: { HOME: ws.home } },
    );
    expect(result.text).toBe("src/a.ts");
    expect(result.metadata).toMatchObject({ matches: 1, truncated: false });
  });
});
