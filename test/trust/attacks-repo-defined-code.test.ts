import { execFileSync } from "node:child_process";
import { chmodSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { everythingStdio } from "../mcp/support.js";
import { runGantry, runGantryTool } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { ran, writeHomeFile } from "./support.js";

// The user's own hooks and MCP servers run in every folder. A command that names no file of the
// repository can still run the repository's code: `npm test` runs the scripts its package.json
// defines, `make` its Makefile, `git status` the `core.fsmonitor` command its .git/config names. In a
// folder not trusted such a hook does not run, and the refusal says which hook and which file.

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

const listDir = { DirectoryPath: "." };
const env = (trusted = false) => ({
  HOME: (ws as TempWorkspace).home,
  GANTRY_TRUST_WORKSPACE: trusted ? "1" : "",
  // git reads no configuration of the machine running the tests
  GIT_CONFIG_NOSYSTEM: "1",
});

async function homeHook(command: string): Promise<void> {
  await writeHomeFile(ws as TempWorkspace, ".agents/hooks.json", {
    mine: { pre_tool_execution: [{ matcher: "", hooks: [{ type: "command", command }] }] },
  });
}

const touchScript = (marker: string) => `node -e "require('fs').writeFileSync('${marker}', '')"`;

/** A workspace whose files make plain commands run its code; every piece touches `marker`. */
async function repositoryDefiningCode(): Promise<string> {
  ws = await createTempWorkspace({});
  const marker = path.join(ws.parent, "PWNED-repo-defined");
  await ws.write(
    "package.json",
    JSON.stringify({ name: "x", scripts: { test: touchScript(marker), mcp: touchScript(marker) } }),
  );
  await ws.write("Makefile", `all:\n\ttouch ${marker}\n`);
  return marker;
}

async function gitRepositoryWithFsmonitor(): Promise<string> {
  ws = await createTempWorkspace({ "README.md": "hi\n" });
  const marker = path.join(ws.parent, "PWNED-fsmonitor");
  const git = (...args: string[]) =>
    execFileSync("git", args, { cwd: (ws as TempWorkspace).root, env: { ...process.env, ...env() } });
  git("init", "-q");
  git("add", "README.md");
  git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init");
  const script = await ws.write("tools/monitor.sh", `#!/bin/sh\ntouch ${marker}\nexit 1\n`);
  chmodSync(script, 0o755);
  git("config", "core.fsmonitor", script);
  return marker;
}

describe("the user's own hook running code the repository defines, in a folder not trusted", () => {
  for (const [command, file, because] of [
    ["npm test", "package.json", "npm test runs the scripts"],
    ["cd . && npm run --silent test", "package.json", "npm run runs the scripts"],
    ["make", "Makefile", "make runs the rules"],
  ] as const) {
    it(`${command}: the code ${file} defines does not run, the refusal names the hook and ${file}`, async () => {
      const marker = await repositoryDefiningCode();
      await homeHook(command);
      const { result } = await runGantryTool("list_dir", listDir, {
        workspace: (ws as TempWorkspace).root,
        env: env(),
      });
      expect(ran(marker)).toBe(false);
      expect(result.errorCode).toBe("denied");
      expect(result.text).toContain(`the hook ${JSON.stringify(command)} was not run`);
      expect(result.text).toContain(`${because} ${file} defines`);
      expect(result.text).toContain("this folder is not trusted");
      expect(result.text).toContain("or change the hook in ~/.agents/hooks.json");
    }, 30_000);
  }

  it("npm test runs when the folder is trusted", async () => {
    const marker = await repositoryDefiningCode();
    await homeHook("npm test");
    await runGantryTool("list_dir", listDir, { workspace: (ws as TempWorkspace).root, env: env(true) });
    expect(ran(marker)).toBe(true);
  }, 30_000);

  it("git status in a repository whose .git/config names a core.fsmonitor command: it does not run", async () => {
    const marker = await gitRepositoryWithFsmonitor();
    await homeHook("git status --short");
    const { result } = await runGantryTool("list_dir", listDir, {
      workspace: (ws as TempWorkspace).root,
      env: env(),
    });
    expect(ran(marker)).toBe(false);
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain("git runs the core.fsmonitor command .git/config defines");
  }, 30_000);

  it("git status runs the fsmonitor when the folder is trusted (the attack above is real)", async () => {
    const marker = await gitRepositoryWithFsmonitor();
    await homeHook("git status --short");
    await runGantryTool("list_dir", listDir, { workspace: (ws as TempWorkspace).root, env: env(true) });
    expect(ran(marker)).toBe(true);
  }, 30_000);

  for (const [command, setup] of [
    ["git status --short", "git"],
    ["make", "none"],
    ["npm test", "none"],
  ] as const) {
    it(`${command} where the repository defines nothing it runs: the hook runs`, async () => {
      ws = await createTempWorkspace({ "README.md": "hi\n" });
      if (setup === "git")
        execFileSync("git", ["init", "-q"], { cwd: ws.root, env: { ...process.env, ...env() } });
      const marker = path.join(ws.parent, "hook-ran");
      await homeHook(`${command} >/dev/null 2>&1; touch ${marker}`);
      const { result } = await runGantryTool("list_dir", listDir, { workspace: ws.root, env: env() });
      expect(result.errorCode).toBeUndefined();
      expect(ran(marker)).toBe(true);
    }, 30_000);
  }
});

describe("the user's own MCP server running code the repository defines, in a folder not trusted", () => {
  it("npm run mcp is not started and gantry mcp list says package.json; the others start", async () => {
    const marker = await repositoryDefiningCode();
    await writeHomeFile(ws as TempWorkspace, ".agents/settings.json", {
      mcpServers: { scripted: { command: "npm", args: ["run", "mcp"] }, everything: everythingStdio() },
    });
    const list = await runGantry(["--workspace", (ws as TempWorkspace).root, "mcp", "list"], {
      env: env(),
      timeoutMs: 60_000,
    });
    expect(ran(marker)).toBe(false);
    const out = list.stdout + list.stderr;
    expect(out).toContain("npm run runs the scripts package.json defines");
    expect(out).toContain("change the server in ~/.agents/settings.json");
    expect(list.stdout).toMatch(/everything {2}✓ connected/);
  }, 90_000);
});
