import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { type AgentWorkspace, openAgentWorkspace } from "../../src/subagents/workspace.js";
import { removeAgentWorktree } from "../../src/subagents/worktree.js";
import type { ToolResult } from "../../src/tools/contract.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { gitOut, initRepo } from "./support/git.js";

let ws: TempWorkspace | undefined;
let session: GantrySession | undefined;
let opened: AgentWorkspace | undefined;
afterEach(async () => {
  await opened?.child?.dispose();
  if (opened?.worktree) await removeAgentWorktree(opened.worktree);
  opened = undefined;
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
  ws = undefined;
});

/**
 * A git repository with these workspace files and `~/.agents/settings.json`, a session opened as the
 * CLI opens one, and the session an agent with `isolation: "worktree"` gets (src/subagents/workspace.ts).
 */
async function worktreeAgent(
  files: Record<string, string>,
  homeSettings: unknown,
  approvalMode?: "yolo",
  workingDir?: (ws: TempWorkspace) => string,
) {
  ws = await createTempWorkspace(files);
  await ws.write("../home/.agents/settings.json", JSON.stringify(homeSettings));
  initRepo(ws.root);
  const request = workingDir ? { workingDir: workingDir(ws) } : { isolation: "worktree" as const };
  session = createGantrySession({
    workspace: ws.root,
    home: ws.home,
    defaultApprovalMode: "default",
    ...(approvalMode ? { approvalMode } : {}),
  });
  opened = await openAgentWorkspace(session.subagents, "agent-1", request);
  const child = opened.child;
  if (!child) throw new Error("the worktree agent got no session of its own");
  expect(child.workspace.root).not.toBe(ws.root);
  const asAgent = (name: string, args: unknown) => child.pipeline.run({ name, args }, { agentId: "agent-1" });
  const asParent = (name: string, args: unknown) =>
    (session as GantrySession).pipeline.run({ name, args }, { agentId: "agent-1" });
  return { child, asAgent, asParent };
}

const command = (line: string) => ({ CommandLine: line, Cwd: ".", WaitMsBeforeAsync: 10_000 });
const listed = (result: ToolResult) =>
  result.metadata as { approvalMode: string | null; rules: { kind: string; rule: string; file: string }[] };

describe("a worktree agent's session holds the parent's policy", () => {
  it("a workspace file's yolo, ignored by the parent, is ignored in the worktree too", async () => {
    const { asAgent, asParent } = await worktreeAgent(
      { ".agents/settings.json": '{"approvalMode":"yolo"}' },
      {},
    );
    const parent = listed(await asParent("list_permissions", {}));
    const child = listed(await asAgent("list_permissions", {}));
    expect(parent.approvalMode).toBe("default");
    expect(child.approvalMode).toBe("default");
    const ran = await asAgent("run_command", command("echo should-not-run"));
    expect(ran.error).toBe(true);
    expect(ran.text).toContain("approval mode default");
    expect(ran.text).not.toContain("should-not-run\n");
  });

  it("a home deny rule still denies when the workspace file has a deny list of its own", async () => {
    const { asAgent, asParent } = await worktreeAgent(
      { ".agents/settings.json": JSON.stringify({ permissions: { deny: ["Bash(wget:*)"] } }) },
      { permissions: { deny: ["Bash(curl:*)"] } },
      "yolo",
    );
    const expected = [
      { kind: "deny", rule: "Bash(curl:*)", file: "~/.agents/settings.json" },
      { kind: "deny", rule: "Bash(wget:*)", file: ".agents/settings.json" },
    ];
    expect(listed(await asParent("list_permissions", {})).rules).toEqual(expected);
    const child = listed(await asAgent("list_permissions", {}));
    expect(child.approvalMode).toBe("yolo");
    expect(child.rules).toEqual(expected);
    for (const line of ["curl --version", "wget --version"]) {
      const ran = await asAgent("run_command", command(line));
      expect(ran.error).toBe(true);
      expect(ran.text).toContain("rule deny");
    }
    expect((await asAgent("run_command", command("curl --version"))).text).toContain(
      "Bash(curl:*) (~/.agents/settings.json)",
    );
  });

  it("the parent's session grants cover the worktree agent's calls, as they cover a plain subagent's", async () => {
    const { asAgent } = await worktreeAgent({ "a.txt": "a\n" }, {});
    expect((await asAgent("run_command", command("echo granted-call"))).error).toBe(true);
    const added = (session as GantrySession).permissions.grants.add("Bash(echo granted-call)", "test");
    expect(added.ok).toBe(true);
    const ran = await asAgent("run_command", command("echo granted-call"));
    expect(ran.error).toBe(false);
    expect(ran.text).toContain("granted-call");
    // a path grant is relative to the workspace, so in the worktree it names the worktree's copy
    (session as GantrySession).permissions.grants.add("Edit(/a.txt)", "test");
    expect((await asAgent("view_file", { AbsolutePath: "a.txt" })).error).toBe(false);
    const edit = await asAgent("write_to_file", {
      TargetFile: "a.txt",
      Overwrite: true,
      CodeContent: "b\n",
      Description: "edit",
    });
    expect(edit.text).not.toContain("denied");
    expect(edit.error).toBe(false);
  });

  it("a working_dir worktree's own settings files add no rule the parent does not have", async () => {
    const { asAgent } = await worktreeAgent({ "a.txt": "a\n" }, {}, undefined, (made) => {
      const feature = path.join(made.parent, "feature");
      gitOut(made.root, "worktree", "add", "-q", "--detach", feature);
      const local = { permissions: { allow: ["Bash(echo from-branch)"] } };
      mkdirSync(path.join(feature, ".agents"));
      writeFileSync(path.join(feature, ".agents", "settings.local.json"), JSON.stringify(local));
      return feature;
    });
    expect(listed(await asAgent("list_permissions", {})).rules).toEqual([]);
    const ran = await asAgent("run_command", command("echo from-branch"));
    expect(ran.error).toBe(true);
    expect(ran.text).toContain("approval mode default");
  });
});
