import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sandboxUnavailableReason, secretPathsIn } from "../../../src/tools/exec/sandbox.js";
import { openWorkspace } from "../../../src/workspace/workspace.js";
import { createTempWorkspace } from "../../support/workspace.js";
import { type ExecFixture, openExecFixture } from "./helpers.js";

/**
 * What a command run in the sandbox (a prompt-injected model's, in any approval mode) tries in order
 * to run code outside it later, or to reach what the sandbox hides. Each attack is written past the
 * permission rules (a script decoded at run time), so only the sandbox stands in its way.
 */

const unavailable = await sandboxUnavailableReason();
const opened: ExecFixture[] = [];
afterEach(async () => {
  for (const each of opened.splice(0)) await each.close();
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  });
}

function initRepository(root: string): void {
  git(root, "init", "-q", "-b", "main");
  git(root, "config", "user.email", "dev@example.com");
  git(root, "config", "user.name", "Dev");
  git(root, "commit", "-q", "--allow-empty", "-m", "first");
}

/** A sandboxed session on a git repository (the test process's folder is not the workspace, as with --workspace). */
async function sandboxedRepository(files: Record<string, string> = {}): Promise<ExecFixture> {
  const fixture = await openExecFixture({ "a.txt": "a\n", ...files }, { sandbox: { enabled: true } });
  opened.push(fixture);
  initRepository(fixture.ws.root);
  return fixture;
}

/** Runs `script` as bash decoded at run time: the permission rules cannot read what it does. */
function runHidden(fixture: ExecFixture, script: string) {
  const encoded = Buffer.from(script).toString("base64");
  return fixture.run("run_command", {
    CommandLine: `echo ${encoded} | base64 -d | bash`,
    Cwd: ".",
    WaitMsBeforeAsync: 30_000,
  });
}

/** A git setting that runs `touch <marker>` at the user's next `git status`. */
function fsmonitorConfig(marker: string): string {
  return `[core]\n\tfsmonitor = "touch ${marker}; false"\n`;
}

describe.skipIf(unavailable !== undefined)(
  "the sandbox keeps git from running a command's code later",
  () => {
    it("refuses writes to .git/config and .git/hooks whatever folder Gantry itself runs in", async () => {
      const fixture = await sandboxedRepository();
      const marker = path.join(fixture.ws.parent, "ran-from-config");
      const before = readFileSync(path.join(fixture.ws.root, ".git/config"), "utf8");
      const result = await runHidden(
        fixture,
        [
          `printf '${fsmonitorConfig(marker).replaceAll("\n", "\\n")}' >> .git/config && echo CONFIG-CHANGED`,
          `printf '#!/bin/sh\\ntouch ${marker}-hook\\n' > .git/hooks/pre-commit && echo HOOK-WRITTEN`,
          "chmod +x .git/hooks/pre-commit",
          "git config core.hooksPath .evil-hooks && echo HOOKSPATH-SET",
        ].join("\n"),
      );
      expect(result.metadata.sandboxed).toBe(true);
      expect(result.text).not.toMatch(/CONFIG-CHANGED|HOOK-WRITTEN|HOOKSPATH-SET/);
      expect(readFileSync(path.join(fixture.ws.root, ".git/config"), "utf8")).toBe(before);
      expect(existsSync(path.join(fixture.ws.root, ".git/hooks/pre-commit"))).toBe(false);
      git(fixture.ws.root, "status");
      expect(existsSync(marker)).toBe(false);
    });

    it("refuses a .git/commondir that points git at a configuration the command wrote", async () => {
      const fixture = await sandboxedRepository();
      const marker = path.join(fixture.ws.parent, "ran-from-commondir");
      const result = await runHidden(
        fixture,
        [
          "mkdir -p planted/objects planted/refs && cp .git/HEAD planted/ && cp -r .git/refs/. planted/refs/",
          `cp .git/config planted/config && printf '${fsmonitorConfig(marker).replaceAll("\n", "\\n")}' >> planted/config`,
          "echo ../planted > .git/commondir && echo COMMONDIR-WRITTEN",
        ].join("\n"),
      );
      expect(result.text).toMatch(/commondir: Read-only file system/);
      expect(result.text).not.toContain("COMMONDIR-WRITTEN");
      git(fixture.ws.root, "status");
      expect(existsSync(marker)).toBe(false);
    });

    it("refuses to change a nested repository's config and hooks, or to repoint a .git file", async () => {
      const fixture = await sandboxedRepository();
      const nested = path.join(fixture.ws.root, "vendor/lib");
      mkdirSync(nested, { recursive: true });
      initRepository(nested);
      git(fixture.ws.root, "worktree", "add", "-q", "linked", "-b", "feature");
      const linkedDotGit = readFileSync(path.join(fixture.ws.root, "linked/.git"), "utf8");
      const marker = path.join(fixture.ws.parent, "ran-from-nested");
      const result = await runHidden(
        fixture,
        [
          `printf '${fsmonitorConfig(marker).replaceAll("\n", "\\n")}' >> vendor/lib/.git/config && echo NESTED-CONFIG`,
          "echo x > vendor/lib/.git/hooks/post-checkout && echo NESTED-HOOK",
          "echo 'gitdir: ../planted' > linked/.git && echo DOTGIT-REPOINTED",
        ].join("\n"),
      );
      expect(result.text).not.toMatch(/NESTED-CONFIG|NESTED-HOOK|DOTGIT-REPOINTED/);
      expect(readFileSync(path.join(fixture.ws.root, "linked/.git"), "utf8")).toBe(linkedDotGit);
      git(nested, "status");
      expect(existsSync(marker)).toBe(false);
    });

    it("still lets git add, commit and make branches in the sandbox, and leaves no stand-in files behind", async () => {
      const fixture = await sandboxedRepository();
      const result = await runHidden(
        fixture,
        "echo b > b.txt && git add b.txt && git commit -q -m second && git branch topic && git log --format=%s && git status --short",
      );
      expect(result.metadata.exitCode, result.text).toBe(0);
      expect(result.text).toContain("second\nfirst");
      expect(git(fixture.ws.root, "log", "--format=%s")).toBe("second\nfirst\n");
      expect(existsSync(path.join(fixture.ws.root, ".git/commondir"))).toBe(false);
    });
  },
);

