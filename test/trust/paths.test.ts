import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { runGantry, runGantryTool } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { HOSTILE_HOOK_FILES, plantHook, ran } from "./support.js";

let ws: TempWorkspace | undefined;
const sessions: GantrySession[] = [];
afterEach(async () => {
  for (const session of sessions.splice(0)) await session.dispose();
  await ws?.cleanup();
  ws = undefined;
});

const listDir = { DirectoryPath: "." };

async function folderWithHook(parent: string, name: string): Promise<{ root: string; marker: string }> {
  const root = path.join(parent, name);
  const marker = path.join(parent, `ran-${name.replace(/\//g, "_")}`);
  await mkdir(path.join(root, ".agents"), { recursive: true });
  await writeFile(
    path.join(root, ".agents/hooks.json"),
    JSON.stringify(HOSTILE_HOOK_FILES[".agents/hooks.json"]?.(marker)),
  );
  return { root, marker };
}

describe("trust goes by real paths", () => {
  it("a symlink to a trusted folder is judged by its target", async () => {
    ws = await createTempWorkspace({});
    const marker = await plantHook(ws, ".agents/hooks.json");
    const env = { HOME: ws.home };
    const link = path.join(ws.parent, "link-to-ws");
    await symlink(ws.root, link);
    expect((await runGantry(["trust", link], { env })).code).toBe(0);
    const listed = await runGantry(["trust", "--list"], { env });
    expect(listed.stdout).toContain(ws.root);
    expect(listed.stdout).not.toContain(link);
    await runGantryTool("list_dir", listDir, { workspace: link, env });
    expect(ran(marker)).toBe(true);
  });

  it("trust covers neither the parent nor, unless asked, the folders below", async () => {
    ws = await createTempWorkspace({});
    const env = { HOME: ws.home };
    const parent = await folderWithHook(ws.root, "outer");
    const child = await folderWithHook(ws.root, "outer/inner");
    expect((await runGantry(["trust", parent.root], { env })).code).toBe(0);
    await runGantryTool("list_dir", listDir, { workspace: child.root, env });
    expect(ran(child.marker)).toBe(false);

    const other = await folderWithHook(ws.root, "other");
    const otherChild = await folderWithHook(ws.root, "other/inner");
    expect((await runGantry(["trust", otherChild.root], { env })).code).toBe(0);
    await runGantryTool("list_dir", listDir, { workspace: other.root, env });
    expect(ran(other.marker)).toBe(false);

    expect((await runGantry(["trust", "--subfolders", parent.root], { env })).code).toBe(0);
    const { run } = await runGantryTool("list_dir", listDir, { workspace: child.root, env });
    expect(ran(child.marker)).toBe(true);
    expect(run.stderr).toContain(`trusted ${child.root} as a subfolder of ${parent.root}`);
    // pinned on first use: a later change asks again
    await writeFile(
      path.join(child.root, ".agents/hooks.json"),
      JSON.stringify(HOSTILE_HOOK_FILES[".agents/hooks.json"]?.(`${child.marker}-changed`)),
    );
    expect((await runGantryTool("list_dir", listDir, { workspace: child.root, env })).run.stderr).toContain(
      "changed since you trusted this folder",
    );
  });

  it("git metadata never decides: a folder whose .git points into a trusted repository is not trusted", async () => {
    ws = await createTempWorkspace({});
    const env = { HOME: ws.home };
    const repo = await folderWithHook(ws.root, "repo");
    execFileSync("git", ["init", "-q", repo.root]);
    expect((await runGantry(["trust", repo.root], { env })).code).toBe(0);
    // a spoofed worktree: its .git file and the repository's worktree entry say it belongs there
    const spoof = await folderWithHook(ws.root, "spoof");
    const entry = path.join(repo.root, ".git", "worktrees", "spoof");
    await mkdir(entry, { recursive: true });
    await writeFile(path.join(entry, "commondir"), "../..\n");
    await writeFile(path.join(entry, "gitdir"), `${path.join(spoof.root, ".git")}\n`);
    await writeFile(path.join(spoof.root, ".git"), `gitdir: ${entry}\n`);
    await runGantryTool("list_dir", listDir, { workspace: spoof.root, env });
    expect(ran(spoof.marker)).toBe(false);
    // a real worktree of the trusted repository is not trusted by that either
    execFileSync("git", ["-C", repo.root, "add", "-A"]);
    execFileSync("git", ["-C", repo.root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "x"]);
    const worktree = path.join(ws.root, "wt");
    execFileSync("git", ["-C", repo.root, "worktree", "add", "-q", worktree]);
    const { run } = await runGantryTool("list_dir", listDir, { workspace: worktree, env });
    expect(run.stderr).toContain(".agents/hooks.json: ignored hooks (this folder is not trusted;");
  });

  it("a subagent's worktree runs with its parent's decision: the same files count, changed ones do not", async () => {
    ws = await createTempWorkspace({});
    const marker = await plantHook(ws, ".agents/hooks.json");
    const parent = createGantrySession({ workspace: ws.root, home: ws.home, trust: true });
    sessions.push(parent);
    const copy = path.join(ws.parent, "worktree-copy");
    await mkdir(path.join(copy, ".agents"), { recursive: true });
    execFileSync("cp", [path.join(ws.root, ".agents/hooks.json"), path.join(copy, ".agents/hooks.json")]);
    const child = createGantrySession({ workspace: copy, home: ws.home, trust: parent.trust });
    sessions.push(child);
    expect(child.trust.decision).toBe("trusted");
    await child.pipeline.run({ name: "list_dir", args: listDir });
    expect(ran(marker)).toBe(true);
    const changed = path.join(ws.parent, "changed-copy");
    await mkdir(path.join(changed, ".agents"), { recursive: true });
    await writeFile(
      path.join(changed, ".agents/hooks.json"),
      JSON.stringify(HOSTILE_HOOK_FILES[".agents/hooks.json"]?.(`${marker}-2`)),
    );
    const other = createGantrySession({ workspace: changed, home: ws.home, trust: parent.trust });
    sessions.push(other);
    await other.pipeline.run({ name: "list_dir", args: listDir });
    expect(ran(`${marker}-2`)).toBe(false);
  });
});
