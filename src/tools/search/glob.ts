import picomatch from "picomatch";

/** Tests a workspace entry against glob patterns (SPEC §3: name-only or path patterns). */
export type EntryMatcher = (relPath: string, name: string, searchRel: string) => boolean;

const GLOB_OPTIONS = { dot: true } as const;

/**
 * Compiles glob patterns by the rules of SPEC §3: a pattern without "/" (`*.ts`) judges the entry's
 * name anywhere; a pattern with "/" judges the workspace-relative path, or the path relative to the
 * search folder; `**\/` also stands for zero folders (`src/**\/*.java` matches `src/App.java`).
 */
export function compileGlobs(patterns: readonly string[], options: { nocase?: boolean } = {}): EntryMatcher {
  const picoOptions = { ...GLOB_OPTIONS, nocase: options.nocase ?? false };
  const namePatterns: string[] = [];
  const pathPatterns: string[] = [];
  for (const raw of patterns) {
    const pattern = normalizeGlob(raw);
    if (pattern === "") continue;
    (pattern.includes("/") ? pathPatterns : namePatterns).push(pattern);
  }
  const matchName = namePatterns.length > 0 ? anyNameGlob(namePatterns, picoOptions.nocase) : undefined;
  const matchPath = pathPatterns.length > 0 ? picomatch(pathPatterns, picoOptions) : undefined;
  return (relPath, name, searchRel) => {
    if (matchName?.(name)) return true;
    if (!matchPath) return false;
    if (matchPath(relPath)) return true;
    return searchRel !== "" && relPath.startsWith(`${searchRel}/`)
      ? matchPath(relPath.slice(searchRel.length + 1))
      : false;
  };
}

/** A name glob of letters, digits, `.`, `_`, `-` and `*` (no classes, braces or escapes). */
export const SIMPLE_GLOB = /^[A-Za-z0-9._*-]+$/;

/**
 * A name matcher that answers as picomatch (`dot`, and `nocase` as asked) does: a simple glob becomes a
 * plain RegExp, where `*` is any run of characters but "/" (picomatch itself judges "", "." and "..").
 * picomatch's own matcher builds a result object per name (a third of a walk's work on its rules, cold),
 * and compiling with it costs a few ms in a fresh process.
 */
export function nameGlobMatcher(pattern: string, nocase: boolean): (name: string) => boolean {
  // `**` crosses folders: picomatch's
  if (!SIMPLE_GLOB.test(pattern) || pattern.includes("**"))
    return picomatch(pattern, { ...GLOB_OPTIONS, nocase });
  const source = pattern
    .split("*")
    .map((part) => part.replace(/[.-]/g, "\\$&"))
    .join("[^/]*");
  const regex = new RegExp(`^${source}$`, nocase ? "i" : "");
  // what picomatch makes of these is its own: it is asked (never the case for a file's name)
  let exact: ((name: string) => boolean) | undefined;
  return (name) => {
    if (name !== "" && name !== "." && name !== "..") return regex.test(name);
    exact ??= picomatch(pattern, { ...GLOB_OPTIONS, nocase });
    return exact(name);
  };
}

/** Whether a name matches any of the name globs. */
function anyNameGlob(patterns: readonly string[], nocase: boolean): (name: string) => boolean {
  const matchers = patterns.map((pattern) => nameGlobMatcher(pattern, nocase));
  const [only] = matchers;
  if (matchers.length === 1 && only) return only;
  return (name) => matchers.some((matches) => matches(name));
}

/** Drops a leading "./" or "/" (both mean the workspace root) and a trailing "/". */
export function normalizeGlob(pattern: string): string {
  let result = pattern.trim().replaceAll("\\", "/");
  while (result.startsWith("./")) result = result.slice(2);
  while (result.startsWith("/")) result = result.slice(1);
  while (result.length > 1 && result.endsWith("/")) result = result.slice(0, -1);
  return result;
}

/** True when every pattern is a name-only pattern (so another engine can apply it as a basename glob). */
export function isNameOnly(patterns: readonly string[]): boolean {
  return patterns.every((pattern) => !normalizeGlob(pattern).includes("/"));
}
