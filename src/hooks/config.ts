import { existsSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { readIfPresent } from "../config/read-if-present.js";
import {
  parseClaudeSettingsHooks,
  parseGeminiSettingsHooks,
  parseQwenSettingsHooks,
} from "./dialects/settings-parsers.js";
import {
  type DialectId,
  error,
  eventFor,
  type HookConfig,
  type HookGroup,
  type HookProblem,
  type HookRule,
  type HookSource,
  isRecord,
  type ParseContext,
  parseRules,
  readBoolean,
  type SourceContext,
} from "./rules.js";

export type { HookConfig, HookGroup, HookProblem, HookSource } from "./rules.js";

export const HOOKS_FILE = path.join(".agents", "hooks.json");
const NATIVE_GROUP_FIELDS = new Set(["enabled", "failClosed", "description"]);

/**
 * Every hooks source of a workspace, in the order their handlers run: per harness the user's home first,
 * then the workspace, as each harness reads them. The one list every loader goes through, so a trust
 * filter on `scope` applies at one place.
 */
export function hookSources(workspaceRoot: string, home = homedir()): HookSource[] {
  const at = (base: string, ...parts: string[]) => path.join(base, ...parts);
  const sources: HookSource[] = [
    { file: at(home, HOOKS_FILE), dialect: "native", scope: "home" },
    { file: at(workspaceRoot, HOOKS_FILE), dialect: "native", scope: "workspace" },
    { file: at(home, ".claude", "settings.json"), dialect: "claude", scope: "home" },
    { file: at(workspaceRoot, ".claude", "settings.json"), dialect: "claude", scope: "workspace" },
    { file: at(workspaceRoot, ".claude", "settings.local.json"), dialect: "claude", scope: "workspace" },
    { file: at(home, ".gemini", "settings.json"), dialect: "gemini", scope: "home" },
    { file: at(workspaceRoot, ".gemini", "settings.json"), dialect: "gemini", scope: "workspace" },
    { file: at(home, ".qwen", "settings.json"), dialect: "qwen", scope: "home" },
    { file: at(workspaceRoot, ".qwen", "settings.json"), dialect: "qwen", scope: "workspace" },
  ];
  // a workspace that is the home folder has one copy of each file, read as the user's own
  const seen = new Set<string>();
  return sources.filter((source) => !seen.has(source.file) && seen.add(source.file));
}

const PARSERS: Record<DialectId, (raw: unknown, ctx: SourceContext) => HookGroup[]> = {
  native: parseNativeHooks,
  claude: parseClaudeSettingsHooks,
  gemini: parseGeminiSettingsHooks,
  qwen: parseQwenSettingsHooks,
};

/** The hooks of the home's and the workspace's files, with the bytes each file was parsed from (for its trust). */
export function loadHookConfig(workspaceRoot: string, home = homedir()): HookConfig {
  const contents: Record<string, Buffer> = {};
  const config: HookConfig = { groups: [], files: [], problems: [], events: [], contents };
  for (const source of hookSources(workspaceRoot, home)) {
    let bytes: Buffer | undefined;
    try {
      bytes = readIfPresent(source.file);
    } catch (cause) {
      // a file that cannot be read is a problem of that file: a workspace's is ignored untrusted, not fatal
      config.files.push(source.file);
      config.problems.push(error(source.file, "(file)", `cannot be read: ${(cause as Error).message}`));
      continue;
    }
    if (bytes === undefined) continue;
    config.files.push(source.file);
    contents[source.file] = bytes;
    let raw: unknown;
    try {
      raw = JSON.parse(bytes.toString("utf8"));
    } catch (cause) {
      config.problems.push(error(source.file, "(file)", `not valid JSON: ${(cause as Error).message}`));
      continue;
    }
    const ctx: SourceContext = {
      source,
      workspaceRoot,
      home,
      problems: config.problems,
      events: config.events,
    };
    config.groups.push(...PARSERS[source.dialect](raw, ctx));
  }
  return config;
}

/** The problems that must stop a session: a guard the user wrote but Gantry cannot understand. */
export function fatalProblems(config: HookConfig): HookProblem[] {
  return config.problems.filter((problem) => problem.severity === "error");
}

export function formatProblem(problem: HookProblem): string {
  return `${problem.file}: ${problem.at}: ${problem.message}`;
}

/** `.agents/hooks.json`: `{ "<group>": { enabled, failClosed, "<event>": [rule, ...] } }`. */
export function parseNativeHooks(raw: unknown, source: SourceContext): HookGroup[] {
  const { file } = source.source;
  if (!isRecord(raw)) {
    source.problems.push(error(file, "(top)", "must be an object of named hook groups"));
    return [];
  }
  const ctx: ParseContext = {
    file,
    dialect: "native",
    workspaceRoot: source.workspaceRoot,
    problems: source.problems,
    events: source.events,
    timeoutUnitMs: 1000,
    defaultTimeoutMs: 30_000,
    extraHandlerFields: [],
  };
  const groups: HookGroup[] = [];
  for (const [name, body] of Object.entries(raw)) {
    if (!isRecord(body)) {
      source.problems.push(error(file, name, "a hook group must be an object"));
      continue;
    }
    const group: HookGroup = {
      name,
      file,
      dialect: "native",
      scope: source.source.scope,
      enabled: readBoolean(ctx, body, `${name}.enabled`, "enabled") ?? true,
      failClosed: readBoolean(ctx, body, `${name}.failClosed`, "failClosed") ?? false,
      rules: [],
    };
    for (const [key, value] of Object.entries(body)) {
      if (NATIVE_GROUP_FIELDS.has(key)) continue;
      const event = eventFor(ctx, key, `${name}.${key}`);
      if (!event) continue;
      const only = key === "PostToolUseFailure" ? ("failure" as const) : undefined;
      const rules = parseRules(ctx, value, `${name}.${key}`, event, { key, only });
      group.rules.push(...rules.map(rootAgentsPaths));
    }
    groups.push(group);
  }
  return groups;
}

// seed 002 runs hooks in a sandbox whose root is the workspace, so its commands name `/.agents/...`;
// here that folder is the workspace's (unless this machine really has a /.agents).
// an opening quote only (`"/.agents/x"`): the closing quote of `"$GANTRY_PROJECT_DIR"/.agents/x` is no root path
const ROOT_AGENTS = /(^|[\s=:]|(?<![^\s=:])["'])\/\.agents\//g;

/** The workspace's `.agents/` in place of `/.agents/`, spelt for the quoting it stands in. */
function workspaceAgents(_whole: string, before: string): string {
  if (before === "'") return `''"$GANTRY_PROJECT_DIR"'/.agents/`;
  if (before === '"') return '"$GANTRY_PROJECT_DIR/.agents/';
  return `${before}"$GANTRY_PROJECT_DIR"/.agents/`;
}

function rootAgentsPaths(rule: HookRule): HookRule {
  if (existsSync("/.agents")) return rule;
  const handlers = rule.handlers.map((handler) =>
    handler.kind === "command"
      ? { ...handler, command: handler.command.replace(ROOT_AGENTS, workspaceAgents) }
      : handler,
  );
  return { ...rule, handlers };
}
