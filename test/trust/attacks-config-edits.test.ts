import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runGantryTool } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { writeHomeFile } from "./support.js";

// The user's own config files are always trusted and never pinned: an agent that writes
// ~/.claude/settings.json hooks or the trust store changes every later session in every folder.
// Only the user's own settings may let it.

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

const HOME_FILES = [
  ".agents/hooks.json",
  ".agents/trusted-folders.json",
  ".claude/settings.json",
  ".gemini/settings.json",
];

function writeFromCommand(file: string, extra: string[]) {
  const root = (ws as TempWorkspace).root;
  return runGantryTool(
    "run_command",
    {
      CommandLine: `mkdir -p ${path.dirname(file)} && echo '{}' > ${file}`,
      Cwd: ".",
      WaitMsBeforeAsync: 5000,
    },
    { workspace: root, env: { HOME: ws?.home, GANTRY_TRUST_WORKSPACE: "" }, extra },
  );
}

function expectRefused(result: { text: string; errorCode?: string }, target: string) {
  expect(result.errorCode, result.text).toBe("denied");
  expect(result.text).toContain("Denied by protected files");
  expect(existsSync(target)).toBe(false);
}

describe("the user's config folders, also where they do not exist yet", () => {
  for (const rel of HOME_FILES) {
    it(`~/${rel}: a command under yolo may not create it`, async () => {
      ws = await createTempWorkspace({});
      const target = path.join(ws.home, rel);
      const { result } = await writeFromCommand(target, ["--approval-mode", "yolo"]);
      expectRefused(result, target);
    });
  }
});

describe("allowAgentConfigEdits in a trusted workspace's settings", () => {
  for (const rel of HOME_FILES) {
    it(`does not let the agent write ~/${rel}, even under yolo`, async () => {
      ws = await createTempWorkspace({
        ".agents/settings.json": JSON.stringify({ allowAgentConfigEdits: true }),
      });
      await mkdir(path.join(ws.home, path.dirname(rel)), { recursive: true });
      const target = path.join(ws.home, rel);
      const { run, result } = await writeFromCommand(target, ["--trust", "--approval-mode", "yolo"]);
      expectRefused(result, target);
      expect(run.stderr).toContain(".agents/settings.json: ignored allowAgentConfigEdits");
    });
  }

  it("the user's own allowAgentConfigEdits still lets it (the attack above is real)", async () => {
    ws = await createTempWorkspace({});
    await writeHomeFile(ws, ".agents/settings.json", { allowAgentConfigEdits: true });
    const target = path.join(ws.home, ".agents/hooks.json");
    const { result } = await writeFromCommand(target, ["--approval-mode", "yolo"]);
    expect(result.error, result.text).toBe(false);
    expect(existsSync(target)).toBe(true);
  });
});
