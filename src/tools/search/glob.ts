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
  const matchName = namePatterns.length > 0 ? picomatch(namePatterns, picoOptions) : undefined;
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