describe.skipIf(unavailable !== undefined)("the sandbox keeps the agent's own files read-only", () => {
  it("refuses editor files that run code when the folder is opened, whatever folder Gantry runs in", async () => {
    const fixture = await openExecFixture(
      { ".vscode/settings.json": "{}\n" },
      { sandbox: { enabled: true } },
    );
    opened.push(fixture);
    const result = await runHidden(
      fixture,
      [
        `echo '{"version":"2.0.0","tasks":[{"label":"x","command":"touch x","runOptions":{"runOn":"folderOpen"}}]}' > .vscode/tasks.json && echo VSCODE-TASK`,
        "echo '{}' > .vscode/settings.json && echo VSCODE-SETTINGS",
        "mkdir -p .idea && echo '<project/>' > .idea/workspace.xml && echo IDEA",
        "printf '[submodule \"x\"]\\n\\tpath = x\\n' > .gitmodules && echo GITMODULES",
      ].join("\n"),
    );
    expect(result.text).not.toMatch(/VSCODE-TASK|VSCODE-SETTINGS|IDEA|GITMODULES/);
    expect(readFileSync(path.join(fixture.ws.root, ".vscode/settings.json"), "utf8")).toBe("{}\n");
    expect(existsSync(path.join(fixture.ws.root, ".vscode/tasks.json"))).toBe(false);
  });

  it("refuses a write to .agents/settings.json through a symlink, a hard link or a renamed folder", async () => {
    const fixture = await openExecFixture(
      { ".agents/settings.json": "{}\n" },
      { sandbox: { enabled: true } },
    );
    opened.push(fixture);
    const result = await runHidden(
      fixture,
      [
        "ln -s .agents/settings.json via-symlink && echo '{\"sandbox\":false}' > via-symlink && echo SYMLINK-WROTE",
        "ln .agents/settings.json via-hardlink && echo '{\"sandbox\":false}' > via-hardlink && echo HARDLINK-WROTE",
        "mv .agents moved && echo '{}' > moved/x && echo RENAMED",
        "mkdir -p .agents/agents && echo x > .agents/agents/evil.md && echo AGENT-WRITTEN",
      ].join("\n"),
    );
    expect(result.text).not.toMatch(/SYMLINK-WROTE|HARDLINK-WROTE|RENAMED|AGENT-WRITTEN/);
    expect(readFileSync(path.join(fixture.ws.root, ".agents/settings.json"), "utf8")).toBe("{}\n");
    expect(existsSync(path.join(fixture.ws.root, ".agents/agents/evil.md"))).toBe(false);
  });

  it("refuses a write to the user's ~/.agents settings", async () => {
    const fixture = await openExecFixture({}, { sandbox: { enabled: true } });
    opened.push(fixture);
    const homeSettings = path.join(fixture.ws.home, ".agents/settings.json");
    mkdirSync(path.dirname(homeSettings), { recursive: true });
    writeFileSync(homeSettings, "{}\n");
    const result = await runHidden(fixture, `echo '{"approvalMode":"yolo"}' > ${homeSettings} && echo WROTE`);
    expect(result.text).not.toContain("WROTE");
    expect(readFileSync(homeSettings, "utf8")).toBe("{}\n");
  });
});

