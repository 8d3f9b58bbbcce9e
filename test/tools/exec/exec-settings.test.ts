import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadSettings } from "../../../src/config/load.js";
import { createGantrySession, type GantrySession } from "../../../src/gantry.js";
import { isAlive } from "../../../src/tools/exec/process-tree.js";
import { sandboxUnavailableReason } from "../../../src/tools/exec/sandbox.js";
import { resolveExecSettings } from "../../../src/tools/exec/settings.js";
import { resolveWorkspaceTrust } from "../../../src/trust/workspace-trust.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";
import { pidsWith, uniqueMarker } from "./helpers.js";

const unavailable = await sandboxUnavailableReason();
let ws: TempWorkspace | undefined;
let session: GantrySession | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
  ws = undefined;
});

/** A temp workspace whose .agents/settings.json (and the home one, when given) hold `settings`. */
async function workspaceWith(settings: unknown, homeSettings?: unknown): Promise<TempWorkspace> {
  ws = await createTempWorkspace({
    ".env": "API_KEY=sk-secret-123\n",
    ".agents/settings.json": `${JSON.stringify(settings)}\n`,
  });
  if (homeSettings !== undefined) {
    await mkdir(path.join(ws.home, ".agents"));
    await writeFile(path.join(ws.home, ".agents/settings.json"), JSON.stringify(homeSettings));
  }
  return ws;
}

describe("sandbox settings", () => {
  it("accepts `sandbox: true` and `sandbox: false` as shorthands for `enabled`", async () => {
    const on = await workspaceWith({ sandbox: true });
    expect(loadSettings(on.root, on.home).sandbox).toEqual({ enabled: true });
    await on.cleanup();
    const off = await workspaceWith({ sandbox: false });
    // turning the sandbox off is a loosening: only a trusted workspace may say it
    expect(loadSettings(off.root, off.home).sandbox).toBeUndefined();
    const trusted = resolveWorkspaceTrust(off.root, { kind: "given", how: "test" });
    expect(loadSettings(off.root, off.home, trusted).sandbox).toEqual({ enabled: false });
  });

  it("merges the shorthand with the object form of another settings file", async () => {
    const both = await workspaceWith({ sandbox: true }, { sandbox: { allowedDomains: ["127.0.0.1:3000"] } });
    expect(loadSettings(both.root, both.home).sandbox).toEqual({
      enabled: true,
      allowedDomains: ["127.0.0.1:3000"],
    });
  });

  it("rejects any other value with an error naming the setting and the accepted forms", async () => {
    const bad = await workspaceWith({ sandbox: "yes" });
    // an untrusted file's broken value is left out (it cannot stop the session); a trusted one's stops it
    expect(loadSettings(bad.root, bad.home).sandbox).toBeUndefined();
    expect(() =>
      loadSettings(bad.root, bad.home, resolveWorkspaceTrust(bad.root, { kind: "given", how: "test" })),
    ).toThrow(/invalid settings in .*settings\.json: sandbox: expected true, false or an object/);
    await bad.cleanup();
    const badField = await workspaceWith({ sandbox: { allowedDomains: "127.0.0.1:3000" } });
    expect(() =>
      loadSettings(
        badField.root,
        badField.home,
        resolveWorkspaceTrust(badField.root, { kind: "given", how: "test" }),
      ),
    ).toThrow(/sandbox\.allowedDomains: .*expected array/);
  });

  it("turns the sandbox on for the session's commands with `sandbox: true` in .agents/settings.json", async () => {
    const root = await workspaceWith({ sandbox: true });
    session = createGantrySession({ workspace: root.root, home: root.home });
    expect(session.settings.sandbox).toEqual({ enabled: true });
    const result = await session.pipeline.run({
      name: "run_command",
      args: { CommandLine: "echo ran; cat .env", Cwd: ".", WaitMsBeforeAsync: 20_000 },
    });
    expect(result.text).not.toContain("sk-secret-123");
    if (unavailable !== undefined) {
      // fail closed: a sandbox that is on but cannot run refuses the command
      expect(result.text).toContain("the sandbox is on but cannot run here");
    } else {
      expect(result.metadata.sandboxed).toBe(true);
      expect(result.text).toContain("ran");
      expect(result.text).toMatch(/\.env: (Permission denied|No such file)/);
    }
  });
});

/** Lets real I/O and promises run while setTimeout is faked. */
async function settle(until: () => boolean, rounds = 2_000): Promise<boolean> {
  for (let i = 0; i < rounds && !until(); i++) await new Promise((resolve) => setImmediate(resolve));
  return until();
}

describe("command timeout", () => {
  it("defaults to 2 minutes for the foreground wait, and the session's commands end there", async () => {
    expect(resolveExecSettings({}).timeoutMs).toBe(120_000);
    expect(resolveExecSettings({ timeoutMs: 5_000 }).timeoutMs).toBe(5_000);

    const root = await workspaceWith({});
    session = createGantrySession({ workspace: root.root, home: root.home });
    // fake clock for the wait (no 2-minute test); processes, pipes and promises stay real
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
    const marker = uniqueMarker();
    let settled = false;
    const call = session.pipeline
      .run({
        name: "run_command",
        args: { CommandLine: `exec sleep ${marker}`, Cwd: ".", WaitMsBeforeAsync: 600_000 },
      })
      .finally(() => {
        settled = true;
      });
    expect(await settle(() => pidsWith(`sleep ${marker}`).length > 0 && vi.getTimerCount() > 0)).toBe(true);
    const [pid] = pidsWith(`sleep ${marker}`);

    vi.advanceTimersByTime(119_900);
    await settle(() => settled, 200);
    expect(settled).toBe(false);
    expect(isAlive(pid as number)).toBe(true);

    vi.advanceTimersByTime(100);
    vi.useRealTimers();
    const result = await Promise.race([
      call,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 5_000)),
    ]);
    expect(result?.errorCode).toBe("timeout");
    expect(result?.text).toContain("Timed out after 2m 0s");
    expect(isAlive(pid as number)).toBe(false);
  });
});
