import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitOut, initRepo } from "../../subagents/support/git.js";
import {
  assertScriptsDone,
  type Harness,
  MAIN_MARKER,
  startHarness,
} from "../../subagents/support/harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const sees = (needle: string) => (request: { text: string }) => {
  if (!request.text.includes(needle))
    throw new Error(`the request does not contain ${JSON.stringify(needle)}`);
};

const write = (file: string, content: string, overwrite: boolean) => ({
  name: "write_to_file",
  args: { TargetFile: file, Overwrite: overwrite, CodeContent: content, Description: "edit" },
});

const worktreeCount = (root: string) =>
  gitOut(root, "worktree", "list", "--porcelain").match(/^worktree /gm)?.length ?? 0;

/** The text of the last tool result the main agent got from invoke_subagent. */
function invokeResult(h: Harness): { text: string; error: boolean } {
  const results = h.events.filter(
    (e) => e.agentId === "main" && e.type === "tool_result" && e.call.name === "invoke_subagent",
  );
  const last = results.at(-1);
  if (last?.type !== "tool_result") throw new Error("invoke_subagent returned no result");
  return { text: last.result.text, error: last.result.error };
}

describe("invoke_subagent's Workspace", () => {
  it('"worktree": the edits land in a fresh worktree, not the main tree, and come back as changes and a patch', async () => {
    let report = "";
    harness = await startHarness(
      [
        [
          MAIN_MARKER,
          [
            {
              toolCalls: [
                {
                  name: "invoke_subagent",
                  args: { Subagents: [{ Prompt: "TASK-ISO: change a.txt", Workspace: "worktree" }] },
                },
              ],
            },
            { expect: sees("started agent-1 in the background"), text: "waiting" },
            {
              expect: (r) => {
                sees("Background agent agent-1")(r);
                sees("M a.txt")(r);
                sees("A new.txt")(r);
                sees("ISO-REPORT")(r);
                report = r.text;
              },
              text: "got the patch",
            },
          ],
        ],
        [
          "TASK-ISO",
          [
            {
              // its workspace is a worktree outside the repository
              expect: (r) => {
                if (r.text.includes(harness?.ws.root as string))
                  throw new Error("the subagent was told about the main tree");
                sees("gantry-worktrees")(r);
              },
              toolCalls: [{ name: "view_file", args: { AbsolutePath: "a.txt" } }],
            },
            {
              expect: sees("original"),
              toolCalls: [write("a.txt", "changed\n", true), write("new.txt", "fresh\n", false)],
            },
            { toolCalls: [{ name: "view_file", args: { AbsolutePath: "a.txt" } }] },
            { expect: sees("changed"), text: "ISO-REPORT: edited two files" },
          ],
        ],
      ],
      { files: { "a.txt": "original\n" }, prepare: (ws) => initRepo(ws.root) },
    );
    const result = await harness.run("Change a.txt in isolation.");
    assertScriptsDone(harness);
    expect(result.text).toBe("got the patch");
    const root = harness.ws.root;
    expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("original\n");
    expect(existsSync(path.join(root, "new.txt"))).toBe(false);
    expect(gitOut(root, "status", "--porcelain")).toBe("");
    expect(worktreeCount(root)).toBe(1);

    // the notification names the (removed) worktree and the patch file holding both edits
    const worktreePath = /Its worktree (\S+) was removed/.exec(report)?.[1];
    expect(worktreePath).toContain("gantry-worktrees");
    expect(existsSync(worktreePath as string)).toBe(false);
    const patchFile = /Full patch: (\S+\.patch)/.exec(report)?.[1] as string;
    expect(patchFile.startsWith(harness.transcriptDir)).toBe(true);
    const patch = readFileSync(patchFile, "utf8");
    expect(patch).toContain("-original");
    expect(patch).toContain("+changed");
    expect(patch).toContain("+fresh");
    expect(harness.session.subagents.agents.get("agent-1")).toMatchObject({
      state: "completed",
      worktree: undefined,
    });
  });

  it("a registered worktree path: the subagent works there, in the foreground, and the worktree stays", async () => {
    let feature = "";
    harness = await startHarness(
      [
        [
          MAIN_MARKER,
          [
            {
              toolCalls: [
                {
                  name: "invoke_subagent",
                  args: { Subagents: [{ Prompt: "TASK-FEAT: add feature.txt", Workspace: "../feature" }] },
                },
              ],
            },
            { expect: sees("FEAT-REPORT"), text: "done" },
          ],
        ],
        [
          "TASK-FEAT",
          [
            {
              expect: (r) => sees(feature)(r),
              toolCalls: [{ name: "view_file", args: { AbsolutePath: "a.txt" } }],
            },
            { toolCalls: [write("feature.txt", "feature\n", false), write("a.txt", "feature edit\n", true)] },
            { text: "FEAT-REPORT: wrote it" },
          ],
        ],
      ],
      {
        files: { "a.txt": "a\n" },
        prepare: (ws) => {
          initRepo(ws.root);
          feature = path.join(ws.parent, "feature");
          gitOut(ws.root, "worktree", "add", "-q", "--detach", feature);
        },
      },
    );
    const result = await harness.run("Work in the feature worktree.");
    assertScriptsDone(harness);
    expect(result.text).toBe("done");
    const root = harness.ws.root;
    expect(readFileSync(path.join(feature, "feature.txt"), "utf8")).toBe("feature\n");
    expect(readFileSync(path.join(feature, "a.txt"), "utf8")).toBe("feature edit\n");
    expect(existsSync(path.join(root, "feature.txt"))).toBe(false);
    expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("a\n");
    expect(worktreeCount(root)).toBe(2);
    // a caller-owned worktree runs in the foreground (as the agent tool's working_dir does): the report
    // is the tool's result, not a later notification
    const invoked = invokeResult(harness);
    expect(invoked.error).toBe(false);
    expect(invoked.text).toContain("Agent agent-1 completed:\nFEAT-REPORT: wrote it");
    expect(invoked.text).not.toContain("in the background");
    expect(harness.session.subagents.agents.get("agent-1")).toMatchObject({
      background: false,
      workingDir: feature,
      state: "completed",
    });
  });

  it("an absolute registered path works too; the workspace's own path means the main tree", async () => {
    let feature = "";
    harness = await startHarness(
      [
        ["TASK-ABS", [{ toolCalls: [write("abs.txt", "abs\n", false)] }, { text: "ABS-REPORT" }]],
        ["TASK-HERE", [{ toolCalls: [write("here.txt", "here\n", false)] }, { text: "HERE-REPORT" }]],
      ],
      {
        files: { "a.txt": "a\n" },
        prepare: (ws) => {
          initRepo(ws.root);
          feature = path.join(ws.parent, "feature");
          gitOut(ws.root, "worktree", "add", "-q", "--detach", feature);
        },
      },
    );
    const abs = await harness.session.pipeline.run({
      name: "invoke_subagent",
      args: { Subagents: [{ Prompt: "TASK-ABS: write abs.txt", Workspace: feature }] },
    });
    expect(abs.error).toBe(false);
    expect(abs.text).toContain("Agent agent-1 completed:\nABS-REPORT");
    expect(readFileSync(path.join(feature, "abs.txt"), "utf8")).toBe("abs\n");
    expect(existsSync(path.join(harness.ws.root, "abs.txt"))).toBe(false);
    expect(harness.session.subagents.agents.get("agent-1")).toMatchObject({ workingDir: feature });

    const here = await harness.session.pipeline.run({
      name: "invoke_subagent",
      args: { Subagents: [{ Prompt: "TASK-HERE: write here.txt", Workspace: harness.ws.root }] },
    });
    expect(here.text).toContain("started agent-2 in the background");
    await harness.session.subagents.agents.get("agent-2")?.settled;
    assertScriptsDone(harness);
    expect(readFileSync(path.join(harness.ws.root, "here.txt"), "utf8")).toBe("here\n");
    expect(existsSync(path.join(feature, "here.txt"))).toBe(false);
    expect(harness.session.subagents.agents.get("agent-2")).toMatchObject({ state: "completed" });
    expect(harness.session.subagents.agents.get("agent-2")?.workingDir).toBeUndefined();
  });

  it("refuses an unregistered or missing path and a non-git workspace, naming the problem; nothing starts", async () => {
    harness = await startHarness([], {
      files: { "a.txt": "a\n", "sub/b.txt": "b\n" },
      prepare: (ws) => {
        initRepo(ws.root);
        mkdirSync(path.join(ws.parent, "plain"));
      },
    });
    const invoke = (subagents: Record<string, unknown>[]) =>
      (harness as Harness).session.pipeline.run({ name: "invoke_subagent", args: { Subagents: subagents } });

    const plain = path.join(harness.ws.parent, "plain");
    const unregistered = await invoke([{ Prompt: "p", Workspace: plain }]);
    expect(unregistered).toMatchObject({ error: true, errorCode: "invalid_arguments" });
    expect(unregistered.text).toContain("invoke_subagent: Subagents.0:");
    expect(unregistered.text).toContain(`Workspace "${plain}" is not a registered git worktree`);

    // a folder inside the repository is not a worktree either
    const inside = await invoke([{ Prompt: "p", Workspace: "sub" }]);
    expect(inside.text).toContain('Workspace "sub" is not a registered git worktree');

    const missing = await invoke([{ Prompt: "ok" }, { Prompt: "p", Workspace: "../nowhere" }]);
    expect(missing).toMatchObject({ error: true, errorCode: "invalid_arguments" });
    expect(missing.text).toContain('invoke_subagent: Subagents.1: Workspace "../nowhere" does not exist');
    // one bad entry refuses the whole call: the valid first one did not start either
    expect(harness.session.subagents.agents.list()).toEqual([]);
  });

  it('outside git, a path and "worktree" are both refused with the reason', async () => {
    harness = await startHarness([], { files: { "a.txt": "a\n" } });
    const path_ = await harness.session.pipeline.run({
      name: "invoke_subagent",
      args: { Subagents: [{ Prompt: "p", Workspace: "../elsewhere" }] },
    });
    expect(path_).toMatchObject({ error: true, errorCode: "invalid_arguments" });
    expect(path_.text).toContain("git repository");
    const worktree = await harness.session.pipeline.run({
      name: "invoke_subagent",
      args: { Subagents: [{ Prompt: "p", Workspace: "worktree" }] },
    });
    expect(worktree).toMatchObject({ error: true, errorCode: "execution_failed" });
    expect(worktree.text).toContain("0: not started:");
    expect(worktree.text).toContain("is not inside a git repository");
  });
});
