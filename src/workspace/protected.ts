import { readdir, readlink, realpath } from "node:fs/promises";
import path from "node:path";

/**
 * The files that govern the agent (hooks and settings of Gantry, Claude Code and Gemini CLI), as
 * patterns: a folder and a file name in which `*` is any run of characters (Claude Code reads every
 * `.claude/settings*.json`). The agent's own edit and command tools may not change them unless
 * settings say `allowAgentConfigEdits` (SPEC §4: the seed's tamper warning). Workspace-relative.
 */
export const PROTECTED_AGENT_CONFIG_PATTERNS = [
  ".agents/hooks.json",
  ".agents/settings*.json",
  ".claude/settings*.json",
  ".gemini/settings.json",
] as const;

/** The well-known names among them, for code that needs file names rather than patterns. */
export const PROTECTED_AGENT_CONFIG = [
  ".agents/hooks.json",
  ".agents/settings.json",
  ".agents/settings.local.json",
  ".claude/settings.json",
  ".claude/settings.local.json",
  ".gemini/settings.json",
] as const;

interface ConfigPattern {
  folder: string;
  name: RegExp;
}

const PATTERNS: readonly ConfigPattern[] = PROTECTED_AGENT_CONFIG_PATTERNS.map((pattern) => {
  const name = path.posix.basename(pattern);
  const literal = name.split("*").map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return { folder: path.posix.dirname(pattern), name: new RegExp(`^${literal.join("[^/]*")}$`, "i") };
});

/** True when a workspace-relative path names a protected file (case-insensitive: macOS and Windows fold case). */
export function isProtectedAgentConfig(relPath: string): boolean {
  const normalized = path.posix.normalize(relPath.replaceAll("\\", "/")).replace(/^(\.\/)+/, "");
  const folder = path.posix.dirname(normalized).toLowerCase();
  const name = path.posix.basename(normalized);
  return PATTERNS.some((pattern) => pattern.folder === folder && pattern.name.test(name));
}

/**
 * Whether a write to `input` would change a protected file: by its name as given, by the real path it
 * resolves to, or because it is the real file behind a protected name (a symlinked `.claude` folder
 * makes `other/settings.team.json` a settings file). Returns the protected name, or undefined.
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
  for (const pattern of PATTERNS) {
    const behind = await protectedNameBehind(root, pattern, resolvedAbs);
    if (behind !== undefined) return behind;
  }
  return undefined;
}

/**
 * The protected name of `pattern` whose real location is `resolvedAbs`: a file (existing or not) in
 * the pattern's folder wherever that folder really lies, or a link there whose target is `resolvedAbs`.
 */
async function protectedNameBehind(
  root: string,
  pattern: ConfigPattern,
  resolvedAbs: string,
): Promise<string | undefined> {
  const folder = await realpath(path.join(root, pattern.folder)).catch(() => undefined);
  if (folder === undefined) return undefined;
  const nameAt = (name: string) => `${pattern.folder}/${name}`;
  if (path.dirname(resolvedAbs) === folder && pattern.name.test(path.basename(resolvedAbs))) {
    return nameAt(path.basename(resolvedAbs));
  }
  const entries = await readdir(folder).catch(() => [] as string[]);
  for (const name of entries.filter((entry) => pattern.name.test(entry))) {
    if ((await realLocationOf(path.join(folder, name))) === resolvedAbs) return nameAt(name);
  }
  return undefined;
}

const MAX_LINK_HOPS = 40;

/**
 * Where a name really lands once written: its realpath; for a dangling link, where its target would
 * land (creating that file would create the protected one); for a missing name, its nearest existing
 * folder's realpath plus the rest, as the workspace resolver places it.
 */
async function realLocationOf(abs: string, hops = 0): Promise<string | undefined> {
  const real = await realpath(abs).catch(() => undefined);
  if (real !== undefined) return real;
  const target = await readlink(abs).catch(() => undefined);
  if (target !== undefined) {
    return hops < MAX_LINK_HOPS
      ? realLocationOf(path.resolve(path.dirname(abs), target), hops + 1)
      : undefined;
  }
  const parent = path.dirname(abs);
  if (parent === abs) return undefined;
  const folder = await realLocationOf(parent, hops);
  return folder === undefined ? undefined : path.join(folder, path.basename(abs));
}
