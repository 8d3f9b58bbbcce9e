import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type CliRun, runGantry } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { writeHomeFile } from "./support.js";

// A repository must not be able to stop Gantry from running in its folder. A value of the wrong type in a
// workspace file trust does not cover used to throw "invalid settings in …", and every run there failed.
// Such a key is now left out with a warning naming the file, the key and the problem; the rest of the
// file counts as an untrusted file's keys do (its narrowing keys still narrow). A file the user vouched
// for (home, or a trusted folder) still stops the run: a typo there must be fixed, not skipped.

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

const env = () => ({ HOME: (ws as TempWorkspace).home, GANTRY_TRUST_WORKSPACE: "" });

/** The user's home says yolo: only a workspace's deny rule can keep a command from running. */
async function homeAllowsTouch(): Promise<void> {
  await writeHomeFile(ws as TempWorkspace, ".agents/settings.json", { approvalMode: "yolo" });
}

/** `gantry tool run_command touch <name>`; whether the file was made. */
async function touch(name: string, extra: string[] = []): Promise<{ run: CliRun; made: boolean }> {
  const root = (ws as TempWorkspace).root;
  const args = JSON.stringify({ CommandLine: `touch ${name}`, Cwd: root, WaitMsBeforeAsync: 10_000 });
  const run = await runGantry(["tool", "run_command", args, "--workspace", root, ...extra], { env: env() });
  return { run, made: existsSync(path.join(root, name)) };
}

describe("a broken value in an untrusted workspace file is left out, not fatal", () => {
  it(".agents/settings.json with a bad limit and a bad model: the run goes on, its deny rule still counts", async () => {
    ws = await createTempWorkspace({});
    await homeAllowsTouch();
    await ws.write(
      ".agents/settings.json",
      JSON.stringify({
        limits: { maxOutputChars: 0 },
        model: 5,
        permissions: { deny: ["Bash(touch denied)"] },
      }),
    );
    const denied = await touch("denied");
    expect(denied.run.code, denied.run.stderr).toBe(0);
    expect(denied.made).toBe(false);
    expect(denied.run.stderr).toMatch(
      /\.agents\/settings\.json: invalid setting "limits\.maxOutputChars" \([^)]+\); ignored/,
    );
    expect(denied.run.stderr).toMatch(/\.agents\/settings\.json: invalid setting "model" \([^)]+\); ignored/);
    const allowed = await touch("allowed");
    expect(allowed.made, allowed.run.stdout + allowed.run.stderr).toBe(true);
  });

  it(".claude/settings.json with a bad sandbox and env value: the run goes on, its other keys apply", async () => {
    ws = await createTempWorkspace({});
    await homeAllowsTouch();
    await ws.write(
      ".claude/settings.json",
      JSON.stringify({
        sandbox: { network: { allowedDomains: "example.com" } },
        env: { GOOD: "yes", BAD: 5 },
        permissions: { deny: ["Bash(touch denied)"] },
      }),
    );
    const denied = await touch("denied");
    expect(denied.run.code, denied.run.stderr).toBe(0);
    expect(denied.made).toBe(false);
    expect(denied.run.stderr).toMatch(
      /\.claude\/settings\.json: invalid setting "sandbox\.network\.allowedDomains" \([^)]+\); ignored/,
    );
    expect(denied.run.stderr).toMatch(
      /\.claude\/settings\.json: invalid setting "env\.BAD" \([^)]+\); ignored/,
    );
  });

  it(".claude/settings.local.json with a broken permissions section and an unknown mode: the run goes on, named", async () => {
    ws = await createTempWorkspace({});
    await homeAllowsTouch();
    await ws.write(
      ".claude/settings.local.json",
      JSON.stringify({
        permissions: { deny: ["Bash(touch denied)", 5], allow: "Bash", defaultMode: "bogus" },
      }),
    );
    const denied = await touch("denied");
    expect(denied.run.code, denied.run.stderr).toBe(0);
    const shown = ".claude/settings.local.json";
    expect(denied.run.stderr).toContain(`${shown}: invalid setting "permissions.deny.1" (`);
    expect(denied.run.stderr).toContain(`${shown}: invalid setting "permissions.allow" (`);
    expect(denied.run.stderr).toMatch(
      /permissions\.defaultMode in \.claude\/settings\.local\.json: unknown approval mode "bogus"[^\n]*ignored/,
    );
    // the rest of its deny list still narrows
    expect(denied.made).toBe(false);
    expect(denied.run.stdout).toContain("Denied by rule deny Bash(touch denied)");
  });

  it("every workspace config file broken at once, not JSON at all: the run goes on and names each", async () => {
    ws = await createTempWorkspace({ "a.txt": "a\n" });
    const broken = [
      ".agents/settings.json",
      ".agents/settings.local.json",
      ".claude/settings.json",
      ".claude/settings.local.json",
      ".agents/hooks.json",
      ".gemini/settings.json",
      ".qwen/settings.json",
      ".mcp.json",
    ];
    for (const rel of broken) await ws.write(rel, "{ not json");
    await ws.write(".claude/agents/bad.md", "---\nname: [unclosed\n---\nbody\n");
    await ws.write(".claude/commands/bad.toml", "prompt = [unclosed\n");
    const run = await runGantry(
      ["tool", "list_dir", JSON.stringify({ DirectoryPath: "." }), "--workspace", ws.root],
      {
        env: env(),
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("a.txt");
    for (const rel of broken) expect(run.stderr).toContain(rel);
  });
});

describe("a broken value the user vouched for still stops the run", () => {
  it("in ~/.agents/settings.json", async () => {
    ws = await createTempWorkspace({});
    await writeHomeFile(ws, ".agents/settings.json", { model: 5 });
    const run = await touch("x");
    expect(run.run.code).not.toBe(0);
    expect(run.run.stderr).toMatch(/invalid settings in ~\/\.agents\/settings\.json: model:/);
  });

  it("in a trusted workspace's .agents/settings.json and .claude/settings.json", async () => {
    ws = await createTempWorkspace({});
    await ws.write(".agents/settings.json", JSON.stringify({ limits: { maxOutputChars: 0 } }));
    const agents = await touch("x", ["--trust"]);
    expect(agents.run.code).not.toBe(0);
    expect(agents.run.stderr).toMatch(
      /invalid settings in \.agents\/settings\.json: limits\.maxOutputChars:/,
    );
    await ws.write(".agents/settings.json", "{}");
    await ws.write(".claude/settings.json", JSON.stringify({ env: { BAD: 5 } }));
    const claude = await touch("x", ["--trust"]);
    expect(claude.run.code).not.toBe(0);
    expect(claude.run.stderr).toMatch(/invalid settings in \.claude\/settings\.json: env\.BAD:/);
    await ws.write(".claude/settings.json", JSON.stringify({ permissions: { deny: "Bash(x)" } }));
    const permissions = await touch("x", ["--trust"]);
    expect(permissions.run.code).not.toBe(0);
    expect(permissions.run.stderr).toMatch(
      /invalid permissions in \.claude\/settings\.json: permissions\.deny:/,
    );
  });
});
