import { DEFAULT_SECRET_EXCEPTIONS, DEFAULT_SECRET_PATTERNS } from "../../workspace/secrets.js";
import { nameGlobMatcher, SIMPLE_GLOB } from "./glob.js";

/** A name or `*.ext` with at most this many letters is spelt out in every case; a longer one as classes. */
const MAX_SPELT_LETTERS = 8;

let pruneArgs: string[] | undefined;

/**
 * rg flags that prune the secret patterns ripgrep may skip itself (faster, and never opened): those no
 * built-in exception (`.env.example`) falls under. The rest, and user patterns, are dropped afterwards
 * by the guard. Secrets are judged regardless of case, but `--iglob` puts every pattern into one
 * case-folding regex set that is run on every path (a tenth of a whole search, measured). So a name or
 * `*.ext` is spelt out in each of its ASCII case variants (exact names and extensions ripgrep looks up
 * by hash), and the rest are written with character classes (`[iI][dD]_…`).
 */
export function secretPruneArgs(): string[] {
  pruneArgs ??= DEFAULT_SECRET_PATTERNS.filter(isPrunable).flatMap(caseSensitiveGlobArgs);
  return pruneArgs;
}

function isPrunable(pattern: string): boolean {
  return !DEFAULT_SECRET_EXCEPTIONS.some((name) => nameGlobMatcher(pattern, true)(name));
}

function caseSensitiveGlobArgs(pattern: string): string[] {
  // other glob syntax (classes, braces, escapes, non-ASCII letters) stays with rg's own case folding
  if (!SIMPLE_GLOB.test(pattern)) return [`--iglob=!${pattern}`];
  const name = pattern.startsWith("*.") ? pattern.slice(2) : pattern;
  const letters = name.replace(/[^A-Za-z]/g, "").length;
  if (!name.includes("*") && letters <= MAX_SPELT_LETTERS) {
    const lead = pattern.slice(0, pattern.length - name.length);
    return caseVariants(name).map((variant) => `--glob=!${lead}${variant}`);
  }
  const classes = pattern.replace(
    /[A-Za-z]/g,
    (letter) => `[${letter.toLowerCase()}${letter.toUpperCase()}]`,
  );
  return [`--glob=!${classes}`];
}

function caseVariants(text: string): string[] {
  let variants = [""];
  for (const char of text) {
    const spellings = /[A-Za-z]/.test(char) ? [char.toLowerCase(), char.toUpperCase()] : [char];
    variants = variants.flatMap((head) => spellings.map((spelling) => head + spelling));
  }
  return variants;
}
