import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ChildSession, SubagentHost } from "./host.js";
import type { AgentRecord } from "./registry.js";
import {
  type AgentWorktree,
  collectWorktreeChanges,
  createAgentWorktree,
  findRepoRoot,
  mirrorGoverningConfig,
  removeAgentWorktree,
} from "./worktree.js";

export interface AgentWorkspace {
  /** The folder the agent's tools work in. */
  root: string;
  /** A session of Gantry's tools in that folder, when it is not the parent's workspace. */
  child?: ChildSession;
  worktree?: AgentWorktree;
  /** Config files copied from the parent, left out of the reported changes. */
  mirrored: string[];
}

export interface WorktreeReport {
  path: string;
  /** `git diff --name-status` lines. */
  files: string[];
  /** The full patch, saved beside the agent's transcript (apply with `git apply`). */
  patchFile?: string;
  removed: boolean;
}

/**
 * The agent's folder: the parent's workspace, a caller-owned registered worktree (`working_dir`), or a
 * fresh worktree Gantry creates (`isolation: "worktree"`). A workspace below the repository top maps
 * to the same subfolder of the worktree.
 */
export async function openAgentWorkspace(
  host: SubagentHost,
  id: string,
  request: { workingDir?: string; isolation?: "worktree" },
): Promise<AgentWorkspace> {
  const parentRoot = host.deps.workspace.root;
  if (!request.workingDir && request.isolation !== "worktree") return { root: parentRoot, mirrored: [] };
  if (!host.deps.openSession) throw new Error("this session cannot open tools in another folder");
  const repoRoot = await findRepoRoot(parentRoot);
  if (!repoRoot) throw new Error(`the workspace ${parentRoot} is not inside a git repository`);
  const subfolder = path.relative(repoRoot, parentRoot);
  let worktree: AgentWorktree | undefined;
  let top: string;
  if (request.workingDir) top = request.workingDir;
  else {
    worktree = await createAgentWorktree(repoRoot, id);
    top = worktree.path;
  }
  const root = path.join(top, subfolder);
  try {
    const mirrored = worktree ? await mirrorGoverningConfig(parentRoot, root) : [];
    const child = host.deps.openSession(root);
    return { root, child, mirrored, ...(worktree ? { worktree } : {}) };
  } catch (cause) {
    if (worktree) await removeAgentWorktree(worktree);
    throw cause;
  }
}

/** Ends the agent's folder: reports a worktree's changes (saving the patch) and removes it. */
export async function finishWorkspace(
  host: SubagentHost,
  record: AgentRecord,
  opened: AgentWorkspace,
): Promise<WorktreeReport | undefined> {
  await opened.child?.dispose().catch(() => undefined);
  const worktree = opened.worktree;
  if (!worktree) return undefined;
  let report: WorktreeReport = { path: worktree.path, files: [], removed: false };
  try {
    const subfolder = path.relative(worktree.path, opened.root);
    const exclude = opened.mirrored.map((rel) => path.posix.join(subfolder.split(path.sep).join("/"), rel));
    const changes = await collectWorktreeChanges(worktree, exclude);
    report = { ...report, files: changes.files };
    if (changes.patch !== "") {
      mkdirSync(host.transcriptDir(), { recursive: true });
      const patchFile = path.join(host.transcriptDir(), `${record.id}.patch`);
      writeFileSync(patchFile, changes.patch);
      report.patchFile = patchFile;
    }
  } finally {
    await removeAgentWorktree(worktree);
    report.removed = true;
    record.worktree = undefined;
    record.resumeBlockedReason = "it ran in an isolated worktree, which was removed when it finished";
  }
  return report;
}
