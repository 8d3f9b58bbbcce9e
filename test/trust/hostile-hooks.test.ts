import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession } from "../../src/gantry.js";
import { runGantry, runGantryTool } from "../support/cli.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { HOSTILE_HOOK_FILES, plantHook, ran, writeHomeFile } from "./support.js";

let ws: TempWorkspace | undefined;
let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await ws?.cleanup();
  ws = undefined;
});

const listDir = { DirectoryPath: "." };

describe("a cloned repository's hooks", () => {
  for (const file of Object.keys(HOSTILE_HOOK_FILES)) {
    it(`${file}: not run by gantry tool in an untrusted folder, and the notice names the file`, async () => {
      ws = await createTempWorkspace({ "a.txt": "a\n" });
      const marker = await plantHook(ws, file);
      const { run, result } = await runGantryTool("list_dir", listDir, {
        workspace: ws.root,
        env: { HOME: ws.home },
      });
      expect(result.error).toBe(false);
      expect(ran(marker)).toBe(false);
      expect(run.stderr).toContain(`gantry: ${file}: ignored hooks (this folder is not trusted;`);
      expect(run.stderr).toContain('run "gantry trust" in it, or pass --trust');
    });

    it(`${file}: runs with --trust, with GANTRY_TRUST_WORKSPACE=1 and once the folder is trusted`, async () => {
      ws = await createTempWorkspace({ "a.txt": "a\n" });
      const marker = await plantHook(ws, file);
      const env = { HOME: ws.home };
      await runGantryTool("list_dir", listDir, { workspace: ws.root, env, extra: ["--trust"] });
      expect(ran(marker)).toBe(true);
      const { rm } = await import("node:fs/promises");
      await rm(marker);
      await runGantryTool("list_dir", listDir, {
        workspace: ws.root,
        env: { ...env, GANTRY_TRUST_WORKSPACE: "1" },
      });
      expect(ran(marker)).toBe(true);
      await rm(marker);
      const trusted = await runGantry(["trust", ws.root], { env });
      expect(trusted.code, trusted.stderr).toBe(0);
      expect(trusted.stdout).toContain(`touch ${marker}`);
      const { run } = await runGantryTool("list_dir", listDir, { workspace: ws.root, env });
      expect(ran(marker)).toBe(true);
      expect(run.stderr).toBe("");
    });
  }

  it("gantry -p: the hooks of every dialect stay silent, the tool call runs narrowed, and stderr says so once per file", async () => {
    ws = await createTempWorkspace({ "a.txt": "a\n" });
    const markers = await Promise.all(Object.keys(HOSTILE_HOOK_FILES).map((file) => plantHook(ws!, file)));
    server = await startModelServer([
      { toolCalls: [{ name: "list_dir", args: { DirectoryPath: ws.root } }] },
      { text: "listed" },
    ]);
    const run = await runGantry(
      ["-p", "list", "--model", "openai:m", "--base-url", server.baseUrl("openai"), "--workspace", ws.root],
      { env: { HOME: ws.home, OPENAI_API_KEY: "k" }, timeoutMs: 60_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("listed\n");
    for (const marker of markers) expect(ran(marker)).toBe(false);
    for (const file of Object.keys(HOSTILE_HOOK_FILES)) {
      expect(run.stderr.split(`gantry: ${file}: ignored hooks`).length - 1).toBe(1);
    }
  });

  it("a user's decision never to trust the folder keeps its hooks out and is not asked again", async () => {
    ws = await createTempWorkspace({});
    const marker = await plantHook(ws, ".agents/hooks.json");
    const env = { HOME: ws.home };
    expect((await runGantry(["trust", "--never", ws.root], { env })).code).toBe(0);
    const { run } = await runGantryTool("list_dir", listDir, { workspace: ws.root, env });
    expect(ran(marker)).toBe(false);
    expect(run.stderr).toContain("you chose never to trust this folder");
    // --trust for one run still wins: the user said so on the command line
    await runGantryTool("list_dir", listDir, { workspace: ws.root, env, extra: ["--trust"] });
    expect(ran(marker)).toBe(true);
  });

  it("a broken hook file in an untrusted folder cannot stop the session", async () => {
    ws = await createTempWorkspace({
      ".agents/hooks.json": '{"g": {"pre_tool_execution": [{"hooks": [{"type": "command"}]}]}}',
    });
    const { result } = await runGantryTool("list_dir", listDir, {
      workspace: ws.root,
      env: { HOME: ws.home },
    });
    expect(result.error).toBe(false);
    const trusted = await runGantry(
      ["tool", "list_dir", JSON.stringify(listDir), "--workspace", ws.root, "--trust"],
      {
        env: { HOME: ws.home },
      },
    );
    expect(trusted.code).toBe(1);
    expect(trusted.stderr).toContain("invalid hooks configuration");
  });

  it("the user's own hooks in ~/.agents run in an untrusted folder", async () => {
    ws = await createTempWorkspace({});
    const marker = path.join(ws.parent, "home-hook-ran");
    await writeHomeFile(ws, ".agents/hooks.json", {
      mine: {
        pre_tool_execution: [{ matcher: "", hooks: [{ type: "command", command: `touch ${marker}` }] }],
      },
    });
    await runGantryTool("list_dir", listDir, { workspace: ws.root, env: { HOME: ws.home } });
    expect(ran(marker)).toBe(true);
  });

  it("a home hook that would run a script of the untrusted workspace does not run it: the call is denied", async () => {
    ws = await createTempWorkspace({
      "scripts/check.sh": `touch "${"$GANTRY_PROJECT_DIR"}/../ran-workspace-script"\n`,
    });
    await writeHomeFile(ws, ".agents/hooks.json", {
      mine: {
        pre_tool_execution: [
          { matcher: "list_dir", hooks: [{ type: "command", command: "bash scripts/check.sh" }] },
        ],
      },
    });
    const { result } = await runGantryTool("list_dir", listDir, {
      workspace: ws.root,
      env: { HOME: ws.home },
    });
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain(
      "it runs scripts/check.sh, a file of this workspace: this folder is not trusted",
    );
    expect(ran(path.join(ws.parent, "ran-workspace-script"))).toBe(false);
  });

  it("a library session is untrusted by default and reports what it ignored", async () => {
    ws = await createTempWorkspace({});
    const marker = await plantHook(ws, ".claude/settings.json");
    const session = createGantrySession({ workspace: ws.root, home: ws.home });
    try {
      expect(session.trust.decision).toBe("undecided");
      await session.pipeline.run({ name: "list_dir", args: listDir });
      expect(ran(marker)).toBe(false);
      expect(session.configNotices()).toEqual([
        expect.stringMatching(/^\.claude\/settings\.json: ignored hooks \(this folder is not trusted;/),
      ]);
      expect(session.config.values).toContainEqual(
        expect.objectContaining({
          key: "hooks",
          file: ".claude/settings.json",
          honoured: false,
          wantsTrust: true,
        }),
      );
    } finally {
      await session.dispose();
    }
    const trusted = createGantrySession({ workspace: ws.root, home: ws.home, trust: true });
    try {
      await trusted.pipeline.run({ name: "list_dir", args: listDir });
      expect(ran(marker)).toBe(true);
      expect(readFileSync(marker, "utf8")).toBe("");
    } finally {
      await trusted.dispose();
    }
  });
});
