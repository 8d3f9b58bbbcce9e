import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { DEFAULT_LIMITS, type Limits, LimitsSchema } from "./limits.js";
import { type PathResult, resolveInsideWorkspace, toRelative } from "./paths.js";
import { createSecretGuard, type SecretGuard, type SecretsConfig } from "./secrets.js";

/** The folder an agent works in, with its guard: every tool resolves paths through it. */
export interface Workspace {
  /** Real path of the workspace root. */
  readonly root: string;
  readonly limits: Limits;
  readonly secrets: SecretGuard;
  /**
   * More paths no write of the agent may change (besides workspace/protected.ts's patterns): the scripts
   * hooks run and the user's own config folders, absolute.
   */
  readonly protectedPaths: readonly string[];
  /**
   * Resolves a path the model gave: inside the workspace after `..` and symlinks, and not a secret
   * (judged on both the path as named and the path it resolves to).
   */
  resolve(input: string): Promise<PathResult>;
  relative(abs: string): string;
}

export interface WorkspaceOptions {
  limits?: Partial<Limits>;
  /** The user's secret settings (built-in patterns always hold). */
  secrets?: SecretsConfig;
  /** The workspace's own patterns and exceptions to them (its exceptions exempt nothing else). */
  workspaceSecrets?: SecretsConfig;
  protectedPaths?: readonly string[];
}

export function openWorkspace(root: string, options: WorkspaceOptions = {}): Workspace {
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    throw new Error(`workspace folder "${root}" does not exist`);
  }
  if (!statSync(realRoot).isDirectory()) throw new Error(`workspace "${root}" is not a folder`);
  // parsing fills every limit left out (or explicitly undefined) with its default; none set: the defaults
  const given = Object.values(options.limits ?? {}).some((value) => value !== undefined);
  const limits: Limits = given ? LimitsSchema().parse({ ...options.limits }) : { ...DEFAULT_LIMITS };
  const secrets = createSecretGuard(options.secrets, options.workspaceSecrets);

  return {
    root: realRoot,
    limits,
    secrets,
    protectedPaths: options.protectedPaths ?? [],
    async resolve(input) {
      const result = await resolveInsideWorkspace(realRoot, input);
      if (!result.ok) return result;
      // the name as given counts too: a link called `.env` is refused even if it points at a harmless file
      const named = toRelative(realRoot, path.resolve(realRoot, input));
      const namedInside = named !== ".." && !named.startsWith("../") && !path.isAbsolute(named);
      if (secrets.isSecret(result.path.rel) || (namedInside && secrets.isSecret(named))) {
        return {
          ok: false,
          error: {
            code: "secret_path",
            message: `"${input}" is a secret file (credentials, keys, .env, .git internals); refused.`,
          },
        };
      }
      return result;
    },
    relative(abs) {
      return toRelative(realRoot, abs);
    },
  };
}
