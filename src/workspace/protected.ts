import { realpath } from "node:fs/promises";
import path from "node:path";

/**
 * The files that govern the agent (hooks and settings of Gantry, Claude Code and Gemini CLI). The
 * agent's own edit and command tools may not change them unless settings say `allowAgentConfigEdits`
 * (SPEC §4: the seed's tamper warning). Workspace-relative, "/"-separated.
 */
export const PROTECTED_AGENT_CONFIG = [
  ".agents/hooks.json",
  ".agents/settings.json",
  ".agents/settings.local.json",
  ".claude/settings.json",
  ".claude/settings.local.json",
  ".gemini/settings.json",
] as const;

const PROTECTED_SET = new Set<string>(PROTECTED_AGENT_CONFIG);

/** True when a workspace-relative path names a protected file (case-insensitive: macOS and Windows fold case). */
export function isProtectedAgentConfig(relPath: string): boolean {
  const normalized = path.posix
    .normalize(relPath.replaceAll("\\", "/"))
    .replace(/^(\.\/)+/, "")
    .toLowerCase();
  return PROTECTED_SET.has(normalized);
}

/**
 * Whether a write to `input` would change a protected file: by its name as given, by the real path it
 * resolves to, or because it is the real file behind a protected name (a symlinked `.agents` folder
 * makes `other/hooks.json` the hooks file). Returns the protected name, or undefined.
 */
export async function protectedTargetOf(
  root: string,
  input: string,
  resolvedAbs: string,
): Promise<string | undefined> {
  const named = path.relative(root, path.resolve(root, input)).split(path.sep).join("/");
  const resolvedRel = path.relative(root, resolvedAbs).split(path.sep).join("/");
  for (const candidate of [named, resolvedRel]) {
    if (!candidate.startsWith("..") && isProtectedAgentConfig(candidate)) return candidate;
  }
  for (const name of PROTECTED_AGENT_CONFIG) {
    if ((await realLocationOf(path.join(root, name))) === resolvedAbs) return name;
  }
  return undefined;
}

/** Where a name really lands: its realpath, or (for a file not created yet) its folder's realpath + its name. */
async function realLocationOf(abs: string): Promise<string | undefined> {
  const real = await realpath(abs).catch(() => undefined);
  if (real !== undefined) return real;
  const folder = await realpath(path.dirname(abs)).catch(() => undefined);
  return folder === undefined ? undefined : path.join(folder, path.basename(abs));
}
