import { readFileSync } from "node:fs";
import path from "node:path";
import ignore, { type Ignore } from "ignore";

/** Folders every search skips: version control, dependencies and build outputs (SPEC §3). */
export const SKIPPED_FOLDER_NAMES: ReadonlySet<string> = new Set([
  ".git",
  ".hg",
  ".svn",
  "node_modules",
  "bower_components",
  "dist",
  "build",
  "out",
  "target",
  ".gradle",
  ".next",
  ".nuxt",
  ".svelte-kit",
  ".turbo",
  ".parcel-cache",
  ".cache",
  "coverage",
  "__pycache__",
  ".venv",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
]);

/** The .gitignore rules in force in one folder: its own file's rules, then its parents'. */
export interface IgnoreChain {
  /** Workspace-relative folder the rules are anchored at ("" = the root). */
  readonly base: string;
  readonly rules: Ignore;
  /** Every rule judges names only (no "/" but a trailing one), so the name alone decides. */
  readonly namesOnly: boolean;
  /** For a names-only chain: false when no rule can match this name (the library need not be asked). */
  readonly mayMatchName: (name: string) => boolean;
  readonly parent: IgnoreChain | undefined;
}

/** Reads `<absDir>/.gitignore` into a new link of the chain, or returns the chain unchanged. */
export function extendChain(
  chain: IgnoreChain | undefined,
  absDir: string,
  relDir: string,
): IgnoreChain | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(absDir, ".gitignore"), "utf8");
  } catch {
    return chain;
  }
  const lines = text.split(/\r?\n/);
  const namesOnly = lines.every((line) => isCommentOrNameRule(line.trim()));
  return {
    base: relDir,
    rules: ignore({ allowRelativePaths: true, ignorecase: false }).add(text),
    namesOnly,
    mayMatchName: namesOnly ? nameRulePrefilter(lines) : () => true,
    parent: chain,
  };
}

/**
 * A quick necessary condition for name-only rules: a rule's text before its first `*` must start the
 * name and its text after its last `*` must end it. Most names fail every rule at once, which spares
 * the library (its per-path cache and checks) on every file of a large tree. Rules with other glob
 * syntax (`?`, `[`, escapes) always say "maybe" and are left to the library.
 */
function nameRulePrefilter(lines: readonly string[]): (name: string) => boolean {
  const affixes: { prefix: string; suffix: string }[] = [];
  for (const raw of lines) {
    const line = raw.trimEnd();
    if (line === "" || line.startsWith("#")) continue;
    const body = line.replace(/^!/, "").replace(/\/+$/, "");
    if (/[?[\\]|^\s/.test(body)) return () => true;
    const firstStar = body.indexOf("*");
    affixes.push(
      firstStar < 0
        ? { prefix: body, suffix: body }
        : { prefix: body.slice(0, firstStar), suffix: body.slice(body.lastIndexOf("*") + 1) },
    );
  }
  return (name) => affixes.some((rule) => name.startsWith(rule.prefix) && name.endsWith(rule.suffix));
}

function isCommentOrNameRule(line: string): boolean {
  if (line === "" || line.startsWith("#")) return true;
  const body = line.replace(/^!/, "").replace(/\/+$/, "");
  return body !== "" && !body.includes("/") && !body.includes("\\");
}

/**
 * Git's answer for one path whose folders were already judged not ignored (callers walk top-down):
 * the deepest .gitignore with a rule for it decides (a `!` rule re-includes).
 */
export function isGitIgnored(chain: IgnoreChain | undefined, relPath: string, isDir: boolean): boolean {
  for (let link = chain; link !== undefined; link = link.parent) {
    if (link.base !== "" && !relPath.startsWith(`${link.base}/`)) continue;
    if (link.namesOnly && !link.mayMatchName(relPath.slice(relPath.lastIndexOf("/") + 1))) continue;
    // name-only rules: the name decides, which spares the library re-checking every parent folder
    const local = link.namesOnly
      ? relPath.slice(relPath.lastIndexOf("/") + 1)
      : link.base === ""
        ? relPath
        : relPath.slice(link.base.length + 1);
    const verdict = link.rules.test(isDir ? `${local}/` : local);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

export type AncestorCheck =
  | { ok: true; chain: IgnoreChain | undefined; gitignoreFolders: string[] }
  | { ok: false; reason: string };

/**
 * Walks from the workspace root down to `searchRel`, loading each folder's .gitignore, and refuses a
 * search rooted in (or under) a skipped or ignored folder (seed 001: rooted at .git or build → refused).
 */
export function checkSearchRoot(root: string, searchRel: string, searchIsDir: boolean): AncestorCheck {
  let chain: IgnoreChain | undefined;
  const gitignoreFolders: string[] = [];
  const segments = searchRel === "" ? [] : searchRel.split("/");
  let parentRel = "";
  for (let i = 0; i < segments.length; i++) {
    const next = extendChain(chain, path.join(root, parentRel), parentRel);
    if (next !== chain) gitignoreFolders.push(parentRel);
    chain = next;
    const rel = segments.slice(0, i + 1).join("/");
    const isDir = i < segments.length - 1 || searchIsDir;
    if (isDir && SKIPPED_FOLDER_NAMES.has(segments[i] as string)) {
      return {
        ok: false,
        reason: `"${rel}" is a skipped folder (dependencies, build output or version control)`,
      };
    }
    if (isGitIgnored(chain, rel, isDir)) return { ok: false, reason: `"${rel}" is ignored by .gitignore` };
    parentRel = rel;
  }
  return { ok: true, chain, gitignoreFolders };
}

/**
 * Rewrites one folder's .gitignore so its rules hold when read from the workspace root (ripgrep's
 * --ignore-file anchors rules at its working folder, not at the file's own folder).
 */
export function rebaseGitignore(text: string, base: string): string[] {
  const rebased: string[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.replace(/(?<!\\)\s+$/, "");
    if (line === "" || line.startsWith("#")) continue;
    const negated = line.startsWith("!");
    let pattern = negated ? line.slice(1) : line;
    if (base !== "") {
      const dirOnly = pattern.endsWith("/");
      const body = dirOnly ? pattern.slice(0, -1) : pattern;
      const anchored = body.includes("/");
      const trimmed = body.startsWith("/") ? body.slice(1) : body;
      pattern = `/${base}/${anchored ? "" : "**/"}${trimmed}${dirOnly ? "/" : ""}`;
    }
    rebased.push(`${negated ? "!" : ""}${pattern}`);
  }
  return rebased;
}
