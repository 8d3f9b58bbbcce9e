import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runGantry } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

// A command that is done with nothing left running ends the process itself (src/cli/main.ts,
// exitOnceIdle) instead of through Node's teardown; whatever is still open leaves the exit to Node.
// Node's --trace-exit names every exit made by process.exit, so it tells the two apart.

let ws: TempWorkspace;
beforeAll(async () => {
  ws = await createTempWorkspace({ "a.txt": "one\ntwo\n" });
});
afterAll(async () => {
  await ws.cleanup();
});

const EXITED = /Exited the environment with code (\d+)/;
const traced = (args: string[], stdin: "pipe" | "ignore" = "ignore") =>
  runGantry([...args, "--workspace", ws.root], {
    env: { HOME: ws.home, NODE_OPTIONS: "--trace-exit" },
    stdin,
  });

it("a call with nothing left running exits at once, its result whole and its exit code kept", async () => {
  for (const stdin of ["ignore", "pipe"] as const) {
    const run = await traced(["tool", "view_file", '{"AbsolutePath":"a.txt"}'], stdin);
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as { text: string }).text).toBe("    1\tone\n    2\ttwo");
    expect(EXITED.exec(run.stderr)?.[1]).toBe("0");
  }
});

it("a stream still open on a pipe (the usage text on stderr) leaves the exit to Node, the text whole", async () => {
  const run = await traced(["tool"]);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain("gantry tool needs a tool name");
  // the usage's last lines reach the pipe
  expect(run.stderr).toContain("--resume ID");
  expect(run.stderr).not.toMatch(EXITED);
});

// whichever way it exits (the shell it stopped may still be going when the command is done)
it("a command that started a shell and a background process leaves no process behind", async () => {
  const marker = `gantry-idle-exit-${process.pid}`;
  const run = await traced([
    "tool",
    "run_command",
    JSON.stringify({
      CommandLine: `echo hi; (exec -a ${marker} sleep 30 &); sleep 0.1`,
      Cwd: ws.root,
      Blocking: true,
      WaitMsBeforeAsync: 5000,
    }),
    "--approval-mode",
    "yolo",
  ]);
  expect(run.code).toBe(0);
  expect((JSON.parse(run.stdout) as { text: string }).text).toContain("hi");
  expect(execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })).not.toContain(marker);
});
