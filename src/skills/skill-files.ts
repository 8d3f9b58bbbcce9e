import path from "node:path";
import { isInside, type PathError, type ResolvedPath, resolveInsideWorkspace } from "../workspace/paths.js";
import type { SecretGuard } from "../workspace/secrets.js";
import type { Skill, SkillCatalog } from "./catalog.js";

export type SkillFileResult =
  /** The path names no discovered skill's folder at all. */
  | { kind: "none" }
  | { kind: "refused"; error: PathError }
  /** `path.rel` is relative to the skill folder; `root` is that folder's real path. */
  | { kind: "skill"; skill: Skill; root: string; path: ResolvedPath };

/**
 * view_file's IsSkillFile (seed 000): a file inside a discovered skill folder, also outside the workspace.
 * The same resolver as the workspace's, rooted at the skill folder (so `..` and symlinks cannot leave it),
 * and the same secret guard, judged relative to the skill folder.
 */
export async function resolveSkillFile(
  catalog: SkillCatalog,
  input: string,
  workspaceRoot: string,
  secrets: SecretGuard,
): Promise<SkillFileResult> {
  const named = path.resolve(workspaceRoot, input);
  const skill = catalog.skills.find(
    (candidate) => isInside(candidate.folderAsFound, named) || isInside(candidate.folder, named),
  );
  if (!skill) return { kind: "none" };
  // seen from the real folder, so a symlinked skill folder (~/.claude/skills/x → ~/dotfiles/x) reads as itself
  const asFound = isInside(skill.folderAsFound, named);
  const inner = path.relative(asFound ? skill.folderAsFound : skill.folder, named);
  const resolved = await resolveInsideWorkspace(skill.folder, path.join(skill.folder, inner));
  if (!resolved.ok) {
    if (resolved.error.code !== "outside_workspace") return { kind: "refused", error: resolved.error };
    return refused(
      "outside_workspace",
      `"${input}" leads out of the skill folder ${skill.shown} (through a symlink); IsSkillFile reads only files inside a discovered skill's folder.`,
    );
  }
  const namedRel = inner.split(path.sep).join("/");
  if (secrets.isSecret(resolved.path.rel) || secrets.isSecret(namedRel)) {
    return refused(
      "secret_path",
      `"${input}" is a secret file (credentials, keys, .env, .git internals); refused.`,
    );
  }
  return { kind: "skill", skill, root: skill.folder, path: resolved.path };
}

function refused(code: PathError["code"], message: string): SkillFileResult {
  return { kind: "refused", error: { code, message } };
}
