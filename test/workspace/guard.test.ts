import { execFileSync } from "node:child_process";
import { link, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

// Every attack goes through the one pipeline with real files, as a model's call would.
let ws: TempWorkspace;
let session: GantrySession;
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  await session?.dispose();
  for (const cleanup of cleanups.splice(0)) await cleanup();
  await ws?.cleanup();
});

async function workspaceWith(files: Record<string, string> = {}) {
  ws = await createTempWorkspace({ "README.md": "inside\n", ...files });
  await writeFile(path.join(ws.parent, "outside.txt"), "OUTSIDE SECRET\n");
  await mkdir(path.join(ws.parent, "outside-dir"));
  await writeFile(path.join(ws.parent, "outside-dir", "file.txt"), "OUTSIDE SECRET\n");
  session = createGantrySession({ workspace: ws.root, home: ws.home });
}

const view = (AbsolutePath: string) => session.pipeline.run({ name: "view_file", args: { AbsolutePath } });
const list = (DirectoryPath: string) => session.pipeline.run({ name: "list_dir", args: { DirectoryPath } });

async function expectRefused(result: Awaited<ReturnType<typeof view>>, code: string) {
  expect(result.error).toBe(true);
  expect(result.errorCode).toBe(code);
  expect(result.text).not.toContain("OUTSIDE SECRET");
  expect(result.text.length).toBeGreaterThan(10); // a reason the model can act on
}

describe("workspace guard: paths that leave the workspace", () => {
  it("refuses .. escapes, however they are spelled", async () => {
    await workspaceWith({ "sub/a.txt": "a" });
    for (const input of [
      "../outside.txt",
      "sub/../../outside.txt",
      "./sub/./../../outside.txt",
      "sub/../..",
    ]) {
      await expectRefused(await view(input), "outside_workspace");
    }
    await expectRefused(await list(".."), "outside_workspace");
    await expectRefused(await list("../outside-dir"), "outside_workspace");
  });

  it("refuses absolute paths outside and accepts absolute paths inside", async () => {
    await workspaceWith();
    await expectRefused(await view(path.join(ws.parent, "outside.txt")), "outside_workspace");
    await expectRefused(await view("/etc/passwd"), "outside_workspace");
    await expectRefused(await list("/"), "outside_workspace");
    expect((await view(path.join(ws.root, "README.md"))).text).toContain("inside");
    expect((await view(`${ws.root}/sub/../README.md`)).text).toContain("inside");
  });

  it("refuses a sibling folder that shares the workspace's name as a prefix (ws_evil next to ws)", async () => {
    await workspaceWith();
    await mkdir(path.join(ws.parent, "ws_evil"));
    await writeFile(path.join(ws.parent, "ws_evil", "loot.txt"), "OUTSIDE SECRET");
    await expectRefused(await view(path.join(ws.parent, "ws_evil", "loot.txt")), "outside_workspace");
    await expectRefused(await view(`${ws.root}_evil/loot.txt`), "outside_workspace");
    await expectRefused(await view("../ws_evil/loot.txt"), "outside_workspace");
    await expectRefused(await list(`${ws.root}_evil`), "outside_workspace");
  });

  it("refuses a symlink whose target leaves the workspace", async () => {
    await workspaceWith();
    await symlink(path.join(ws.parent, "outside.txt"), path.join(ws.root, "link.txt"));
    await symlink("../outside.txt", path.join(ws.root, "relative-link.txt"));
    await expectRefused(await view("link.txt"), "outside_workspace");
    await expectRefused(await view("relative-link.txt"), "outside_workspace");
  });

  it("refuses a file below a symlinked parent folder that points outside", async () => {
    await workspaceWith();
    await symlink(path.join(ws.parent, "outside-dir"), path.join(ws.root, "vendor"));
    await expectRefused(await view("vendor/file.txt"), "outside_workspace");
    await expectRefused(await list("vendor"), "outside_workspace");
    await expectRefused(await view("vendor/not-yet.txt"), "outside_workspace");
  });

  it("follows a symlink chain that stays inside and refuses one that ends outside", async () => {
    await workspaceWith({ "real.txt": "chained inside\n" });
    await symlink("real.txt", path.join(ws.root, "c"));
    await symlink("c", path.join(ws.root, "b"));
    await symlink("b", path.join(ws.root, "a"));
    expect((await view("a")).text).toContain("chained inside");
    await symlink(path.join(ws.parent, "outside.txt"), path.join(ws.root, "z"));
    await symlink("z", path.join(ws.root, "y"));
    await symlink("y", path.join(ws.root, "x"));
    await expectRefused(await view("x"), "outside_workspace");
  });

  it("refuses a dangling symlink, whose target cannot be checked", async () => {
    await workspaceWith();
    await symlink(path.join(ws.parent, "gone.txt"), path.join(ws.root, "dangling"));
    await expectRefused(await view("dangling"), "invalid_path");
    await expectRefused(await view("dangling/child.txt"), "invalid_path");
  });

  it("refuses a symlink loop quickly", async () => {
    await workspaceWith();
    await symlink("loop-b", path.join(ws.root, "loop-a"));
    await symlink("loop-a", path.join(ws.root, "loop-b"));
    await symlink("self", path.join(ws.root, "self"));
    const result = await view("loop-a");
    await expectRefused(result, "invalid_path");
    expect(result.text).toContain("loop");
    await expectRefused(await view("self"), "invalid_path");
  });

  it("refuses a NUL byte or a control character in a path", async () => {
    await workspaceWith();
    await expectRefused(await view("README.md\u0000.txt"), "invalid_path");
    await expectRefused(await view("../outside.txt\u0000"), "invalid_path");
    await expectRefused(await list("sub\ndir"), "invalid_path");
  });
});

