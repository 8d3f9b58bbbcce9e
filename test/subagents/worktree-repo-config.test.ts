import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  collectWorktreeChanges,
  createAgentWorktree,
  removeAgentWorktree,
} from "../../src/subagents/worktree.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { initRepo } from "./support/git.js";

// A workspace's .git folder is the repository's to write: a folder that arrives as an archive, or whose
// .git/config a script changed, may name commands git runs. Gantry's own git calls (an agent's worktree)
// must run none of them: the user never approved them and they would run outside sandbox and policy.

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

const gitConfig = (root: string, ...args: string[]) =>
  execFileSync("git", ["-C", root, "config", ...args], { stdio: "pipe" });

/** A script that appends its name to `marker`, so a test sees whether git ran it. */
function markerScript(dir: string, name: string, marker: string, passStdin = false): string {
  const file = path.join(dir, name);
  writeFileSync(file, `#!/bin/sh\necho ${name} >> '${marker}'\n${passStdin ? "cat\n" : ""}`);
  chmodSync(file, 0o755);
  return file;
}

describe("an agent worktree runs no command the repository's configuration names", () => {
  it("runs no hook, fsmonitor, filter or diff driver from .git/config or a file it includes", async () => {
    ws = await createTempWorkspace({ "a.txt": "one\n", ".gitattributes": "*.txt filter=evil diff=evil\n" });
    initRepo(ws.root);
    const marker = path.join(ws.parent, "ran");
    const scripts = path.join(ws.parent, "scripts");
    mkdirSync(scripts);
    const hooks = path.join(ws.root, ".git", "hooks");
    markerScript(hooks, "post-checkout", marker);
    markerScript(hooks, "pre-auto-gc", marker);
    gitConfig(ws.root, "core.fsmonitor", markerScript(scripts, "fsmonitor", marker));
    gitConfig(ws.root, "diff.external", markerScript(scripts, "external-diff", marker));
    // an included file is read as the repository's own configuration
    const included = path.join(ws.parent, "included.gitconfig");
    writeFileSync(
      included,
      [
        '[filter "evil"]',
        `\tsmudge = ${markerScript(scripts, "smudge", marker, true)}`,
        `\tclean = ${markerScript(scripts, "clean", marker, true)}`,
        "\trequired = true",
        '[diff "evil"]',
        `\ttextconv = ${markerScript(scripts, "textconv", marker, true)}`,
        "",
      ].join("\n"),
    );
    gitConfig(ws.root, "include.path", included);

    const worktree = await createAgentWorktree(ws.root, "agent-1", path.join(ws.parent, "worktrees"));
    expect(readFileSync(path.join(worktree.path, "a.txt"), "utf8")).toBe("one\n");
    writeFileSync(path.join(worktree.path, "a.txt"), "two\n");
    writeFileSync(path.join(worktree.path, "b.txt"), "new\n");
    const changes = await collectWorktreeChanges(worktree);
    expect(changes.files.sort()).toEqual(["A\tb.txt", "M\ta.txt"]);
    expect(changes.patch).toContain("+two");
    await removeAgentWorktree(worktree);

    expect(existsSync(marker) ? readFileSync(marker, "utf8") : "").toBe("");
  });

  it("runs no hook from a core.hooksPath the repository sets", async () => {
    ws = await createTempWorkspace({ "a.txt": "one\n" });
    initRepo(ws.root);
    const marker = path.join(ws.parent, "ran");
    const hooks = path.join(ws.root, "tools", "hooks");
    mkdirSync(hooks, { recursive: true });
    markerScript(hooks, "post-checkout", marker);
    gitConfig(ws.root, "core.hooksPath", "tools/hooks");

    const worktree = await createAgentWorktree(ws.root, "agent-2", path.join(ws.parent, "worktrees"));
    await removeAgentWorktree(worktree);
    expect(existsSync(marker) ? readFileSync(marker, "utf8") : "").toBe("");
  });

  it("keeps a filter the user set in their own git configuration", async () => {
    ws = await createTempWorkspace({ "a.txt": "one\n", ".gitattributes": "*.txt filter=upper\n" });
    initRepo(ws.root);
    const global = path.join(ws.home, ".gitconfig");
    writeFileSync(global, '[filter "upper"]\n\tsmudge = tr a-z A-Z\n\tclean = cat\n');
    const saved = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = global;
    try {
      const worktree = await createAgentWorktree(ws.root, "agent-3", path.join(ws.parent, "worktrees"));
      expect(readFileSync(path.join(worktree.path, "a.txt"), "utf8")).toBe("ONE\n");
      await removeAgentWorktree(worktree);
    } finally {
      if (saved === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = saved;
    }
  });
});
