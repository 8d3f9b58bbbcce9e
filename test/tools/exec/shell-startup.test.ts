import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../../src/gantry.js";
import { type IsolationSetting, spawnProcessTree } from "../../../src/tools/exec/process-tree.js";
import { sandboxUnavailableReason } from "../../../src/tools/exec/sandbox.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

/** The output of `script` run as a command with stdin open, by a Gantry whose environment has no SHLVL. */
async function runWithoutShellLevel(isolation: IsolationSetting, home: string, cwd: string): Promise<string> {
  const { SHLVL: _level, ...withoutLevel } = process.env;
  const tree = spawnProcessTree({
    script: "echo ran",
    cwd,
    env: { ...withoutLevel, HOME: home },
    isolation,
    stdin: "pipe",
  });
  let output = "";
  tree.child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  tree.child.stdin?.end();
  await tree.exited;
  return output;
}

// bash reads ~/.bashrc for `bash -c` when stdin is a socket (Node's pipes are socket pairs) and SHLVL is
// unset (Gantry started by an editor, a service, a container): a command must not depend on that
describe("commands: the user's ~/.bashrc stays out however Gantry was started", () => {
  for (const isolation of ["process-group", "auto"] as const)
    it(`runs a command with stdin open without reading ~/.bashrc (${isolation})`, async () => {
      ws = await createTempWorkspace();
      writeFileSync(path.join(ws.home, ".bashrc"), 'echo from-bashrc\ntouch "$HOME/bashrc-ran"\n');
      const output = await runWithoutShellLevel(isolation, ws.home, ws.root);
      expect(output).toBe("ran\n");
      expect(existsSync(path.join(ws.home, "bashrc-ran"))).toBe(false);
    });
});

const sandboxUnavailable = await sandboxUnavailableReason();

describe.skipIf(sandboxUnavailable !== undefined)("sandboxed commands: the same", () => {
  const saved = { SHLVL: process.env.SHLVL, HOME: process.env.HOME };
  let session: GantrySession | undefined;
  afterEach(async () => {
    await session?.dispose();
    session = undefined;
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it("runs a sandboxed command with stdin open without its shell reading ~/.bashrc", async () => {
    ws = await createTempWorkspace();
    writeFileSync(path.join(ws.home, ".bashrc"), "echo from-bashrc\n");
    // commands get Gantry's own environment: this one was started without SHLVL, with that home
    delete process.env.SHLVL;
    process.env.HOME = ws.home;
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      settings: { sandbox: { enabled: true } },
    });
    const run = (name: string, args: Record<string, unknown>) =>
      (session as GantrySession).pipeline.run({ name, args });
    const started = await run("run_command", { CommandLine: "echo ran", Cwd: ".", WaitMsBeforeAsync: 0 });
    expect(started.metadata.sandboxed).toBe(true);
    const taskId = started.metadata.taskId as string;
    // status gives the output since the last look: keep every look's, until the task has ended
    let seen = "";
    for (let look = 0; look < 200 && !/Task \S+ finished/.test(seen); look++) {
      seen += (await run("manage_task", { Action: "status", TaskId: taskId })).text;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(seen).toMatch(/Task \S+ finished/);
    expect(seen).toContain("ran");
    expect(seen).not.toContain("from-bashrc");
  });
});
