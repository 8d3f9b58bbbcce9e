import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { discoverCommands } from "../../src/slash-commands/catalog.js";
import { type CliRun, runGantry } from "../support/cli.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { writeHomeFile } from "./support.js";

// A repository that ships a config file as a named pipe (FIFO) made every start hang: opening a FIFO
// for reading blocks until a writer comes, and none does. Every file Gantry reads from a workspace at
// start is opened without blocking and refused unless it is a regular file, with a line naming it.
// A run that blocked is killed by runGantry's timeout (it fails, it does not hang the suite); an
// in-process read that blocked is freed by a writer that comes some seconds later (RESCUE_AFTER_MS).

const RESCUE_AFTER_MS = 8_000;
const RUN_MS = 6_000;

let ws: TempWorkspace | undefined;
const rescuers: ChildProcess[] = [];
const servers: ModelServer[] = [];
afterEach(async () => {
  for (const child of rescuers.splice(0)) child.kill();
  for (const server of servers.splice(0)) await server.close();
  await ws?.cleanup();
  ws = undefined;
});

/** A named pipe at `rel`; a writer opens it some seconds later, so a read that blocked ends (and fails the test). */
function fifoAt(rel: string): string {
  const abs = path.join((ws as TempWorkspace).root, rel);
  mkdirSync(path.dirname(abs), { recursive: true });
  execFileSync("mkfifo", [abs]);
  const script = `
    const fs = require("node:fs");
    setTimeout(() => {
      let fd;
      try { fd = fs.openSync(${JSON.stringify(abs)}, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK); }
      catch { process.exit(0); } // ENXIO: nobody is reading the pipe, as it should be
      fs.writeSync(fd, "{}");
      fs.closeSync(fd);
    }, ${RESCUE_AFTER_MS});`;
  rescuers.push(spawn(process.execPath, ["-e", script], { stdio: "ignore" }));
  return abs;
}

const env = () => ({ HOME: (ws as TempWorkspace).home, GANTRY_TRUST_WORKSPACE: "", OPENAI_API_KEY: "k" });

async function timed(args: string[]): Promise<CliRun & { ms: number }> {
  const started = Date.now();
  const run = await runGantry([...args, "--workspace", (ws as TempWorkspace).root], {
    env: env(),
    timeoutMs: RUN_MS + RESCUE_AFTER_MS,
  });
  return { ...run, ms: Date.now() - started };
}

function finishedNaming(run: CliRun & { ms: number }, rel: string): void {
  expect(run.signal, "the run was killed: it blocked on the pipe").toBeNull();
  expect(run.ms, "the run blocked on the pipe until its writer came").toBeLessThan(RESCUE_AFTER_MS);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr).toMatch(new RegExp(`${rel.replace(/[.]/g, "\\.")}[^\\n]*named pipe`));
}

const listDir = ["tool", "list_dir", JSON.stringify({ DirectoryPath: "." })];

describe("a workspace config file that is a named pipe is refused, not waited on", () => {
  for (const rel of [
    ".agents/settings.json",
    ".agents/settings.local.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".agents/hooks.json",
    ".gemini/settings.json",
    ".qwen/settings.json",
    ".mcp.json",
  ])
    it(`${rel}: gantry tool runs and names it`, async () => {
      ws = await createTempWorkspace({ "a.txt": "a\n" });
      fifoAt(rel);
      const run = await timed(listDir);
      finishedNaming(run, rel);
      expect(run.stdout).toContain("a.txt");
    });

  it("gantry trust pins a folder holding one without waiting on it", async () => {
    ws = await createTempWorkspace({ "a.txt": "a\n" });
    await ws.write(".claude/settings.json", "{}");
    fifoAt(".agents/settings.json");
    const started = Date.now();
    const run = await runGantry(["trust", ws.root], { env: env(), timeoutMs: RUN_MS + RESCUE_AFTER_MS });
    expect(run.signal, "gantry trust blocked on the pipe").toBeNull();
    expect(Date.now() - started).toBeLessThan(RESCUE_AFTER_MS);
  });

  it("an agent file: gantry agents lists the others and names it", async () => {
    ws = await createTempWorkspace({
      ".claude/agents/good.md": "---\nname: good\ndescription: Good.\n---\nHelp.\n",
    });
    fifoAt(".claude/agents/pipe.md");
    const run = await timed(["agents"]);
    finishedNaming(run, ".claude/agents/pipe.md");
    expect(run.stdout).toContain("good");
  });

  it("a skill's SKILL.md: gantry skills names it", async () => {
    ws = await createTempWorkspace({});
    fifoAt(".agents/skills/piped/SKILL.md");
    const run = await timed(["skills"]);
    expect(run.signal).toBeNull();
    expect(run.ms).toBeLessThan(RESCUE_AFTER_MS);
    expect(run.stdout + run.stderr).toMatch(/piped[^\n]*not a regular file/);
  });

  it("a slash-command file: the catalog names it and keeps the others", async () => {
    ws = await createTempWorkspace({ ".claude/commands/good.md": "Say hi.\n" });
    fifoAt(".claude/commands/pipe.md");
    const started = Date.now();
    const catalog = discoverCommands(ws.root, ws.home);
    expect(Date.now() - started).toBeLessThan(RESCUE_AFTER_MS);
    expect(catalog.get("good")).toBeDefined();
    expect(catalog.problems).toEqual([
      {
        file: path.join(ws.root, ".claude/commands/pipe.md"),
        message: expect.stringContaining("named pipe"),
      },
    ]);
  });

  it("an instruction file or an agent file as a pipe or a link to /dev/zero: gantry -p runs, with the others", async () => {
    ws = await createTempWorkspace({ "CLAUDE.md": "Use tabs.\n\nSee @notes.md\n" });
    fifoAt("AGENTS.md");
    fifoAt("notes.md");
    fifoAt(".claude/agents/pipe.md");
    mkdirSync(path.join(ws.root, ".gemini/agents"), { recursive: true });
    symlinkSync("/dev/zero", path.join(ws.root, "GEMINI.md"));
    symlinkSync("/dev/zero", path.join(ws.root, ".gemini/agents/zero.md"));
    const model = await startModelServer([{ text: "done" }]);
    servers.push(model);
    await writeHomeFile(ws, ".agents/settings.json", {
      model: "openai:gpt-4.1",
      baseUrl: model.baseUrl("openai"),
    });
    const run = await timed(["-p", "hi"]);
    expect(run.signal, "the run blocked").toBeNull();
    expect(run.ms).toBeLessThan(RESCUE_AFTER_MS);
    expect(run.code, run.stderr).toBe(0);
    const sent = model.requests.map((request) => request.text).join("\n");
    expect(sent).toContain("Use tabs.");
    expect(sent).toContain("[@notes.md not imported: it is a named pipe (FIFO), not a regular file]");
    expect(run.stderr).toContain(
      "AGENTS.md is a named pipe (FIFO), not a regular file; it is not read into the prompt",
    );
    expect(run.stderr).toContain(
      "GEMINI.md links outside the workspace (to /dev/zero); it is not read into the prompt",
    );
  });
});
