import { symlinkSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runGantry } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

// A configuration file that is a device (a link to /dev/zero) must not exhaust memory at start.

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

const listDir = JSON.stringify({ DirectoryPath: "." });

describe("a config file that links to a device", () => {
  it(".agents/hooks.json -> /dev/zero: the run goes on, the file is named as ignored", async () => {
    ws = await createTempWorkspace({ "a.txt": "a\n" });
    await mkdir(path.join(ws.root, ".agents"), { recursive: true });
    symlinkSync("/dev/zero", path.join(ws.root, ".agents/hooks.json"));
    const run = await runGantry(["tool", "list_dir", listDir, "--workspace", ws.root], {
      env: { HOME: ws.home, GANTRY_TRUST_WORKSPACE: "" },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("a.txt");
    expect(run.stderr).not.toContain("bad_alloc");
  });

  it(".agents/settings.json -> /dev/zero: the run goes on, the file named as not read, no crash", async () => {
    ws = await createTempWorkspace({});
    await mkdir(path.join(ws.root, ".agents"), { recursive: true });
    symlinkSync("/dev/zero", path.join(ws.root, ".agents/settings.json"));
    const run = await runGantry(["tool", "list_dir", listDir, "--workspace", ws.root], {
      env: { HOME: ws.home, GANTRY_TRUST_WORKSPACE: "" },
    });
    expect(run.stderr).not.toContain("bad_alloc");
    expect(run.signal).toBeNull();
    // an untrusted workspace's file cannot stop the run: it is named and left out
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(".agents/settings.json is not a regular file (a device or socket)");
  });
});
