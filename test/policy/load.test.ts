import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { loadPermissionSettings } from "../../src/policy/load.js";
import { resolveWorkspaceTrust } from "../../src/trust/workspace-trust.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;
afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
});

/** A `.claude/settings.json` as Claude Code projects commit it, byte for byte. */
const CLAUDE_PROJECT_SETTINGS = `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": [
      "Bash(npm run lint)",
      "Bash(npm run test:*)",
      "Bash(ls:*)",
      "Edit(src/**)",
      "WebFetch(domain:docs.example.com)"
    ],
    "ask": ["Bash(git push:*)"],
    "deny": [
      "Bash(curl:*)",
      "Read(./.env)",
      "Read(./secrets/**)",
      "WebFetch"
    ],
    "defaultMode": "acceptEdits"
  },
  "env": { "NODE_ENV": "test" },
  "hooks": {}
}
`;

describe("loading permission settings", () => {
  it("combines the rules of every file, each named by its file", async () => {
    ws = await createTempWorkspace({
      ".agents/settings.json": JSON.stringify({ permissions: { allow: ["Bash(make:*)"] } }),
      ".agents/settings.local.json": JSON.stringify({ permissions: { allow: ["Bash(git status)"] } }),
      ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Bash(curl:*)"] } }),
      ".claude/settings.local.json": JSON.stringify({ permissions: { ask: ["Edit"] } }),
    });
    await writeHome(ws, { permissions: { allow: ["WebSearch"], deny: ["Read(~/.ssh/**)"] } });
    await writeHome(ws, { permissions: { allow: ["Bash(git log:*)"] } }, ".claude");
    // ~/.claude/settings.json is Claude Code's own user file: not read
    const trust = resolveWorkspaceTrust(ws.root, { kind: "given", how: "the test trusts it" });
    const loaded = loadPermissionSettings({ workspaceRoot: ws.root, home: ws.home, trust });
    expect(loaded.entries.map((e) => `${e.kind} ${e.text} [${e.origin}]`)).toEqual([
      "deny Read(~/.ssh/**) [~/.agents/settings.json]",
      "allow WebSearch [~/.agents/settings.json]",
      "allow Bash(make:*) [.agents/settings.json]",
      "allow Bash(git status) [.agents/settings.local.json]",
      "deny Bash(curl:*) [.claude/settings.json]",
      "ask Edit [.claude/settings.local.json]",
    ]);
  });

  it("takes the mode from the flag, then approvalMode, then permissions.defaultMode", async () => {
    ws = await createTempWorkspace({
      ".agents/settings.json": JSON.stringify({ approvalMode: "plan" }),
      ".claude/settings.json": JSON.stringify({ permissions: { defaultMode: "acceptEdits" } }),
    });
    session = createGantrySession({ workspace: ws.root, home: ws.home, trust: true });
    expect([session.permissions.mode, session.permissions.modeSource]).toEqual([
      "plan",
      "approvalMode in .agents/settings.json",
    ]);
    await session.dispose();
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      trust: true,
      approvalMode: "default",
    });
    expect(session.permissions.mode).toBe("default");
  });

  it("ignores yolo from a workspace file (a cloned repository must not disarm the user) but takes it from home", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": JSON.stringify({ permissions: { defaultMode: "bypassPermissions" } }),
    });
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      trust: true,
      defaultApprovalMode: "default",
    });
    expect(session.permissions.mode).toBe("default");
    expect(session.permissions.warnings[0]).toContain(
      "permissions.defaultMode in .claude/settings.json asks for yolo; ignored",
    );
    await session.dispose();
    await writeHome(ws, { approvalMode: "yolo" });
    session = createGantrySession({ workspace: ws.root, home: ws.home, trust: true });
    expect(session.permissions.mode).toBe("yolo");
  });

  it("refuses a broken permissions section, naming the file", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": JSON.stringify({ permissions: { allow: "Bash" } }),
    });
    expect(() => createGantrySession({ workspace: ws.root, home: ws.home, trust: true })).toThrow(
      /invalid permissions in .*\.claude\/settings\.json: permissions\.allow: Invalid input/,
    );
  });

  it("a library session without rules or a mode has no policy: every call runs, as before", async () => {
    ws = await createTempWorkspace({});
    session = createGantrySession({ workspace: ws.root, home: ws.home, trust: true });
    expect(session.permissions.mode).toBeUndefined();
    const result = await session.pipeline.run({
      name: "write_to_file",
      args: { TargetFile: "a.txt", Overwrite: false, CodeContent: "hi\n", Description: "create" },
    });
    expect(result.error).toBe(false);
  });
});

