import { createRequire } from "node:module";
import type { RE2JS } from "re2js";

// loaded the first time a hook pattern is a regex: most sessions have no such hook, and RE2 is a large module
let re2: typeof RE2JS | undefined;
function loadRe2(): typeof RE2JS {
  re2 ??= (createRequire(import.meta.url)("re2js") as typeof import("re2js")).RE2JS;
  return re2;
}

/** The names a tool call can be matched by: Gantry's own (canonical + aliases) and the dialect's, if any. */
export interface MatchNames {
  gantryNames: readonly string[];
  /** The dialect's name for the tool. */
  dialectName?: string;
  /** Other names that harness accepts for it (exact matches only, never through a regex). */
  dialectAliases?: readonly string[];
}

export type MatcherStyle = "native" | "claude" | "gemini" | "qwen";

export interface CompiledMatcher {
  pattern: string;
  /** Why the pattern matches nothing (an invalid regex); undefined when it is fine. */
  problem?: string;
  /** A tool event: the tool's names. */
  test(names: MatchNames): boolean;
  /** A lifecycle event: the fact it is matched on (`startup`, `auto`, an agent type, ...). */
  testValue(value: string): boolean;
}

const MATCH_ALL = new Set(["", "*", ".*"]);
// Claude Code: a value of only these characters is an exact name or a list of names, not a regex.
const PLAIN_NAMES = /^[A-Za-z0-9_,| -]+$/;

/**
 * RE2 (re2js, linear time: a pathological pattern cannot stall the process). Native matchers must match
 * the whole name; Claude's, Qwen's and Gemini's regexes search the dialect's name unanchored, as those
 * tools do, and still match Gantry's names whole. Lifecycle facts: native whole-match, Claude and Qwen
 * names or a regex, Gemini exact text (its planner compares them as strings).
 */
export function compileMatcher(pattern: string | undefined, style: MatcherStyle): CompiledMatcher {
  const source = (pattern ?? "").trim();
  if (MATCH_ALL.has(source)) return { pattern: source, test: () => true, testValue: () => true };
  if (style === "qwen") return compileQwenMatcher(source);
  if (style === "claude" && PLAIN_NAMES.test(source)) {
    const names = new Set(
      source
        .split(/[,|]/)
        .map((name) => name.trim())
        .filter(Boolean),
    );
    return {
      pattern: source,
      test: (n) => allNames(n).some((name) => names.has(name)),
      testValue: (value) => names.has(value),
    };
  }
  let regex: RE2JS;
  try {
    regex = loadRe2().compile(source);
  } catch (cause) {
    const problem = `invalid RE2 pattern "${source}": ${(cause as Error).message}${globHint(source)}`;
    // Gemini CLI falls back to comparing the text exactly; the others' patterns match nothing.
    if (style === "gemini")
      return {
        pattern: source,
        problem,
        test: (n) => allNames(n).includes(source),
        testValue: (value) => value === source,
      };
    return { pattern: source, problem, test: () => false, testValue: () => false };
  }
  if (style === "native")
    return {
      pattern: source,
      test: (n) => allNames(n).some((x) => regex.matches(x)),
      testValue: (value) => regex.matches(value),
    };
  return {
    pattern: source,
    test: (n) =>
      (n.dialectName !== undefined && regex.test(n.dialectName)) ||
      n.gantryNames.some((x) => regex.matches(x)),
    testValue: (value) => (style === "gemini" ? value === source : regex.test(value)),
  };
}

/**
 * Qwen Code's rule (its hook-matcher.ts): an exact name (the tool's, an alias, Gantry's) first; then,
 * unless the matcher starts with `^` or `(`, a `|` list whose trimmed entries match exactly; otherwise an
 * unanchored regex over Qwen's name for the tool (a list rebuilt from its trimmed, non-empty entries), so
 * `shell` and `read_` match. Gantry's own names still match a regex only whole.
 */
function compileQwenMatcher(source: string): CompiledMatcher {
  const grouped = source.startsWith("^") || source.startsWith("(");
  const entries =
    source.includes("|") && !grouped
      ? source
          .split(/(?<!\\)\|/)
          .map((entry) => entry.trim())
          .filter(Boolean)
      : [source];
  const exact = new Set(entries);
  const anyEntry = entries.some((entry) => MATCH_ALL.has(entry));
  let regex: RE2JS | undefined;
  let problem: string | undefined;
  if (entries.length > 0 && !anyEntry) {
    try {
      regex = loadRe2().compile(entries.join("|"));
    } catch (cause) {
      problem = `invalid RE2 pattern "${source}": ${(cause as Error).message}${globHint(source)}`;
    }
  }
  const byName = (subject: string | undefined, others: readonly string[]) =>
    anyEntry ||
    [subject, ...others].some((name) => name !== undefined && exact.has(name)) ||
    (regex !== undefined && subject !== undefined && regex.test(subject));
  return {
    pattern: source,
    ...(problem ? { problem } : {}),
    test: (n) =>
      byName(n.dialectName, [...(n.dialectAliases ?? []), ...n.gantryNames]) ||
      (regex !== undefined && n.gantryNames.some((name) => regex.matches(name))),
    testValue: (value) => byName(value, []),
  };
}

function allNames(names: MatchNames): string[] {
  const dialect = names.dialectName === undefined ? [] : [names.dialectName];
  return [...dialect, ...(names.dialectAliases ?? []), ...names.gantryNames];
}

function globHint(source: string): string {
  return source.startsWith("*") ? ` (a shell glob; in RE2 write ".${source}")` : "";
}