describe("workspace guard: special files never block a call", () => {
  it("returns an error at once for a FIFO in the workspace", async () => {
    await workspaceWith();
    execFileSync("mkfifo", [path.join(ws.root, "pipe")]);
    const started = Date.now();
    const timeout = new Promise<"blocked">((resolve) => setTimeout(() => resolve("blocked"), 3000).unref());
    const result = await Promise.race([view("pipe"), timeout]);
    expect(result).not.toBe("blocked");
    await expectRefused(result as Awaited<ReturnType<typeof view>>, "special_file");
    expect(Date.now() - started).toBeLessThan(3000);
    expect((await list(".")).text).toContain("pipe (FIFO)");
  });

  it("refuses a Unix socket in the workspace", async () => {
    await workspaceWith();
    const socketPath = path.join(ws.root, "app.sock");
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
    await expectRefused(await view("app.sock"), "special_file");
  });

  it("refuses device files: a symlink to /dev/zero and /dev paths lie outside", async () => {
    await workspaceWith();
    await symlink("/dev/zero", path.join(ws.root, "zero"));
    await expectRefused(await view("zero"), "outside_workspace");
    await expectRefused(await view("/dev/zero"), "outside_workspace");
    await expectRefused(await view("/dev/stdin"), "outside_workspace");
    await expectRefused(await view("/proc/self/root/etc/passwd"), "outside_workspace");
  });

  it.runIf(canMakeDeviceNodes())(
    "refuses a character device node inside the workspace without reading it",
    async () => {
      await workspaceWith();
      execFileSync("mknod", [path.join(ws.root, "zero-device"), "c", "1", "5"]); // same device as /dev/zero
      await expectRefused(await view("zero-device"), "special_file");
      expect((await list(".")).text).toContain("zero-device (device)");
    },
  );
});

describe("workspace guard: hardlinks", () => {
  // Decision: a hardlink is a name inside the workspace, so reading it is allowed (package managers
  // such as pnpm fill node_modules with hardlinks). Writers see stats.nlink > 1 and must replace the
  // file (temp file + rename) rather than write in place, so the outside name is never changed.
  it("reads a file hardlinked from outside, since its name lies inside the workspace", async () => {
    await workspaceWith();
    await link(path.join(ws.parent, "outside.txt"), path.join(ws.root, "hardlink.txt"));
    const result = await view("hardlink.txt");
    expect(result.error).toBe(false);
    expect(result.text).toContain("OUTSIDE SECRET");
  });
});

