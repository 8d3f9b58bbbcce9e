import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pidNamespaceArgs } from "../../../src/tools/exec/process-tree.js";
import { REPO_ROOT } from "../../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";
import { pidsWith, uniqueMarker, waitFor } from "./helpers.js";

// These run Gantry (the built dist/) in a child process, so its own death or memory can be observed.
let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

const GANTRY = path.join(REPO_ROOT, "dist/gantry.js");

/** A script that opens a session, runs `command` via run_command, prints the result and peak memory, then runs `then`. */
async function childScript(
  command: string,
  settings: object,
  then: string,
  waitMs = 60_000,
): Promise<string> {
  ws = await createTempWorkspace();
  const file = path.join(ws.parent, "child.mjs");
  await writeFile(
    file,
    `import { readFileSync } from "node:fs";
const { createGantrySession } = await import(${JSON.stringify(GANTRY)});
const session = createGantrySession({ workspace: ${JSON.stringify(ws.root)}, home: ${JSON.stringify(ws.home)}, settings: ${JSON.stringify(settings)} });
const result = await session.pipeline.run({ name: "run_command", args: { CommandLine: ${JSON.stringify(command)}, Cwd: ".", WaitMsBeforeAsync: ${waitMs} } });
const peakKb = Number(/VmHWM:\\s+(\\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]);
console.log(JSON.stringify({ metadata: result.metadata, peakKb }));
${then}
`,
  );
  return file;
}

function runChild(file: string, onLine?: (child: ReturnType<typeof spawn>) => void) {
  return new Promise<{ stdout: string; code: number | null; signal: string | null }>((resolve) => {
    const child = spawn(process.execPath, [file], { stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      if (stdout.includes("\n")) onLine?.(child);
    });
    child.on("close", (code, signal) => resolve({ stdout, code, signal }));
  });
}

describe("process lifetime", () => {
  it("captures a 200 MB output flood without growing Gantry's memory", async () => {
    const baseline = await runChild(await childScript("true", {}, "await session.dispose();"));
    const base = JSON.parse(baseline.stdout);
    await ws?.cleanup();
    const flood = await runChild(
      await childScript("yes | head -c 200000000", {}, "await session.dispose();"),
    );
    const result = JSON.parse(flood.stdout);
    expect(result.metadata.totalBytes).toBe(200_000_000);
    expect(result.metadata.truncated).toBe(true);
    const growthMb = (result.peakKb - base.peakKb) / 1024;
    expect(growthMb).toBeLessThan(64);
  }, 90_000);

  it.runIf(pidNamespaceArgs() !== null)(
    "leaves nothing behind when Gantry itself is killed with SIGKILL",
    async () => {
      const marker = uniqueMarker();
      // the command becomes a background task; the child then idles until it is killed
      const file = await childScript(
        `sleep ${marker} & setsid sleep ${marker} & wait`,
        {},
        "setInterval(() => {}, 1000);",
        500,
      );
      let aliveBefore = -1;
      const ended = runChild(file, (child) => {
        if (aliveBefore === -1) aliveBefore = pidsWith(`sleep ${marker}`).length;
        child.kill("SIGKILL");
      });
      expect((await ended).signal).toBe("SIGKILL");
      expect(JSON.parse((await ended).stdout).metadata.taskId).toBe("t1");
      expect(aliveBefore).toBeGreaterThanOrEqual(2);
      await waitFor(() => pidsWith(marker).length === 0, 3_000);
      expect(pidsWith(marker)).toEqual([]);
    },
  );

  for (const isolation of ["auto", "process-group"] as const) {
    it(`kills its background tasks when Gantry exits without disposing the session (${isolation})`, async () => {
      const marker = uniqueMarker();
      const file = await childScript(`sleep ${marker}`, { exec: { isolation } }, "process.exit(0);", 300);
      const { stdout, code } = await runChild(file);
      expect(code).toBe(0);
      expect(JSON.parse(stdout).metadata).toMatchObject({ taskId: "t1", state: "running" });
      await waitFor(() => pidsWith(marker).length === 0, 3_000);
      expect(pidsWith(marker)).toEqual([]);
    });
  }
});
