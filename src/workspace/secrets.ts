import picomatch from "picomatch";
import { z } from "zod";

/** Files an agent must never read, list, search or write (seed 001, SPEC §3). Judged on workspace-relative paths. */
export const DEFAULT_SECRET_PATTERNS = [
  ".env",
  ".env.*",
  "*.pem",
  "*.key",
  "*.p12",
  "*.pfx",
  "id_rsa*",
  "id_dsa*",
  "id_ecdsa*",
  "id_ed25519*",
  ".netrc",
  ".git/**",
] as const;

export const DEFAULT_SECRET_EXCEPTIONS = [".env.example", ".env.sample", ".env.template"] as const;

export const SecretsSchema = z.object({
  patterns: z.array(z.string()).optional().describe("glob patterns added to the built-in secret patterns"),
  allow: z
    .array(z.string())
    .optional()
    .describe("glob patterns that are never secret, even if a pattern matches"),
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
  // a pattern without "/" judges every path segment (a secret folder hides what is inside it)
  const segmentPatterns = patterns.filter((p) => !p.includes("/"));
  const pathPatterns = patterns.filter((p) => p.includes("/"));
  const matchesSegment = picomatch(segmentPatterns, options);
  const matchesPath = pathPatterns.length > 0 ? picomatch(pathPatterns, options) : () => false;
  const isException = picomatch(exceptions, { ...options, basename: true });

  return {
    isSecret(relPath) {
      const normalized = relPath.replaceAll("\\", "/").replace(/^\.\/+/, "");
      if (normalized === "" || normalized === ".") return false;
      const segments = normalized.split("/").filter((s) => s !== "" && s !== ".");
      if (segments.some((segment) => segment.toLowerCase() === ".git")) return true;
      if (isException(normalized)) return false;
      if (segments.some((segment) => matchesSegment(segment))) return true;
      return matchesPath(segments.join("/"));
    },
  };
}
