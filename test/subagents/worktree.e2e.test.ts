import { existsSync, readdirSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { gitOut, initRepo } from "./support/git.js";
import { assertScriptsDone, type Harness, MAIN_MARKER, startHarness } from "./support/harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const sees = (needle: string) => (request: { text: string }) => {
  if (!request.text.includes(needle))
    throw new Error(`the request does not contain ${JSON.stringify(needle)}`);
};

/** Processes whose command line contains `needle` (read from /proc, no ps needed). */
function processesWith(needle: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      if (cmdline.includes(needle)) found.push(`${pid}: ${cmdline}`);
    } catch {
      // the process ended meanwhile
    }
  }
  return found;
}

describe("worktree agents", () => {
  it("an isolated agent's edits stay in its worktree; the parent gets the changes and the worktree is removed", async () => {
    harness = await startHarness(
      [
        [
          MAIN_MARKER,
          [
            {
              toolCalls: [
                {
                  name: "agent",
                  args: {
                    description: "Edit in a worktree",
                    prompt: "TASK-WT: edit a.txt",
                    isolation: "worktree",
                    run_in_background: false,
                  },
                },
              ],
            },
            {
              expect: (r) => (sees("M a.txt")(r), sees("A new.txt")(r), sees("was removed")(r)),
              text: "reviewed the patch",
            },
          ],
        ],
        [
          "TASK-WT",
          [
            { toolCalls: [{ name: "view_file", args: { AbsolutePath: "a.txt" } }] },
            {
              toolCalls: [
                {
                  name: "write_to_file",
                  args: {
                    TargetFile: "a.txt",
                    Overwrite: true,
                    CodeContent: "changed\n",
                    Description: "edit",
                  },
                },
                {
                  name: "write_to_file",
                  args: {
                    TargetFile: "new.txt",
                    Overwrite: false,
                    CodeContent: "fresh\n",
                    Description: "add",
                  },
                },
              ],
            },
            { text: "edited two files" },
          ],
        ],
      ],
      { files: { "a.txt": "original\n" }, prepare: (ws) => initRepo(ws.root) },
    );
    const result = await harness.run("Edit a.txt in isolation.");
    assertScriptsDone(harness);
    expect(result.text).toBe("reviewed the patch");
    const root = harness.ws.root;
    expect(readFileSync(`${root}/a.txt`, "utf8")).toBe("original\n");
    expect(existsSync(`${root}/new.txt`)).toBe(false);
    expect(gitOut(root, "status", "--porcelain")).toBe("");
    expect(gitOut(root, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);

    const parentResult = harness.events.find((e) => e.agentId === "main" && e.type === "tool_result");
    const worktree =
      parentResult?.type === "tool_result"
        ? (parentResult.result.metadata.worktree as { path: string; patchFile: string; files: string[] })
        : undefined;
    expect(worktree?.files.sort()).toEqual(["A\tnew.txt", "M\ta.txt"]);
    expect(existsSync(worktree?.path as string)).toBe(false);
    const patch = readFileSync(worktree?.patchFile as string, "utf8");
    expect(patch).toContain("+changed");
    expect(patch).toContain("+fresh");
  });

  it("working_dir pins a named agent to a caller-owned worktree (winning over isolation) and leaves it in place", async () => {
    let feature = "";
    harness = await startHarness(
      [
        [
          MAIN_MARKER,
          [
            {
              toolCalls: [
                {
                  name: "agent",
                  args: {
                    description: "Edit the feature tree",
                    prompt: "TASK-WD",
                    working_dir: "../feature",
                    isolation: "worktree",
                  },
                },
              ],
            },
            { expect: sees("wrote it"), text: "done" },
          ],
        ],
        [
          "TASK-WD",
          [
            {
              toolCalls: [
                {
                  name: "write_to_file",
                  args: {
                    TargetFile: "feature.txt",
                    Overwrite: false,
                    CodeContent: "feature\n",
                    Description: "add",
                  },
                },
              ],
            },
            { text: "wrote it" },
          ],
        ],
      ],
      {
        files: { "a.txt": "a\n" },
        prepare: (ws) => {
          initRepo(ws.root);
          feature = `${ws.parent}/feature`;
          gitOut(ws.root, "worktree", "add", "-q", "--detach", feature);
        },
      },
    );
    await harness.run("Work in the feature worktree.");
    assertScriptsDone(harness);
    expect(readFileSync(`${feature}/feature.txt`, "utf8")).toBe("feature\n");
    expect(existsSync(`${harness.ws.root}/feature.txt`)).toBe(false);
    expect(harness.session.subagents.agents.get("agent-1")).toMatchObject({
      background: false,
      workingDir: feature,
      state: "completed",
    });
    expect(gitOut(harness.ws.root, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(2);
  });

  it("kill_all stops every agent: no process and no worktree is left behind", async () => {
    harness = await startHarness(
      [
        [
          MAIN_MARKER,
          [
            {
              toolCalls: [
                {
                  name: "agent",
                  args: { description: "Run a slow command", prompt: "TASK-SLOW-1", isolation: "worktree" },
                },
                { name: "agent", args: { description: "Run another slow command", prompt: "TASK-SLOW-2" } },
              ],
            },
            { delayMs: 800, toolCalls: [{ name: "manage_subagents", args: { Action: "kill_all" } }] },
            { expect: sees("Killed agent-1, agent-2"), text: "stopped them" },
          ],
        ],
        [
          "TASK-SLOW-1",
          [
            {
              toolCalls: [
                {
                  name: "run_command",
                  args: { CommandLine: "sleep 31.25", Cwd: ".", WaitMsBeforeAsync: 60000 },
                },
              ],
            },
          ],
        ],
        [
          "TASK-SLOW-2",
          [
            {
              toolCalls: [
                {
                  name: "run_command",
                  args: { CommandLine: "sleep 32.25", Cwd: ".", WaitMsBeforeAsync: 60000 },
                },
              ],
            },
          ],
        ],
      ],
      { files: { "a.txt": "a\n" }, prepare: (ws) => initRepo(ws.root) },
    );
    const result = await harness.run("Start slow agents, then stop them.");
    assertScriptsDone(harness);
    expect(result.text).toBe("stopped them");
    expect(processesWith("sleep 31.25")).toEqual([]);
    expect(processesWith("sleep 32.25")).toEqual([]);
    const states = harness.session.subagents.agents
      .list()
      .map((r) => [r.id, r.state, r.worktree])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(states).toEqual([
      ["agent-1", "killed", undefined],
      ["agent-2", "killed", undefined],
    ]);
    expect(gitOut(harness.ws.root, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
    expect(harness.session.inbox.pendingHolds).toBe(0);
  });
});
