import { afterEach, describe, expect, it } from "vitest";
import { loadSettings } from "../../src/config/load.js";
import { createGantrySession } from "../../src/gantry.js";
import { resolveWorkspaceTrust } from "../../src/trust/workspace-trust.js";
import { DEFAULT_LIMITS } from "../../src/workspace/limits.js";
import { openWorkspace } from "../../src/workspace/workspace.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace | undefined;
afterEach(async () => ws?.cleanup());

describe("workspace limits", () => {
  it("has the documented defaults", () => {
    expect(DEFAULT_LIMITS).toEqual({
      maxOutputChars: 20_000,
      maxReadLines: 2_000,
      maxFileBytes: 10 * 1024 * 1024,
      maxSearchFileBytes: 1024 * 1024,
      maxDirEntries: 500,
      maxMatches: 100,
    });
  });

  it("takes limits from .agents/settings.json, the workspace's file winning over the home's", async () => {
    ws = await createTempWorkspace({ "a.txt": "1\n2\n3\n4\n5\n" });
    await ws.write(
      "../home/.agents/settings.json",
      JSON.stringify({ limits: { maxReadLines: 4, maxDirEntries: 7 } }),
    );
    await ws.write(".agents/settings.json", JSON.stringify({ limits: { maxReadLines: 2 } }));
    const session = createGantrySession({ workspace: ws.root, home: ws.home });
    try {
      expect(session.workspace.limits).toMatchObject({
        maxReadLines: 2,
        maxDirEntries: 7,
        maxOutputChars: 20_000,
      });
      const result = await session.pipeline.run({ name: "view_file", args: { AbsolutePath: "a.txt" } });
      expect(result.metadata).toMatchObject({ endLine: 2, totalLines: 5, truncated: true });
    } finally {
      await session.dispose();
    }
  });

  it("refuses an invalid limit of a trusted file, naming the file and the field", async () => {
    ws = await createTempWorkspace();
    await ws.write(".agents/settings.json", JSON.stringify({ limits: { maxReadLines: 0 } }));
    const trusted = resolveWorkspaceTrust(ws.root, { kind: "given", how: "test" });
    expect(() => loadSettings(ws!.root, ws!.home, trusted)).toThrow(/settings\.json: limits\.maxReadLines/);
  });

  it("leaves out an invalid limit of an untrusted file, keeping its other limits", async () => {
    ws = await createTempWorkspace();
    await ws.write(".agents/settings.json", JSON.stringify({ limits: { maxReadLines: 0, maxMatches: 5 } }));
    expect(loadSettings(ws!.root, ws!.home).limits).toEqual({ maxMatches: 5 });
  });

  it("fills limits left out with their defaults", async () => {
    ws = await createTempWorkspace();
    const workspace = openWorkspace(ws.root, { limits: { maxMatches: 5, maxReadLines: undefined } });
    expect(workspace.limits).toEqual({ ...DEFAULT_LIMITS, maxMatches: 5 });
  });
});
