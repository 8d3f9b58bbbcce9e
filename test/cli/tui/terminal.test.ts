import { spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GANTRY_BIN } from "../../support/cli.js";
import { type ModelServer, startModelServer } from "../../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

/**
 * Drives `gantry` in a real pseudo-terminal (Python's pty module): each step waits until the output
 * holds a text, then types keys. Prints everything the terminal showed, then the exit code.
 */
const PTY_DRIVER = `
import json, os, pty, select, sys, time
steps = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
out = b""
def read_until(text, timeout=30):
    global out
    end = time.time() + timeout
    while text.encode() not in out and time.time() < end:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                out += os.read(fd, 4096)
            except OSError:
                return
for wait, keys in steps:
    read_until(wait)
    os.write(fd, keys.encode())
read_until("\\x00", 5)
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.stdout.write("\\nEXIT %d\\n" % os.waitstatus_to_exitcode(status))
`;
const HAS_PYTHON = spawnSync("python3", ["-c", "import pty"]).status === 0;

let server: ModelServer | undefined;
let ws: TempWorkspace | undefined;
afterEach(async () => {
  await server?.close();
  await ws?.cleanup();
  server = undefined;
  ws = undefined;
});

function runInTerminal(steps: [string, string][], args: string[], home: string): Promise<string> {
  const child = spawn(
    "python3",
    ["-c", PTY_DRIVER, JSON.stringify(steps), process.execPath, GANTRY_BIN, ...args],
    {
      env: { ...process.env, HOME: home, OPENAI_API_KEY: "test-key", NO_COLOR: "" },
    },
  );
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
  return new Promise((resolve) =>
    child.on("close", () => {
      clearTimeout(timer);
      resolve(out);
    }),
  );
}

describe.skipIf(!HAS_PYTHON)("gantry in a terminal", () => {
  it("asks permission at the prompt's terminal, colours the diff, and ends on Ctrl-C", {
    timeout: 120_000,
  }, async () => {
    ws = await createTempWorkspace({ "a.txt": "old\n" });
    const file = path.join(ws.root, "a.txt");
    server = await startModelServer([
      { toolCalls: [{ name: "view_file", args: { AbsolutePath: file } }] },
      {
        toolCalls: [
          {
            name: "write_to_file",
            args: { TargetFile: file, Overwrite: true, CodeContent: "new\n", Description: "rewrite" },
          },
        ],
      },
      { text: "Wrote it." },
    ]);
    const args = [
      "--model",
      "openai:test-model",
      "--base-url",
      server.baseUrl("openai"),
      "--workspace",
      ws.root,
    ];
    const screen = await runInTerminal(
      [
        ["> ", "rewrite a.txt\r"],
        ["choice> ", "y\r"],
        ["Wrote it.", ""],
        ["out)", "\x03"],
      ],
      args,
      ws.home,
    );
    expect(screen).toContain("Permission needed: write_to_file");
    expect(screen).toContain("\x1b[32m    +new\x1b[0m");
    expect(screen).toContain("\x1b[31m    -old\x1b[0m");
    expect(screen).toMatch(/EXIT 0\n$/);
    expect(readFileSync(file, "utf8")).toBe("new\n");
    server.assertDone();
    const sessions = path.join(ws.home, ".gantry", "sessions");
    expect(readdirSync(sessions)).toHaveLength(1);
  });
});
