import picomatch from "picomatch";
import { z } from "zod";
import { lazySchema } from "../config/lazy-schema.js";

/**
 * Files an agent must never read, list, search or write (seed 001, SPEC §3), judged on
 * workspace-relative paths, case-insensitively. A pattern without "/" judges every path segment,
 * so a secret folder hides everything inside it.
 */
export const DEFAULT_SECRET_PATTERNS = [
  ".env",
  ".env.*",
  "*.pem",
  "*.key",
  "*.p12",
  "*.pfx",
  "*.jks",
  "*.keystore",
  "id_rsa*",
  "id_dsa*",
  "id_ecdsa*",
  "id_ed25519*",
  ".netrc",
  ".pgpass",
  ".git-credentials",
  ".git",
] as const;

export const DEFAULT_SECRET_EXCEPTIONS = [".env.example", ".env.sample", ".env.template"] as const;

export const SecretsSchema = lazySchema(() =>
  z.strictObject({
    patterns: z
      .array(z.string())
      .optional()
      .describe(
        'glob patterns added to the built-in secret patterns; without "/" a pattern judges each path segment, with "/" the workspace-relative path',
      ),
    allow: z
      .array(z.string())
      .optional()
      .describe(
        'glob patterns that are never secret, even if a secret pattern matches (without "/" judged on the name)',
      ),
  }),
);
export type SecretsConfig = z.infer<ReturnType<typeof SecretsSchema>>;

export interface SecretGuard {
  /** `relPath` is relative to the workspace root, with "/" separators. */
  isSecret(relPath: string): boolean;
  /**
   * The same answer as `isSecret(relPath)` for an entry `name` whose folder (`relPath` minus its last
   * segment) was already judged not secret: a walk judges each new name once instead of every folder again.
   */
  isSecretEntry(relPath: string, name: string): boolean;
}

/**
 * The guard of the built-in patterns and the user's (`config`), and of a workspace's own patterns when
 * given: a workspace's exceptions exempt only its own patterns, never a built-in or a user's one (SPEC §5a).
 */
export function createSecretGuard(config: SecretsConfig = {}, workspace?: SecretsConfig): SecretGuard {
  const base = createPatternGuard(
    [...DEFAULT_SECRET_PATTERNS, ...(config.patterns ?? [])],
    [...DEFAULT_SECRET_EXCEPTIONS, ...(config.allow ?? [])],
  );
  if (!workspace?.patterns?.length) return base;
  const own = createPatternGuard(workspace.patterns, workspace.allow ?? []);
  return {
    isSecret: (relPath) => base.isSecret(relPath) || own.isSecret(relPath),
    isSecretEntry: (relPath, name) => base.isSecretEntry(relPath, name) || own.isSecretEntry(relPath, name),
  };
}

function createPatternGuard(patterns: readonly string[], exceptions: readonly string[]): SecretGuard {
  const matchesSegment = compileAnyGlob(patterns.filter((p) => !p.includes("/")));
  const pathPatterns = patterns.filter((p) => p.includes("/"));
  const matchesPath = compileAnyGlob(pathPatterns);
  const nameExceptions = compileAnyGlob(exceptions.filter((p) => !p.includes("/")));
  const pathExceptions = compileAnyGlob(exceptions.filter((p) => p.includes("/")));
  // an exception without "/" judges the last segment of the path it is given, one with "/" the whole path
  const isException = (relPath: string) =>
    nameExceptions(relPath.slice(relPath.lastIndexOf("/") + 1)) || pathExceptions(relPath);

  function isSecret(relPath: string): boolean {
    const segments = relPath
      .replaceAll("\\", "/")
      .split("/")
      .filter((s) => s !== "" && s !== ".");
    if (segments.length === 0) return false;
    // each folder on the way is judged with its own path, so `.env.example/x.pem` is still a secret
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i] as string;
      if (matchesSegment(segment) && !isException(segments.slice(0, i + 1).join("/"))) return true;
    }
    const joined = segments.join("/");
    return matchesPath(joined) && !isException(joined);
  }

  return {
    isSecret,
    isSecretEntry(relPath, name) {
      // a name isSecret would split or drop ("a\\.env", ".", "") is judged the long way
      if (name === "" || name === "." || name.includes("\\") || !relPath.endsWith(name)) {
        return isSecret(relPath);
      }
      if (matchesSegment(name) && !isException(relPath)) return true;
      return pathPatterns.length > 0 && matchesPath(relPath) && !isException(relPath);
    },
  };
}

/**
 * One RegExp for a list of globs (picomatch's, case-insensitive, dotfiles included), tested once per
 * string instead of once per glob; an exact match of the glob text counts too, as in picomatch.
 */
function compileAnyGlob(globs: readonly string[]): (input: string) => boolean {
  if (globs.length === 0) return () => false;
  const combined = new RegExp(factoredSource(globs), "i");
  const literal = new Set(globs);
  return (input) => input !== "" && (combined.test(input) || literal.has(input));
}

/** Literal text around at most one `*` (`*.pem`, `id_rsa*`, `.env`), no `/`: a name's glob V8 matches fast. */
const SIMPLE_GLOB = /^([^*?[\]{}()!+@\\/]*)(\*?)([^*?[\]{}()!+@\\/]*)$/;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * The globs as one anchored alternation, the simple ones grouped by shape (`[^/]*(?:\.pem|\.key)`, one
 * scan for all the extensions instead of one per glob: twice as fast on a walk's names); the others
 * as picomatch's sources. Both match as picomatch does for a name (the built-in globs' tests hold it).
 */
function factoredSource(globs: readonly string[]): string {
  const literals: string[] = [];
  const prefixes: string[] = [];
  const suffixes: string[] = [];
  const others: string[] = [];
  for (const glob of globs) {
    const parts = SIMPLE_GLOB.exec(glob);
    // `*` or `.*` would match "." and "..", which picomatch's `*` never does: left to picomatch
    if (!parts || (parts[2] && !/[^.]/.test(`${parts[1]}${parts[3]}`))) {
      others.push(`(?:${picomatch.makeRe(glob, { nocase: true, dot: true }).source})`);
      continue;
    }
    const [, before = "", star, after = ""] = parts;
    if (!star) literals.push(escapeRegExp(before));
    else if (after === "") prefixes.push(escapeRegExp(before));
    else if (before === "") suffixes.push(escapeRegExp(after));
    else others.push(`${escapeRegExp(before)}[^/]*${escapeRegExp(after)}`);
  }
  const alternatives = [...others];
  if (literals.length > 0) alternatives.unshift(`(?:${literals.join("|")})`);
  if (prefixes.length > 0) alternatives.unshift(`(?:${prefixes.join("|")})[^/]*`);
  if (suffixes.length > 0) alternatives.unshift(`[^/]*(?:${suffixes.join("|")})`);
  return `^(?:${alternatives.join("|")})$`;
}
