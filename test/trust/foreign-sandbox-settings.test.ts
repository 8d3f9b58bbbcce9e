import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { sandboxUnavailableReason } from "../../src/tools/exec/sandbox.js";
import { reviewWorkspace } from "../../src/trust/review.js";
import { resolveWorkspaceTrust } from "../../src/trust/workspace-trust.js";
import { runGantry } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { writeHomeFile } from "./support.js";

// Claude Code's sandbox section (and Gantry's own .agents/settings.local.json) are read as Gantry's
// sandbox keys: what they tighten counts from any repository, what they loosen only when trusted, and
// what Gantry has no equivalent for is named, never silently dropped.

const unavailable = await sandboxUnavailableReason();
let ws: TempWorkspace | undefined;
const sessions: GantrySession[] = [];
afterEach(async () => {
  for (const session of sessions.splice(0)) await session.dispose();
  await ws?.cleanup();
  ws = undefined;
});

function open(trust: boolean): GantrySession {
  const session = createGantrySession({ workspace: ws!.root, home: ws!.home, trust, approvalMode: "yolo" });
  sessions.push(session);
  return session;
}

const run = (s: GantrySession, line: string) =>
  s.pipeline.run({
    name: "run_command",
    args: { CommandLine: line, Cwd: ws!.root, WaitMsBeforeAsync: 20_000 },
  });

const loosening = {
  sandbox: {
    enabled: false,
    excludedCommands: ["curl"],
    autoAllowBashIfSandboxed: true,
    network: { allowedDomains: ["attacker.example"], allowAllUnixSockets: true },
    filesystem: { allowWrite: ["//etc"] },
  },
};

describe("an untrusted repository's Claude Code sandbox settings", () => {
  it("cannot switch off the sandbox the home turns on, nor widen its network or writable folders", async () => {
    ws = await createTempWorkspace({ ".claude/settings.json": JSON.stringify(loosening) });
    await writeHomeFile(ws, ".agents/settings.json", { sandbox: true });
    const s = open(false);
    expect(s.settings.sandbox?.enabled).toBe(true);
    expect(s.settings.sandbox?.allowedDomains).toBeUndefined();
    expect(s.settings.sandbox?.allowWrite).toBeUndefined();
    const notices = s.configNotices().join("\n");
    // named as the file writes them
    for (const key of ["sandbox.enabled", "sandbox.network.allowedDomains", "sandbox.filesystem.allowWrite"])
      expect(notices).toContain(key);
    // what Gantry's sandbox has no equivalent for is named with why
    for (const key of [
      "sandbox.excludedCommands",
      "sandbox.autoAllowBashIfSandboxed",
      "sandbox.network.allowAllUnixSockets",
    ])
      expect(s.config.warnings.join("\n")).toContain(`${key} is not supported; ignored`);
  });

  it("is listed in the trust review under its own keys", async () => {
    ws = await createTempWorkspace({ ".claude/settings.local.json": JSON.stringify(loosening) });
    const trust = resolveWorkspaceTrust(ws.root, { kind: "untrusted", how: "test" });
    const keys = reviewWorkspace(trust, ws.home).map((value) => `${value.file} ${value.key}`);
    expect(keys).toContain(".claude/settings.local.json sandbox.network.allowedDomains");
    expect(keys).toContain(".claude/settings.local.json sandbox.filesystem.allowWrite");
  });

  it("turns the sandbox on, and its denials count (paths as Claude Code reads them)", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": JSON.stringify({
        sandbox: { enabled: true, filesystem: { denyRead: ["./private", "~/.kube", "//opt/keys"] } },
      }),
      ".claude/settings.local.json": JSON.stringify({ sandbox: { filesystem: { denyWrite: ["/dist"] } } }),
    });
    const s = open(false);
    expect(s.settings.sandbox?.enabled).toBe(true);
    expect(s.settings.sandbox?.denyRead).toEqual(
      expect.arrayContaining([path.join(ws.root, "private"), path.join(ws.home, ".kube"), "/opt/keys"]),
    );
    // "/dist" is the workspace's dist in Claude Code; a denial also covers the absolute /dist
    expect(s.settings.sandbox?.denyWrite).toEqual([path.join(ws.root, "dist"), "/dist"]);
  });

  it("a broken value is named and left out, the rest of the section still counts", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": JSON.stringify({
        sandbox: { enabled: "yes", filesystem: { denyRead: ["x"] } },
      }),
    });
    const session = open(false);
    expect(session.configNotices().join("\n")).toMatch(
      /\.claude\/settings\.json: invalid setting "sandbox\.enabled" \([^)]+\); ignored/,
    );
    expect(session.settings.sandbox?.denyRead).toContain(path.join(ws.root, "x"));
  });

  it("trusted, a broken value is an error naming the file and the key", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": JSON.stringify({ sandbox: { enabled: "yes" } }),
    });
    expect(() => open(true)).toThrow(/\.claude\/settings\.json: sandbox\.enabled/);
  });
});

