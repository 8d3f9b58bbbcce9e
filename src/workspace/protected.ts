import { readdir, readlink, realpath } from "node:fs/promises";
import path from "node:path";

/**
 * The files that govern the agent and need the user's trust (SPEC §4, §5a): hooks and settings of
 * Gantry, Claude Code, Gemini CLI and Qwen Code, MCP servers, the trust and answer stores, and the
 * agent definition and fork profile folders (everything below them). A name pattern's `*` is any run
 * of characters (Claude Code reads every `.claude/settings*.json`). The agent's own edit and command
 * tools may not create or change them unless settings say `allowAgentConfigEdits`. Workspace-relative.
 */
export const PROTECTED_AGENT_CONFIG_PATTERNS = [
  ".agents/hooks.json",
  ".agents/settings*.json",
  ".agents/trusted-folders.json",
  ".agents/folder-permissions.json",
  ".claude/settings*.json",
  ".gemini/settings*.json",
  ".qwen/settings*.json",
  ".mcp.json",
  ".agents/agents/**",
  ".claude/agents/**",
  ".qwen/agents/**",
  ".gemini/agents/**",
  ".agents/fork-profiles/**",
  ".qwen/fork-profiles/**",
] as const;

/** The config folders a sandboxed command may not write in at all (they need no build output). */
export const PROTECTED_CONFIG_FOLDERS = [".agents", ".claude", ".codex", ".gemini", ".qwen"] as const;
export const PROTECTED_CONFIG_ROOT_FILES = [".mcp.json"] as const;

/**
 * The well-known names among them, for code that needs file names rather than patterns: the files a
 * worktree mirrors from its parent, and those a trust decision pins (src/trust/covered.ts).
 */
export const PROTECTED_AGENT_CONFIG = [
  ".agents/hooks.json",
  ".agents/settings.json",
  ".agents/settings.local.json",
  ".claude/settings.json",
  ".claude/settings.local.json",
  ".gemini/settings.json",
  ".qwen/settings.json",
  ".mcp.json",
] as const;

interface ConfigPattern {
  folder: string;
  /** Any file below `folder` (a `/**` pattern), or those whose name matches. */
  name: RegExp | "subtree";
}

const PATTERNS: readonly ConfigPattern[] = PROTECTED_AGENT_CONFIG_PATTERNS.map((pattern) => {
  if (pattern.endsWith("/**")) return { folder: pattern.slice(0, -3), name: "subtree" as const };
  const name = path.posix.basename(pattern);
  const literal = name.split("*").map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return { folder: path.posix.dirname(pattern), name: new RegExp(`^${literal.join("[^/]*")}$`, "i") };
});

/** True when a workspace-relative path names a protected file (case-insensitive: macOS and Windows fold case). */
export function isProtectedAgentConfig(relPath: string): boolean {
  const normalized = path.posix.normalize(relPath.replaceAll("\\", "/")).replace(/^(\.\/)+/, "");
  return PATTERNS.some((pattern) => matchesPattern(pattern, normalized));
}

function matchesPattern(pattern: ConfigPattern, normalized: string): boolean {
  const lower = normalized.toLowerCase();
  if (pattern.name === "subtree") return lower.startsWith(`${pattern.folder}/`) || lower === pattern.folder;
  const folder = path.posix.dirname(lower);
  return pattern.folder === folder && pattern.name.test(path.posix.basename(normalized));
}

/**
 * Whether a write to `input` would change a protected file: by its name as given, by the real path it
 * resolves to, or because it is the real file behind a protected name (a symlinked `.claude` folder
 * makes `other/settings.team.json` a settings file). `extraFiles` are more protected paths, absolute:
 * the scripts hooks run, and folders (everything below them). Returns the protected name, or undefined.
 */
export async function protectedTargetOf(
  root: string,
  input: string,
  resolvedAbs: string,
  extraFiles: readonly string[] = [],
): Promise<string | undefined> {
  const named = path.relative(root, path.resolve(root, input)).split(path.sep).join("/");
  const resolvedRel = path.relative(root, resolvedAbs).split(path.sep).join("/");
  for (const candidate of [named, resolvedRel]) {
    if (!candidate.startsWith("..") && isProtectedAgentConfig(candidate)) return candidate;
  }
  for (const extra of extraFiles) {
    const real = await realLocationOf(extra);
    const hits = [path.resolve(root, input), resolvedAbs].some(
      (target) => target === extra || isBelow(extra, target),
    );
    if (hits || (real !== undefined && (real === resolvedAbs || isBelow(real, resolvedAbs)))) {
      const rel = path.relative(root, extra);
      return rel.startsWith("..") || path.isAbsolute(rel) ? extra : rel.split(path.sep).join("/");
    }
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
  const nameAt = (rel: string) => `${pattern.folder}/${rel}`;
  if (pattern.name === "subtree") {
    const rel = path.relative(folder, resolvedAbs);
    if (rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel))
      return nameAt(rel.split(path.sep).join("/"));
    return linkBelow(folder, resolvedAbs, nameAt);
  }
  const name = pattern.name;
  if (path.dirname(resolvedAbs) === folder && name.test(path.basename(resolvedAbs))) {
    return nameAt(path.basename(resolvedAbs));
  }
  const entries = await readdir(folder).catch(() => [] as string[]);
  for (const entry of entries.filter((candidate) => name.test(candidate))) {
    if ((await realLocationOf(path.join(folder, entry))) === resolvedAbs) return nameAt(entry);
  }
  return undefined;
}

function isBelow(folder: string, abs: string): boolean {
  const rel = path.relative(folder, abs);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel);
}

const MAX_LINK_HOPS = 40;
const MAX_WALKED = 2_000;

/** A link anywhere below `folder` (a bounded walk) whose target lands on `resolvedAbs`. */
async function linkBelow(
  folder: string,
  resolvedAbs: string,
  nameAt: (rel: string) => string,
): Promise<string | undefined> {
  const queue = [""];
  let walked = 0;
  while (queue.length > 0 && walked < MAX_WALKED) {
    const rel = queue.shift() as string;
    const entries = await readdir(path.join(folder, rel), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      walked++;
      const entryRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) queue.push(entryRel);
      else if (entry.isSymbolicLink() && (await realLocationOf(path.join(folder, entryRel))) === resolvedAbs)
        return nameAt(entryRel);
    }
  }
  return undefined;
}

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
