import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  createCommandSandbox,
  protectedConfigPaths,
  sandboxUnavailableReason,
  secretPathsIn,
} from "../../../src/tools/exec/sandbox.js";
import { openWorkspace } from "../../../src/workspace/workspace.js";
import { runGantryTool } from "../../support/cli.js";
import { createTempWorkspace } from "../../support/workspace.js";
import { type ExecFixture, openExecFixture } from "./helpers.js";

const unavailable = await sandboxUnavailableReason();
let fixture: ExecFixture | undefined;
const opened: ExecFixture[] = [];
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
  for (const each of opened.splice(0)) await each.close();
});

const servers: Server[] = [];
let allowedPort = 0;
let otherPort = 0;
beforeAll(async () => {
  const listen = async () => {
    const server = createServer((_req, res) => res.end("served"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    return (server.address() as AddressInfo).port;
  };
  allowedPort = await listen();
  otherPort = await listen();
});
afterAll(() => {
  for (const server of servers) server.close();
});

const FILES = {
  ".env": "API_KEY=sk-secret-123\n",
  "notes.txt": "plain notes\n",
  ".agents/settings.json": "{}\n",
};

async function runBoth(command: string, settings: Record<string, unknown> = {}) {
  const results = [];
  for (const enabled of [true, false]) {
    const each = await openExecFixture(FILES, { sandbox: { enabled, ...settings } });
    opened.push(each);
    const result = await each.run("run_command", {
      CommandLine: command,
      Cwd: ".",
      WaitMsBeforeAsync: 20_000,
    });
    results.push({ result, root: each.ws.root, parent: each.ws.parent });
  }
  return { sandboxed: results[0] as (typeof results)[0], open: results[1] as (typeof results)[0] };
}

describe.skipIf(unavailable !== undefined)("run_command in the sandbox", () => {
  it("refuses a write outside the workspace, which succeeds without the sandbox", async () => {
    const { sandboxed, open } = await runBoth('echo x > "$(dirname "$PWD")/outside.txt" && echo wrote');
    expect(sandboxed.result.metadata.sandboxed).toBe(true);
    expect(sandboxed.result.metadata.exitCode).not.toBe(0);
    expect(sandboxed.result.text).toMatch(/Read-only file system|Permission denied/);
    expect(existsSync(path.join(sandboxed.parent, "outside.txt"))).toBe(false);
    expect(open.result.text).toContain("wrote");
    expect(readFileSync(path.join(open.parent, "outside.txt"), "utf8")).toBe("x\n");
  });

  it("refuses to read .env, which is readable without the sandbox, while normal work succeeds", async () => {
    const { sandboxed, open } = await runBoth("cat notes.txt; echo made > new.txt && cat new.txt; cat .env");
    expect(sandboxed.result.text).toContain("plain notes\nmade");
    expect(sandboxed.result.text).not.toContain("sk-secret-123");
    expect(sandboxed.result.text).toMatch(/\.env: (Permission denied|No such file)/);
    expect(open.result.text).toContain("sk-secret-123");
  });

  it("refuses a request to a host off the allowlist, reached without the sandbox, and allows a listed one", async () => {
    const command = `curl -sS --max-time 5 http://127.0.0.1:${allowedPort}/; echo; curl -sS --max-time 5 http://127.0.0.1:${otherPort}/`;
    const { sandboxed, open } = await runBoth(command, { allowedDomains: [`127.0.0.1:${allowedPort}`] });
    expect(sandboxed.result.text).toContain("served\nConnection blocked by network allowlist");
    expect(sandboxed.result.text.match(/served/g)?.length).toBe(1);
    expect(open.result.text.match(/served/g)?.length).toBe(2);
  });

  it("keeps the agent's own settings file read-only, which a target the policy cannot see reaches without the sandbox", async () => {
    // named literally, the policy refuses the write before any sandbox is involved (test/policy/protected-commands)
    const { sandboxed, open } = await runBoth(
      'f=.agents/settings.json; echo \'{"sandbox":{"enabled":false}}\' > "$f" && echo changed',
    );
    expect(sandboxed.result.text).not.toContain("changed");
    expect(readFileSync(path.join(sandboxed.root, ".agents/settings.json"), "utf8")).toBe("{}\n");
    expect(open.result.text).toContain("changed");
  });

  it("feeds send_input to a sandboxed command started in the background", async () => {
    fixture = await openExecFixture(FILES, { sandbox: { enabled: true } });
    const started = await fixture.run("run_command", {
      CommandLine: 'while read line; do echo "got $line"; done',
      Cwd: ".",
      WaitMsBeforeAsync: 0,
    });
    expect(started.metadata.sandboxed).toBe(true);
    const fed = await fixture.run("manage_task", {
      Action: "send_input",
      TaskId: started.metadata.taskId as string,
      Input: "hello\n",
    });
    expect(fed.text).toContain("got hello");
  });

  it("is switched on by gantry tool --sandbox", async () => {
    fixture = await openExecFixture(FILES);
    const args = { CommandLine: "cat notes.txt; cat .env", Cwd: ".", WaitMsBeforeAsync: 20_000 };
    const { run, result } = await runGantryTool("run_command", args, {
      workspace: fixture.ws.root,
      env: { HOME: fixture.ws.home },
      extra: ["--sandbox", "--approval-mode", "yolo"],
    });
    expect(result.metadata.sandboxed).toBe(true);
    expect(result.text).toContain("plain notes");
    expect(result.text).not.toContain("sk-secret-123");
    // the bundle loads the sandbox's runtime without Node warning of an experimental API
    expect(run.stderr).toBe("");
  });
});

describe("the sandbox's read-only config paths", () => {
  it("covers the config folders whole, present or not yet, .mcp.json and the scripts hooks run", async () => {
    const ws = await createTempWorkspace({
      ".claude/settings.json": "{}\n",
      ".claude/agents/helper.md": "x\n",
      "scripts/gate.sh": "exit 0\n",
    });
    try {
      const workspace = openWorkspace(ws.root, { protectedPaths: [path.join(ws.root, "scripts/gate.sh")] });
      const paths = protectedConfigPaths(workspace)
        .map((p) => path.relative(ws.root, p))
        .sort();
      // folders that do not exist yet are listed too: the runtime then blocks creating them
      // .codex too: the skills catalog reads .codex/skills
      expect(paths).toEqual([
        ".agents",
        ".claude",
        ".codex",
        ".gemini",
        ".mcp.json",
        ".qwen",
        "scripts/gate.sh",
      ]);
    } finally {
      await ws.cleanup();
    }
  });
});

describe("the sandbox's scan for secret files", () => {
  const files = {
    ".env": "KEY=1\n",
    "a.txt": "a\n",
    "b.txt": "b\n",
    "config/id_rsa": "key\n",
    "config/x.txt": "x\n",
    "node_modules/pkg/index.js": "x\n",
  };

  it("finds the secret files the file tools' guard names, and says when it stopped short", async () => {
    const ws = await createTempWorkspace(files);
    try {
      const workspace = openWorkspace(ws.root);
      const full = secretPathsIn(workspace);
      expect(full.complete).toBe(true);
      expect(full.paths.map((p) => path.relative(ws.root, p)).sort()).toEqual([".env", "config/id_rsa"]);
      expect(secretPathsIn(workspace, 2)).toMatchObject({ complete: false, scanned: 2 });
    } finally {
      await ws.cleanup();
    }
  });

  it.skipIf(unavailable !== undefined)("warns once when a command's scan stops short", async () => {
    const ws = await createTempWorkspace(files);
    const lines: string[] = [];
    const sandbox = createCommandSandbox({
      workspace: openWorkspace(ws.root),
      settings: { enabled: true },
      allowAgentConfigEdits: false,
      log: (line) => lines.push(line),
      maxScannedEntries: 2,
    });
    try {
      for (let i = 0; i < 2; i++) (await sandbox.wrap("true")).release();
      expect(lines).toEqual([
        expect.stringMatching(
          /^sandbox: the scan for secret files stopped after 2 entries of .*; secret files past them stay readable by commands \(list them in sandbox\.denyRead\)$/,
        ),
      ]);
    } finally {
      await sandbox.dispose();
      await ws.cleanup();
    }
  });
});