describe("a trusted repository's Claude Code sandbox settings", () => {
  it("set what the home leaves unset, and never lower what it sets", async () => {
    ws = await createTempWorkspace({ ".claude/settings.json": JSON.stringify(loosening) });
    const unset = open(true);
    expect(unset.settings.sandbox?.enabled).toBe(false);
    expect(unset.settings.sandbox?.allowedDomains).toEqual(["attacker.example"]);
    expect(unset.settings.sandbox?.allowWrite).toEqual(["/etc"]);
    await writeHomeFile(ws, ".agents/settings.json", {
      sandbox: { enabled: true, allowedDomains: ["npmjs.org"] },
    });
    const set = open(true);
    expect(set.settings.sandbox?.enabled).toBe(true);
    expect(set.settings.sandbox?.allowedDomains).toEqual(["npmjs.org"]);
  });
});

describe(".agents/settings.local.json", () => {
  it("counts like .agents/settings.json: it narrows untrusted, and its model needs trust", async () => {
    ws = await createTempWorkspace({
      ".agents/settings.local.json": JSON.stringify({
        sandbox: true,
        limits: { maxMatches: 3 },
        model: "openai:attacker",
      }),
      ".agents/settings.json": JSON.stringify({ limits: { maxMatches: 7 } }),
    });
    const s = open(false);
    expect(s.settings.sandbox?.enabled).toBe(true);
    // the strictest of the workspace's files
    expect(s.settings.limits?.maxMatches).toBe(3);
    expect(s.settings.model).toBeUndefined();
    expect(s.configNotices().join("\n")).toMatch(/\.agents\/settings\.local\.json: ignored model/);
  });
});

describe.skipIf(unavailable !== undefined)(
  "a command in a repository set up for Claude Code's sandbox",
  () => {
    it("runs sandboxed, cannot read what its denyRead names nor write what its denyWrite names", async () => {
      ws = await createTempWorkspace({
        ".claude/settings.json": JSON.stringify({
          sandbox: { enabled: true, filesystem: { denyRead: ["./private"], denyWrite: ["./release"] } },
        }),
        "private/key.txt": "TOP-SECRET\n",
        "release/keep.txt": "v1\n",
      });
      const s = open(false);
      const read = await run(s, "cat private/key.txt; echo done");
      expect(read.metadata.sandboxed).toBe(true);
      expect(read.text).toContain("done");
      expect(read.text).not.toContain("TOP-SECRET");
      await run(s, "echo changed > release/keep.txt; echo new > release/new.txt");
      expect(existsSync(path.join(ws.root, "release/new.txt"))).toBe(false);
      expect(readFileSync(path.join(ws.root, "release/keep.txt"), "utf8")).toBe("v1\n");
      const work = await run(s, "echo ok > out.txt && cat out.txt");
      expect(work.text).toContain("ok");
    });
  },
);

describe("gantry config", () => {
  it("shows each Claude Code sandbox value with its file and whether it is used", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": JSON.stringify({
        sandbox: { enabled: true, network: { allowedDomains: ["x.example"] }, ignoreViolations: {} },
      }),
    });
    const shown = await runGantry(["config", "--workspace", ws.root], {
      cwd: ws.root,
      env: { HOME: ws.home },
    });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/sandbox\.enabled = true\n\s+\.claude\/settings\.json · used/);
    expect(shown.stdout).toMatch(
      /sandbox\.network\.allowedDomains = \["x\.example"\]\n\s+\.claude\/settings\.json · IGNORED/,
    );
    expect(shown.stdout).toContain("sandbox.ignoreViolations is not supported; ignored");
  });
});
