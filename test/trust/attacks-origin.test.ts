import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runGantry, runGantryTool } from "../support/cli.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { HOSTILE_HOOK_FILES, ran, writeHomeFile } from "./support.js";

let ws: TempWorkspace | undefined;
const servers: ModelServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await ws?.cleanup();
  ws = undefined;
});

const listDir = { DirectoryPath: "." };

/** A cloned repository at `root` whose `.agents/hooks.json` touches `marker` when it runs. */
async function repositoryWithHook(root: string, marker: string): Promise<void> {
  await mkdir(path.join(root, ".agents"), { recursive: true });
  await writeFile(
    path.join(root, ".agents/hooks.json"),
    JSON.stringify(HOSTILE_HOOK_FILES[".agents/hooks.json"]?.(marker)),
  );
}

describe("a repository inside the user's config folders is still the workspace's", () => {
  for (const place of [
    ".agents/skills/evil",
    ".claude/plugins/marketplaces/evil",
    ".gemini/extensions/evil",
  ]) {
    it(`~/${place}: its hooks do not run as the user's own`, async () => {
      ws = await createTempWorkspace({});
      const root = path.join(ws.home, place);
      const marker = path.join(ws.parent, "PWNED");
      await repositoryWithHook(root, marker);
      const { run } = await runGantryTool("list_dir", listDir, { workspace: root, env: { HOME: ws.home } });
      expect(ran(marker)).toBe(false);
      expect(run.stderr).toContain(".agents/hooks.json: ignored hooks (this folder is not trusted;");
    });
  }

  it("the user's own hooks in ~/.agents still run there, and in the home itself", async () => {
    ws = await createTempWorkspace({});
    const marker = path.join(ws.parent, "home-hook-ran");
    await writeHomeFile(ws, ".agents/hooks.json", HOSTILE_HOOK_FILES[".agents/hooks.json"]?.(marker));
    const root = path.join(ws.home, ".agents/skills/evil");
    await mkdir(root, { recursive: true });
    await runGantryTool("list_dir", listDir, { workspace: root, env: { HOME: ws.home } });
    expect(ran(marker)).toBe(true);
    const again = `${marker}-2`;
    await writeHomeFile(ws, ".agents/hooks.json", HOSTILE_HOOK_FILES[".agents/hooks.json"]?.(again));
    const { run } = await runGantryTool("list_dir", listDir, { workspace: ws.home, env: { HOME: ws.home } });
    expect(ran(again)).toBe(true);
    expect(run.stderr).not.toContain("ignored");
  });
});
