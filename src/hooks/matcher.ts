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
// Claude Code, Qwen Code: a value of only these characters is an exact name or a list of names, not a regex.
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
  const dialectStyle = style === "claude" || style === "qwen";
  if (dialectStyle && PLAIN_NAMES.test(source)) {
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

function allNames(names: MatchNames): string[] {
  const dialect = names.dialectName === undefined ? [] : [names.dialectName];
  return [...dialect, ...(names.dialectAliases ?? []), ...names.gantryNames];
}

function globHint(source: string): string {
  return source.startsWith("*") ? ` (a shell glob; in RE2 write ".${source}")` : "";
}