describe("permissions.disableBypassPermissionsMode switches yolo off, from any file (it only narrows)", () => {
  const DISABLED = { permissions: { disableBypassPermissionsMode: "disable" } };

  it("refuses --approval-mode yolo, naming the file and the fix", async () => {
    ws = await createTempWorkspace({ ".claude/settings.json": JSON.stringify(DISABLED) });
    // an untrusted repository may narrow: its switch counts without trust
    expect(() => createGantrySession({ workspace: ws.root, home: ws.home, approvalMode: "yolo" })).toThrow(
      /--approval-mode yolo is switched off by permissions\.disableBypassPermissionsMode in \.claude\/settings\.json.*default, auto-edit or plan/,
    );
  });

  it("keeps the user's own yolo from running, and says so", async () => {
    ws = await createTempWorkspace({ ".agents/settings.json": JSON.stringify(DISABLED) });
    await writeHome(ws, { approvalMode: "yolo" });
    session = createGantrySession({ workspace: ws.root, home: ws.home, defaultApprovalMode: "default" });
    expect(session.permissions.mode).toBe("default");
    expect(session.permissions.yoloDisabledBy).toBe(
      "permissions.disableBypassPermissionsMode in .agents/settings.json",
    );
    expect(session.configNotices().join("\n")).toMatch(
      /approvalMode in ~\/\.agents\/settings\.json asks for yolo; ignored, yolo is switched off by permissions\.disableBypassPermissionsMode in \.agents\/settings\.json/,
    );
    const line = session.config.values.find((value) => value.key === "approvalMode");
    expect(line).toMatchObject({ honoured: false, file: "~/.agents/settings.json" });
  });

  it("says once that a trusted workspace file's yolo is ignored", async () => {
    ws = await createTempWorkspace({
      ".agents/settings.json": JSON.stringify({ approvalMode: "yolo", ...DISABLED }),
    });
    session = createGantrySession({ workspace: ws.root, home: ws.home, trust: true });
    const lines = session.configNotices().filter((line) => line.includes("approvalMode"));
    expect(lines).toEqual([
      ".agents/settings.json: ignored approvalMode (yolo is switched off by permissions.disableBypassPermissionsMode in .agents/settings.json)",
    ]);
  });

  it("refuses yolo chosen mid-session (Shift-Tab, /mode, ACP, the SDK all set it here) and keeps the mode", async () => {
    ws = await createTempWorkspace({});
    await writeHome(ws, DISABLED);
    session = createGantrySession({ workspace: ws.root, home: ws.home, approvalMode: "auto-edit" });
    expect(() => session?.permissions.setMode("yolo", "set in this session")).toThrow(
      /yolo is switched off by permissions\.disableBypassPermissionsMode in ~\/\.agents\/settings\.json/,
    );
    expect(session.permissions.mode).toBe("auto-edit");
    session.permissions.setMode("plan", "set in this session");
    expect(session.permissions.mode).toBe("plan");
  });

  it("refuses a library session's default mode yolo only where it would be used", async () => {
    ws = await createTempWorkspace({ ".agents/settings.json": JSON.stringify(DISABLED) });
    expect(() =>
      createGantrySession({ workspace: ws.root, home: ws.home, defaultApprovalMode: "yolo" }),
    ).toThrow(/the default approval mode yolo is switched off by permissions\.disableBypassPermissionsMode/);
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      approvalMode: "plan",
      defaultApprovalMode: "yolo",
    });
    expect(session.permissions.mode).toBe("plan");
  });

  it("refuses any other value in a trusted file, naming the file; an untrusted file's is named and left out", async () => {
    ws = await createTempWorkspace({
      ".agents/settings.json": JSON.stringify({ permissions: { disableBypassPermissionsMode: true } }),
    });
    expect(() => createGantrySession({ workspace: ws.root, home: ws.home, trust: true })).toThrow(
      /\.agents\/settings\.json.*permissions\.disableBypassPermissionsMode.*"disable"/,
    );
    session = createGantrySession({ workspace: ws.root, home: ws.home });
    expect(session.configNotices().join("\n")).toMatch(
      /\.agents\/settings\.json: invalid setting "permissions\.disableBypassPermissionsMode" \(.*"disable".*\); ignored/,
    );
  });
});