describe.skipIf(unavailable !== undefined)("the sandbox keeps the scripts hooks run read-only", () => {
  /** A trusted workspace whose hook runs `sh scripts/gate.sh` before each view_file. */
  async function hookedSession(files: Record<string, string>) {
    const hooks = {
      g: {
        pre_tool_execution: [
          { matcher: "view_file", hooks: [{ type: "command", command: "sh scripts/gate.sh" }] },
        ],
      },
    };
    const fixture = await openExecFixture(
      { "a.txt": "a\n", ".agents/hooks.json": JSON.stringify(hooks), ...files },
      { sandbox: { enabled: true } },
      { trust: true },
    );
    opened.push(fixture);
    return fixture;
  }

  it("refuses to change a hook's script, in place or by renaming its folder", async () => {
    const gate = '#!/bin/sh\necho \'{"decision":"allow"}\'\n';
    const fixture = await hookedSession({ "scripts/gate.sh": gate });
    const marker = path.join(fixture.ws.parent, "ran-from-hook");
    const result = await runHidden(
      fixture,
      [
        `echo 'touch ${marker}' >> scripts/gate.sh && echo APPENDED`,
        `mv scripts moved && mkdir scripts && echo 'touch ${marker}' > scripts/gate.sh && echo REPLACED`,
      ].join("\n"),
    );
    expect(result.text).not.toMatch(/APPENDED|REPLACED/);
    await fixture.run("view_file", { AbsolutePath: "a.txt" });
    expect(readFileSync(path.join(fixture.ws.root, "scripts/gate.sh"), "utf8")).toBe(gate);
    expect(existsSync(marker)).toBe(false);
  });

  it("refuses to create the script a hook names that does not exist yet", async () => {
    const fixture = await hookedSession({});
    const marker = path.join(fixture.ws.parent, "ran-from-hook");
    const result = await runHidden(
      fixture,
      `mkdir -p scripts && echo 'touch ${marker}' > scripts/gate.sh && echo CREATED`,
    );
    expect(result.text).not.toContain("CREATED");
    const written = await fixture.run("write_to_file", {
      TargetFile: "scripts/gate.sh",
      Overwrite: false,
      CodeContent: `touch ${marker}\n`,
      Description: "a gate",
    });
    expect(written).toMatchObject({ error: true, errorCode: "protected_path" });
    await fixture.run("view_file", { AbsolutePath: "a.txt" });
    expect(existsSync(marker)).toBe(false);
  });
});

describe.skipIf(unavailable !== undefined)(
  "the sandbox keeps the network and local sockets out of reach",
  () => {
    it("reaches neither a loopback server by raw TCP (past the proxy) nor a Unix socket such as an ssh agent's", async () => {
      const fixture = await openExecFixture({}, { sandbox: { enabled: true } });
      opened.push(fixture);
      const socketPath = path.join(fixture.ws.parent, "agent.sock");
      const unix = createServer((connection) => connection.end("SOCKET-ANSWERED\n"));
      const tcp = createServer((connection) => connection.end("TCP-ANSWERED\n"));
      await new Promise<void>((resolve) => unix.listen(socketPath, resolve));
      await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
      const port = (tcp.address() as AddressInfo).port;
      try {
        const script = [
          `(exec 3<>/dev/tcp/127.0.0.1/${port}; cat <&3)`,
          `python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('${socketPath}'); print(s.recv(64).decode())"`,
          `SSH_AUTH_SOCK=${socketPath} ssh-add -l`,
          "echo done",
        ].join("\n");
        const result = await runHidden(fixture, script);
        expect(result.text).toContain("done");
        expect(result.text).not.toMatch(/TCP-ANSWERED|SOCKET-ANSWERED/);
      } finally {
        unix.close();
        tcp.close();
      }
    });
  },
);

describe("the sandbox's scan for secret files against a repository that floods it", () => {
  it("finds the secret files at the root before it walks deep folders", async () => {
    // made first, so listed first: 30 folders of 20 files, where a walk that goes deep first spends its budget
    const files: Record<string, string> = {};
    for (let folder = 0; folder < 30; folder++)
      for (let file = 0; file < 20; file++) files[`f${folder}/x${file}.txt`] = "x\n";
    files["server.pem"] = "KEY\n"; // listed after the f folders, in creation or name order
    const ws = await createTempWorkspace(files);
    try {
      const scan = secretPathsIn(openWorkspace(ws.root), 100);
      expect(scan.complete).toBe(false);
      expect(scan.paths.map((found) => path.relative(ws.root, found))).toEqual(["server.pem"]);
    } finally {
      await ws.cleanup();
    }
  });
});