describe("workspace guard: secret files are judged on workspace-relative paths", () => {
  it("does not block normal reads when a folder above the workspace is named like a secret", async () => {
    const base = await realpath(await mkdtemp(path.join(tmpdir(), "gantry-secret-parent-")));
    cleanups.push(() => rm(base, { recursive: true, force: true }));
    for (const parentName of ["secrets.key", ".env", "id_rsa.d", ".git"]) {
      const root = path.join(base, parentName, "ws");
      await mkdir(path.join(root, "src"), { recursive: true });
      await writeFile(path.join(root, "src", "main.ts"), "export {};\n");
      const own = createGantrySession({ workspace: root, home: base });
      try {
        const relative = await own.pipeline.run({ name: "view_file", args: { AbsolutePath: "src/main.ts" } });
        expect(relative.error).toBe(false);
        const absolute = await own.pipeline.run({
          name: "view_file",
          args: { AbsolutePath: path.join(root, "src/main.ts") },
        });
        expect(absolute.error).toBe(false);
        const listing = await own.pipeline.run({ name: "list_dir", args: { DirectoryPath: root } });
        expect(listing.text).toContain("src/");
      } finally {
        await own.dispose();
      }
    }
  });

  it("refuses .env files in any case and .env.* variants, but allows the example files", async () => {
    await workspaceWith({
      ".env": "A=1",
      ".ENV.production": "A=1",
      ".env.local": "A=1",
      "app/.env": "A=1",
      ".env.example": "A=example",
      ".env.sample": "A=sample",
      ".env.template": "A=template",
    });
    for (const secret of [
      ".env",
      ".ENV",
      ".Env",
      ".ENV.production",
      ".env.local",
      "app/.env",
      "./app/../.env",
    ]) {
      const result = await view(secret);
      expect(result.errorCode, secret).toMatch(/secret_path|not_found/);
      expect(result.error).toBe(true);
    }
    for (const secret of [".env", ".env.local", "app/.env"])
      await expectRefused(await view(secret), "secret_path");
    expect((await view(".env.example")).text).toContain("A=example");
    expect((await view(".env.sample")).text).toContain("A=sample");
    expect((await view(".env.template")).text).toContain("A=template");
  });

  it("refuses keys, certificates and .git internals", async () => {
    await workspaceWith({
      id_rsa: "KEY",
      "keys/id_ed25519.pub": "KEY",
      "server.pem": "KEY",
      "conf/a.key": "KEY",
      "conf/B.KEY": "KEY",
      ".git/config": "[core]",
      "vault/.netrc": "machine x",
    });
    for (const secret of [
      "id_rsa",
      "keys/id_ed25519.pub",
      "server.pem",
      "conf/a.key",
      "conf/B.KEY",
      ".git/config",
      "vault/.netrc",
    ]) {
      await expectRefused(await view(secret), "secret_path");
    }
    await expectRefused(await list(".git"), "secret_path");
  });

  it("refuses a secret reached through a harmless-looking symlink, and a symlink named like a secret", async () => {
    await workspaceWith({ ".env": "TOKEN=1", "plain.txt": "plain" });
    await symlink(".env", path.join(ws.root, "settings.txt"));
    await symlink("plain.txt", path.join(ws.root, "deploy.pem"));
    await expectRefused(await view("settings.txt"), "secret_path");
    await expectRefused(await view("deploy.pem"), "secret_path");
  });

  it("hides secret entries and .git from list_dir", async () => {
    await workspaceWith({
      ".env": "A=1",
      ".env.example": "A=1",
      id_rsa: "KEY",
      "server.pem": "KEY",
      ".git/HEAD": "ref",
      "src/app.ts": "x",
    });
    const result = await list(".");
    expect(result.error).toBe(false);
    const names = result.text.split("\n");
    expect(names).toContain("src/");
    expect(names.some((line) => line.startsWith(".env.example"))).toBe(true);
    for (const hidden of [".env ", "id_rsa", "server.pem", ".git"]) {
      expect(names.some((line) => line.startsWith(hidden) || line === hidden.trim())).toBe(false);
    }
    expect(result.metadata.hidden).toBe(4);
  });

  it("takes extra secret patterns and exceptions from settings", async () => {
    await workspaceWith({
      "deploy/prod.secret": "X",
      "test/fixtures/cert.pem": "FIXTURE",
      "config/tokens/github.txt": "X",
      "server.pem": "KEY",
    });
    await ws.write(
      ".agents/settings.json",
      JSON.stringify({ secrets: { patterns: ["*.secret", "config/tokens/**"] } }),
    );
    await mkdir(path.join(ws.home, ".agents"), { recursive: true });
    await writeFile(
      path.join(ws.home, ".agents/settings.json"),
      JSON.stringify({ secrets: { allow: ["test/fixtures/*.pem"] } }),
    );
    await session.dispose();
    session = createGantrySession({ workspace: ws.root, home: ws.home });
    await expectRefused(await view("deploy/prod.secret"), "secret_path");
    await expectRefused(await view("config/tokens/github.txt"), "secret_path");
    await expectRefused(await view("server.pem"), "secret_path");
    expect((await view("test/fixtures/cert.pem")).text).toContain("FIXTURE");
  });

  it("a workspace's secrets.allow exempts only its own patterns, never a built-in one, trusted or not", async () => {
    await workspaceWith({ "deploy/prod.secret": "X", "deploy/keep.secret": "OK", "server.pem": "KEY" });
    await ws.write(
      ".agents/settings.json",
      JSON.stringify({ secrets: { patterns: ["*.secret"], allow: ["keep.secret", "*.pem"] } }),
    );
    for (const trust of [false, true]) {
      await session.dispose();
      session = createGantrySession({ workspace: ws.root, home: ws.home, trust });
      await expectRefused(await view("server.pem"), "secret_path");
      await expectRefused(await view("deploy/prod.secret"), "secret_path");
      const kept = await view("deploy/keep.secret");
      if (trust) expect(kept.text).toContain("OK");
      else await expectRefused(kept, "secret_path");
    }
  });
});

function canMakeDeviceNodes(): boolean {
  const probe = path.join(tmpdir(), `gantry-mknod-probe-${process.pid}`);
  try {
    execFileSync("mknod", [probe, "c", "1", "5"], { stdio: "ignore" });
    execFileSync("rm", ["-f", probe]);
    return true;
  } catch {
    return false;
  }
}
