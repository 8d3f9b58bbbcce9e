import { existsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readSessionArtifacts } from "../../src/artifacts/session-artifacts.js";
import type { Settings } from "../../src/config/settings.js";
import { createGantrySession, type GantryOptions, type GantrySession } from "../../src/gantry.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;
afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
});

async function open(settings: Settings = {}, options: Partial<GantryOptions> = {}) {
  ws = await createTempWorkspace();
  session = createGantrySession({ workspace: ws.root, home: ws.home, settings, ...options });
  const s = session;
  return (TargetFile: string, ArtifactMetadata: unknown, extra: Record<string, unknown> = {}) =>
    s.pipeline.run({
      name: "write_to_file",
      args: {
        TargetFile,
        Overwrite: false,
        CodeContent: "# Plan\n- [ ] step\n",
        Description: "plan",
        ArtifactMetadata,
        ...extra,
      },
    });
}

const plan = { ArtifactType: "plan", Summary: "How the login bug gets fixed." };

describe("write_to_file with ArtifactMetadata", () => {
  it("writes a bare file name into the artifacts folder and records the artifact", async () => {
    const write = await open();
    const result = await write("implementation_plan.md", plan);
    expect(result.error).toBe(false);
    expect(result.text).toContain("Created .agents/artifacts/implementation_plan.md");
    expect(result.text).toContain("Recorded as a plan artifact");
    expect(await readFile(path.join(ws.root, ".agents/artifacts/implementation_plan.md"), "utf8")).toBe(
      "# Plan\n- [ ] step\n",
    );
    expect(result.metadata.artifact).toMatchObject({
      path: ".agents/artifacts/implementation_plan.md",
      type: "plan",
      summary: "How the login bug gets fixed.",
      tool: "write_to_file",
    });
    expect(session?.artifacts.list()).toHaveLength(1);
  });

  it("takes a path inside the artifacts folder, and refuses one elsewhere without writing", async () => {
    const write = await open({ images: { dir: "docs/agent" } });
    expect(
      (await write("docs/agent/tasks/list.md", { ArtifactType: "task_list", Summary: "tasks" })).error,
    ).toBe(false);
    expect(existsSync(path.join(ws.root, "docs/agent/tasks/list.md"))).toBe(true);
    const elsewhere = await write("src/plan.md", plan);
    expect(elsewhere.errorCode).toBe("invalid_arguments");
    expect(elsewhere.text).toContain("written into docs/agent/, the artifacts folder");
    const escape = await write("docs/agent/../../outside.md", plan);
    expect(escape.errorCode).toBe("invalid_arguments");
    expect(existsSync(path.join(ws.root, "src/plan.md"))).toBe(false);
  });

  it("is a write like any other: an existing artifact is replaced only with Overwrite, and only if unchanged since", async () => {
    const write = await open();
    await write("report.md", { ArtifactType: "report", Summary: "first" });
    const again = await write("report.md", { ArtifactType: "report", Summary: "second" });
    expect(again.errorCode).toBe("conflict");
    await writeFile(path.join(ws.root, ".agents/artifacts/report.md"), "the user edited it\n");
    const changed = await write(
      "report.md",
      { ArtifactType: "report", Summary: "second" },
      { Overwrite: true },
    );
    expect(changed.errorCode).toBe("stale_file");
    await session?.pipeline.run({ name: "view_file", args: { AbsolutePath: ".agents/artifacts/report.md" } });
    const updated = await write(
      "report.md",
      { ArtifactType: "report", Summary: "second" },
      { Overwrite: true },
    );
    expect(updated.error).toBe(false);
    expect(session?.artifacts.list().map((a) => a.summary)).toEqual(["second"]);
  });

  it("refuses an artifacts folder that is a symlink out of the workspace", async () => {
    const write = await open();
    await mkdir(path.join(ws.root, ".agents"), { recursive: true });
    await mkdir(path.join(ws.parent, "elsewhere"));
    await symlink(path.join(ws.parent, "elsewhere"), path.join(ws.root, ".agents/artifacts"));
    const result = await write("plan.md", plan);
    expect(result.errorCode).toBe("outside_workspace");
    expect(existsSync(path.join(ws.parent, "elsewhere/plan.md"))).toBe(false);
  });

  it("is judged by Edit rules where it really goes, also when TargetFile is a bare name", async () => {
    const write = await open(
      { permissions: { deny: ["Edit(.agents/artifacts/**)"] } },
      { approvalMode: "yolo" },
    );
    const result = await write("plan.md", plan);
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain("rule deny Edit(.agents/artifacts/**)");
  });

  it("refuses an artifact type it does not know, naming the field", async () => {
    const write = await open();
    const result = await write("x.md", { ArtifactType: "novel", Summary: "x" });
    expect(result.errorCode).toBe("invalid_arguments");
    expect(result.text).toContain("ArtifactMetadata.ArtifactType");
  });

  it("leaves plain writes as they were", async () => {
    const write = await open();
    const result = await write("notes.md", undefined);
    expect(result.text).toContain("Created notes.md");
    expect(result.metadata.artifact).toBeUndefined();
    expect(session?.artifacts.list()).toEqual([]);
  });
});

describe("artifacts in the session log", () => {
  it("are read back from tool results, subagent transcripts included; failed and damaged lines are skipped", async () => {
    ws = await createTempWorkspace();
    const file = path.join(ws.home, "s.jsonl");
    const result = (artifact: unknown, error = false) =>
      JSON.stringify({
        type: "tool_result",
        agentId: "main",
        turn: 1,
        call: {},
        result: { text: "", error, metadata: { artifact } },
      });
    const artifact = (p: string, summary: string) => ({
      path: p,
      type: "plan",
      summary,
      tool: "write_to_file",
      createdAt: "t",
    });
    await writeFile(
      file,
      [
        JSON.stringify({ type: "session", version: 1, id: "s" }),
        result(artifact("a.md", "first")),
        '{"type":"tool_result", "artifact": broken',
        result(artifact("b.md", "failed"), true),
        result(artifact("a.md", "rewritten")),
      ].join("\n"),
    );
    await mkdir(path.join(ws.home, "s.agents"));
    await writeFile(
      path.join(ws.home, "s.agents/a1.jsonl"),
      `${result({ ...artifact("c.png", "an image"), type: "image" })}\n`,
    );
    expect(readSessionArtifacts(file).map((a) => [a.path, a.summary])).toEqual([
      ["a.md", "rewritten"],
      ["c.png", "an image"],
    ]);
  });
});