describe("permission keys Gantry does not use are reported, never silently dropped", () => {
  it("names additionalDirectories (from .agents and .claude files) as not supported", async () => {
    ws = await createTempWorkspace({
      ".agents/settings.json": JSON.stringify({ permissions: { additionalDirectories: ["../shared"] } }),
      ".claude/settings.json": JSON.stringify({ permissions: { additionalDirectories: ["/etc"] } }),
    });
    session = createGantrySession({ workspace: ws.root, home: ws.home });
    const notices = session.configNotices().join("\n");
    expect(notices).toMatch(
      /permissions\.additionalDirectories in \.agents\/settings\.json is not supported.*workspace/,
    );
    expect(notices).toMatch(
      /permissions\.additionalDirectories in \.claude\/settings\.json is not supported/,
    );
  });

  it("warns of an unknown key in the permissions of .agents/settings.json, with the nearest name", async () => {
    ws = await createTempWorkspace({
      ".agents/settings.json": JSON.stringify({ permissions: { alow: ["Bash(ls)"] } }),
    });
    session = createGantrySession({ workspace: ws.root, home: ws.home });
    expect(session.configNotices().join("\n")).toMatch(
      /unknown setting "permissions\.alow" \(did you mean "allow"\?\); ignored/,
    );
  });
});

describe("a .claude/settings.json from a Claude Code project works unchanged", () => {
  it("allows, asks and denies as Claude Code would, with acceptEdits as auto-edit", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": CLAUDE_PROJECT_SETTINGS,
      "src/app.ts": "export const x = 1;\n",
      "secrets/token.txt": "t0ken\n",
      "README.md": "# app\n",
    });
    session = createGantrySession({ workspace: ws.root, home: ws.home, trust: true });
    expect(session.permissions.mode).toBe("auto-edit");
    const run = (name: string, args: Record<string, unknown>) => session!.pipeline.run({ name, args });

    expect((await run("view_file", { AbsolutePath: "src/app.ts" })).error).toBe(false);
    const edit = await run("write_to_file", {
      TargetFile: "src/app.ts",
      Overwrite: true,
      CodeContent: "export const x = 2;\n",
      Description: "bump",
    });
    expect(edit.text).not.toContain("Denied");
    expect(edit.error).toBe(false);
    expect(await readFile(path.join(ws.root, "src/app.ts"), "utf8")).toBe("export const x = 2;\n");

    const secret = await run("view_file", { AbsolutePath: "src/../secrets/token.txt" });
    expect(secret.text).toBe(
      'Denied by rule deny Read(./secrets/**) (.claude/settings.json): "src/../secrets/token.txt" matches it',
    );
    expect((await run("view_file", { AbsolutePath: "README.md" })).error).toBe(false);

    const command = (line: string) =>
      run("run_command", { CommandLine: line, Cwd: ws.root, WaitMsBeforeAsync: 10_000 });
    const listed = await command("ls src");
    expect(listed.error).toBe(false);
    expect(listed.text).toContain("app.ts");
    expect((await command("ls src && curl -s http://127.0.0.1:9/")).text).toContain(
      'Denied by rule deny Bash(curl:*) (.claude/settings.json): "curl -s http://127.0.0.1:9/" matches it',
    );
    expect((await command("git push origin main")).text).toContain(
      'Denied by rule ask Bash(git push:*) (.claude/settings.json): "git push origin main" matches it. Nobody can answer',
    );

    const list = await run("list_permissions", {});
    expect(list.text).toContain("Approval mode: auto-edit");
    expect(list.text).toContain("deny  Read(./secrets/**)  [.claude/settings.json]");
    expect(list.text).toContain("allow Bash(npm run test:*)  [.claude/settings.json]");
    expect(list.metadata.ruleErrors).toEqual([]);
  });
});

async function writeHome(ws: TempWorkspace, settings: unknown, folder = ".agents"): Promise<void> {
  const { mkdir, writeFile } = await import("node:fs/promises");
  await mkdir(path.join(ws.home, folder), { recursive: true });
  await writeFile(path.join(ws.home, folder, "settings.json"), JSON.stringify(settings));
}
