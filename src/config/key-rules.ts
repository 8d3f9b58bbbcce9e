/**
 * How each settings key may be set by a workspace (SPEC §5a), as data. The user's home (and whatever the
 * caller gives) is the user; the workspace is whoever wrote the repository. An untrusted workspace may
 * only narrow; a trusted one may also set what the home leaves unset, but never lower what it sets.
 * A key not listed here is a loosening key: only a trusted workspace sets it.
 */
export type KeyRule =
  /** Harmless either way: the workspace's value wins. */
  | { kind: "neutral" }
  /** Redirects or loosens (model, endpoints, allow lists): only from a trusted workspace, which wins. */
  | { kind: "trusted" }
  /** Widens what the user allows: only from a trusted workspace, and only where the home leaves it unset. */
  | { kind: "allowance" }
  /** Exceptions that apply only to the same file's own entries: never merged with the user's. */
  | { kind: "scoped" }
  /** A list of denials: every file's entries add up, never replaced. */
  | { kind: "denials" }
  /** A number where smaller is stricter; `zeroIsUnlimited` for "0 = no limit"; `fallback` = built-in default. */
  | { kind: "limit"; fallback?: number; zeroIsUnlimited?: boolean }
  /**
   * A switch whose `strict` value is the safe one (sandbox on, agent config edits off). `userOnly`: its
   * loose value counts from the user's own settings only, trusted workspace or not.
   */
  | { kind: "switch"; strict: boolean; fallback: boolean; userOnly?: string }
  /** One of an ordered set of values, strictest first. */
  | { kind: "ordered"; order: readonly string[]; fallback: string }
  /** Named values (`env`): only from a trusted workspace, each name over the home's of the same name. */
  | { kind: "variables" };

const limit = (fallback?: number): KeyRule => ({ kind: "limit", ...(fallback ? { fallback } : {}) });

export const KEY_RULES: Readonly<Record<string, KeyRule>> = {
  "limits.maxOutputChars": limit(20_000),
  "limits.maxReadLines": limit(2_000),
  "limits.maxFileBytes": limit(10 * 1024 * 1024),
  "limits.maxSearchFileBytes": limit(1024 * 1024),
  "limits.maxDirEntries": limit(500),
  "limits.maxMatches": limit(100),
  "secrets.patterns": { kind: "denials" },
  // a workspace's exceptions only ever exempt the workspace's own patterns (workspace/secrets.ts)
  "secrets.allow": { kind: "scoped" },
  "tools.disabled": { kind: "denials" },
  // a chosen tool set: only a trusted workspace may pick it, and only where the home picks none (it could
  // name tools the user's own list leaves out); tools.disabled narrows it from any file
  "tools.only": { kind: "allowance" },
  "tools.compact": { kind: "neutral" },
  // it lifts the protection of the user's own config folders too (~/.agents/hooks.json, the trust store),
  // which are always trusted and never pinned: an edit there would reach every later session in every folder
  allowAgentConfigEdits: {
    kind: "switch",
    strict: false,
    fallback: false,
    userOnly:
      "only your own ~/.agents/settings.json may turn it on: it lets the agent change your home's config files too",
  },
  "exec.timeoutMs": limit(120_000),
  "exec.backgroundTimeoutMs": { kind: "limit", zeroIsUnlimited: true },
  // a run_command call that timed out waits this long for a process ignoring SIGTERM: a longer wait stretches every timeout
  "exec.killGraceMs": limit(2_000),
  "exec.isolation": { kind: "ordered", order: ["pid-namespace", "auto", "process-group"], fallback: "auto" },
  "exec.conditionPollSeconds": { kind: "neutral" },
  "exec.conditionTimeoutSeconds": limit(30),
  "sandbox.enabled": { kind: "switch", strict: true, fallback: false },
  "sandbox.allowedDomains": { kind: "allowance" },
  "sandbox.deniedDomains": { kind: "denials" },
  "sandbox.allowWrite": { kind: "allowance" },
  "sandbox.denyWrite": { kind: "denials" },
  "sandbox.denyRead": { kind: "denials" },
  "sandbox.env.allow": { kind: "allowance" },
  "search.engine": { kind: "neutral" },
  "web.timeoutMs": limit(30_000),
  "web.maxBytes": limit(5 * 1024 * 1024),
  "web.allowPrivateNetwork": { kind: "allowance" },
  // where searches and image prompts go (and with which key): a repository may not point them at its server
  "web.search": { kind: "trusted" },
  images: { kind: "trusted" },
  "subagents.maxDepth": limit(2),
  "subagents.maxTurns": limit(50),
  // subagents.models.* choose models (like `model`): unlisted, so only a trusted workspace sets them
  "hooks.idleNotificationSeconds": { kind: "neutral" },
  maxTurns: limit(),
  // variables for every command and hook: a repository's PATH or BASH_ENV would run its code
  env: { kind: "variables" },
  model: { kind: "trusted" },
  baseUrl: { kind: "trusted" },
  contextWindow: { kind: "trusted" },
};

/** Keys read by the permission policy (src/policy/load.ts), not merged as settings. */
export const POLICY_KEYS = new Set(["permissions", "approvalMode"]);

/**
 * Keys a loader of their own reads from every file that holds them, recording each value with its
 * trust (`mcpServers`: src/mcp/sources.ts, one value per server; a workspace's need trust).
 */
export const OWN_LOADER_KEYS = new Set(["mcpServers"]);

export function ruleFor(key: string): KeyRule | undefined {
  return KEY_RULES[key];
}

/** Whether `key` (dotted) has a rule of its own or sits above keys that do (a section to walk into). */
export function isSection(key: string): boolean {
  const prefix = `${key}.`;
  return Object.keys(KEY_RULES).some((known) => known.startsWith(prefix));
}
