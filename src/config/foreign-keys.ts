import path from "node:path";
import { originOf, shownPath } from "../trust/origin.js";
import { readJsonOrProblem } from "./settings.js";

/**
 * The keys of another harness's settings file Gantry does not use, each named once (a line of the
 * session's config notices, as the unsupported `sandbox` keys of claude-settings.ts are), never
 * silently dropped: someone who set `apiKeyHelper` or `tools.discoveryCommand` for Claude Code or
 * Gemini CLI learns it does nothing here, and why where it matters (Gantry never runs a settings
 * file's command to get a key or to find tools). Only the workspace's files are named: the user's own
 * `~/.claude/settings.json` and the like are that harness's configuration, not meant for Gantry.
 */
export type Harness = "claude" | "gemini" | "qwen";

/** Top-level keys some loader of Gantry reads (config/claude-settings.ts, policy/load.ts, hooks, MCP). */
const USED: Readonly<Record<Harness, ReadonlySet<string>>> = {
  claude: new Set([
    "sandbox",
    "env",
    "hooks",
    "disableAllHooks",
    "permissions",
    // src/mcp/claude-approvals.ts
    "disabledMcpjsonServers",
    "enabledMcpjsonServers",
    "enableAllProjectMcpServers",
  ]),
  gemini: new Set(["hooks", "hooksConfig", "mcpServers"]),
  qwen: new Set(["hooks", "hooksConfig", "disableAllHooks", "mcpServers"]),
};

/** Keys that set nothing: not named. */
const QUIET = new Set(["$schema"]);

const NO_KEY_COMMAND = "Gantry never runs a settings file's command to get a key or credentials";
const MODEL = "the session's model is --model or `model` in .agents/settings.json (provider:model-id)";
const AUTH = "Gantry uses the provider's API key from the environment, never a settings file's login";
const NO_TOOL_COMMAND = "Gantry does not run a repository's command to discover or call tools";
const TOOL_LISTS = "switch tools off with tools.disabled in .agents/settings.json";

const GEMINI_WHY: Readonly<Record<string, string>> = {
  "tools.discoveryCommand": NO_TOOL_COMMAND,
  "tools.callCommand": NO_TOOL_COMMAND,
  "tools.exclude": TOOL_LISTS,
  "tools.core": TOOL_LISTS,
  "tools.sandbox": "use sandbox in .agents/settings.json",
  "mcp.serverCommand": "Gantry starts MCP servers only from mcpServers",
  toolDiscoveryCommand: NO_TOOL_COMMAND,
  toolCallCommand: NO_TOOL_COMMAND,
  excludeTools: TOOL_LISTS,
  coreTools: TOOL_LISTS,
  model: MODEL,
  "model.name": MODEL,
  "security.auth": AUTH,
  selectedAuthType: AUTH,
};

/** Why a key has no effect, where there is more to say than "not used" (dotted: a key below a section). */
const WHY: Readonly<Record<Harness, Readonly<Record<string, string>>>> = {
  claude: {
    apiKeyHelper: NO_KEY_COMMAND,
    awsAuthRefresh: NO_KEY_COMMAND,
    awsCredentialExport: NO_KEY_COMMAND,
    otelHeadersHelper: "Gantry never runs a settings file's command for telemetry headers",
    statusLine: "Gantry never runs a settings file's status line command",
    model: MODEL,
    forceLoginMethod: AUTH,
    forceLoginOrgUUID: AUTH,
  },
  // Qwen Code is a fork of Gemini CLI: the same keys mean the same
  gemini: GEMINI_WHY,
  qwen: GEMINI_WHY,
};

/**
 * One line per key of `raw` (a settings file of `harness`, shown as `shown`) Gantry does not use. A key
 * with its own reason below a section (`tools.discoveryCommand`) gets its own line; the section then
 * gets one for the rest of it, if there is any.
 */
export function unusedKeyNotices(harness: Harness, shown: string, raw: unknown): string[] {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return [];
  const lines: string[] = [];
  const why = WHY[harness];
  const line = (key: string) =>
    `${shown}: ${key} is not used by Gantry; ignored${why[key] ? `: ${why[key]}` : ""}`;
  for (const [key, value] of Object.entries(raw)) {
    if (USED[harness].has(key) || QUIET.has(key)) continue;
    const named = namedBelow(key, value, why);
    lines.push(...named.map(line));
    const children = typeof value === "object" && value !== null ? Object.keys(value) : [];
    const rest = children.filter(
      (child) =>
        !named.some((dotted) => dotted === `${key}.${child}` || dotted.startsWith(`${key}.${child}.`)),
    );
    if (named.length === 0 || rest.length > 0) lines.push(line(key));
  }
  return lines;
}

/** The keys below `key` the reasons name (`security.auth`), deepest first where both are there. */
function namedBelow(key: string, value: unknown, why: Readonly<Record<string, string>>): string[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
  return Object.keys(value).flatMap((child) => {
    const dotted = `${key}.${child}`;
    const deeper = namedBelow(dotted, (value as Record<string, unknown>)[child], why);
    if (deeper.length > 0) return deeper;
    return why[dotted] ? [dotted] : [];
  });
}

/** The workspace's Gemini CLI and Qwen Code settings (their hooks and mcpServers are read elsewhere). */
const FOREIGN_FILES: readonly [string, Harness][] = [
  [".gemini/settings.json", "gemini"],
  [".qwen/settings.json", "qwen"],
];

/**
 * The unused keys of the workspace's `.gemini/settings.json` and `.qwen/settings.json`. A file that cannot
 * be read or is not JSON is passed over: the hooks and MCP loaders that use it name it.
 */
export function foreignSettingsNotices(root: string, home: string): string[] {
  return FOREIGN_FILES.flatMap(([rel, harness]) => {
    const file = path.join(root, rel);
    if (originOf(file, home, root) !== "workspace") return [];
    const read = readJsonOrProblem(file);
    if (read === undefined || "problem" in read) return [];
    return unusedKeyNotices(harness, shownPath(file, root, home), read.raw);
  });
}
