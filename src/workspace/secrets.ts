import picomatch from "picomatch";
import { z } from "zod";

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

export const SecretsSchema = z.object({
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
});
export type SecretsConfig = z.infer<typeof SecretsSchema>;

export interface SecretGuard {
  /** `relPath` is relative to the workspace root, with "/" separators. */
  isSecret(relPath: string): boolean;
}

export function createSecretGuard(config: SecretsConfig = {}): SecretGuard {
  const options = { nocase: true, dot: true };
  const patterns = [...DEFAULT_SECRET_PATTERNS, ...(config.patterns ?? [])];
  const exceptions = [...DEFAULT_SECRET_EXCEPTIONS, ...(config.allow ?? [])];
  const segmentPatterns = patterns.filter((p) => !p.includes("/"));
  const pathPatterns = patterns.filter((p) => p.includes("/"));
  const compile = (globs: string[]) => (globs.length > 0 ? picomatch(globs, options) : () => false);
  const matchesSegment = compile(segmentPatterns);
  const matchesPath = compile(pathPatterns);
  const nameExceptions = compile(exceptions.filter((p) => !p.includes("/")));
  const pathExceptions = compile(exceptions.filter((p) => p.includes("/")));
  // an exception without "/" judges the last segment of the path it is given, one with "/" the whole path
  const isException = (relPath: string) =>
    nameExceptions(relPath.slice(relPath.lastIndexOf("/") + 1)) || pathExceptions(relPath);

  return {
    isSecret(relPath) {
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
    },
  };
}
