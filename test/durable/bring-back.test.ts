import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import {
  createListedReadLedger,
  createWorkspaceSync,
  type WorkspaceSync,
} from "../../src/durable/session-sync.js";
import { createGrantStore } from "../../src/policy/grants.js";
import { createGitRepo } from "../support/restate.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A repository and the sync of a session working in it, at its one commit. */
async function workspace(): Promise<{ root: string; sync: WorkspaceSync }> {
  dir = mkdtempSync(path.join(tmpdir(), "gantry-bring-back-"));
  const root = await createGitRepo(path.join(dir, "repo"), { "a.txt": "a\n", "b.txt": "b\n" });
  const commit = execFileSync("git", ["-C", root, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
  const sync = createWorkspaceSync({
    root,
    source: { mode: "git", repo: root, commit },
    grants: createGrantStore({ workspaceRoot: root, home: dir, resolveTool: (name) => name }),
    ledger: createListedReadLedger(),
    scratchIndex: path.join(dir, ".index"),
    warn: () => undefined,
  });
  return { root, sync };
}

const put = (root: string, file: string, text: string) => writeFileSync(path.join(root, file), text);

it("two agents that started from the parent's changes both bring their own changes back, and the parent's stay", async () => {
  const { root, sync } = await workspace();
  put(root, "parent.txt", "the parent's\n");
  const sent = await sync.snapshot();
  // what each child's copy held at its end: the parent's changes and its own
  put(root, "a.txt", "a by one\n");
  put(root, "one.txt", "one\n");
  const first = await sync.snapshot();
  put(root, "a.txt", "a\n");
  rmSync(path.join(root, "one.txt"));
  put(root, "b.txt", "b by two\n");
  const second = await sync.snapshot();
  put(root, "b.txt", "b\n");

  expect(await sync.bringBack(sent, first)).toBeUndefined();
  expect(await sync.bringBack(sent, second)).toBeUndefined();
  const read = (file: string) => readFileSync(path.join(root, file), "utf8");
  expect([read("parent.txt"), read("a.txt"), read("one.txt"), read("b.txt")]).toEqual([
    "the parent's\n",
    "a by one\n",
    "one\n",
    "b by two\n",
  ]);
});

it("an agent's change to a file the parent changed since is not applied, and the report says why", async () => {
  const { root, sync } = await workspace();
  const sent = await sync.snapshot();
  put(root, "a.txt", "a by the child\n");
  const child = await sync.snapshot();
  put(root, "a.txt", "a by someone else meanwhile\n");

  expect(await sync.bringBack(sent, child)).toMatch(/could not be applied to this workspace/);
  expect(readFileSync(path.join(root, "a.txt"), "utf8")).toBe("a by someone else meanwhile\n");
  expect(existsSync(path.join(root, "a.txt.rej"))).toBe(false);
});
