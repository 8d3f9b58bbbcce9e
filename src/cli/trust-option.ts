import type { GantrySession } from "../gantry.js";
import type { TrustOption } from "../trust/session-trust.js";
import { UsageError } from "./options.js";
import { writeStderrSync } from "./write-sync.js";

/**
 * How the command trusts its workspace (SPEC §5a): `--trust` or `GANTRY_TRUST_WORKSPACE=1` for this run,
 * else the user's recorded decision. Headless runs never trust implicitly and never ask.
 */
export function cliTrustOption(flag: boolean | undefined, env: NodeJS.ProcessEnv = process.env): TrustOption {
  if (flag) return { trustedBy: "--trust" };
  const value = env.GANTRY_TRUST_WORKSPACE;
  if (value === undefined || value === "" || value === "0" || value === "false") return "recorded";
  if (value === "1" || value === "true") return { trustedBy: "GANTRY_TRUST_WORKSPACE=1" };
  throw new UsageError(`GANTRY_TRUST_WORKSPACE must be 1 (trust the workspace) or 0, not "${value}"`);
}

/** What the session ignored or could not read in its configuration, once, on stderr (by its descriptor). */
export function reportConfigNotices(session: GantrySession, write = writeStderrSync): void {
  for (const line of session.configNotices()) write(`gantry: ${line}\n`);
}
