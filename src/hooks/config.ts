import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { parseClaudeSettingsHooks } from "./dialects/claude.js";
import { parseGeminiSettingsHooks } from "./dialects/gemini.js";
import {
  error,
  eventFor,
  type HookConfig,
  type HookGroup,
  type HookProblem,
  type HookRule,
  isRecord,
  type ParseContext,
  parseRules,
  readBoolean,
} from "./rules.js";

export type { HookConfig, HookGroup, HookProblem } from "./rules.js";

export const HOOKS_FILE = path.join(".agents", "hooks.json");
const NATIVE_GROUP_FIELDS = new Set(["enabled", "failClosed", "description"]);

/** Every hooks source of a workspace, in the order their handlers run. */
export function hookSources(workspaceRoot: string, home = homedir()) {
  const native = [...new Set([path.join(home, HOOKS_FILE), path.join(workspaceRoot, HOOKS_FILE)])];
  return [
    ...native.map((file) => ({ file, dialect: "native" as const })),
    { file: path.join(workspaceRoot, ".claude", "settings.json"), dialect: "claude" as const },
    { file: path.join(workspaceRoot, ".claude", "settings.local.json"), dialect: "claude" as const },
    { file: path.join(workspaceRoot, ".gemini", "settings.json"), dialect: "gemini" as const },
  ];
}

export function loadHookConfig(workspaceRoot: string, home = homedir()): HookConfig {
  const config: HookConfig = { groups: [], files: [], problems: [] };
  for (const source of hookSources(workspaceRoot, home)) {
    if (!existsSync(source.file)) continue;
    config.files.push(source.file);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(source.file, "utf8"));
    } catch (cause) {
      config.problems.push(error(source.file, "(file)", `not valid JSON: ${(cause as Error).message}`));
      continue;
    }
    const parse =
      source.dialect === "native"
        ? parseNativeHooks
        : source.dialect === "claude"
          ? parseClaudeSettingsHooks
          : parseGeminiSettingsHooks;
    config.groups.push(...parse(raw, source.file, workspaceRoot, config.problems));
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
export function parseNativeHooks(
  raw: unknown,
  file: string,
  workspaceRoot: string,
  problems: HookProblem[],
): HookGroup[] {
  if (!isRecord(raw)) {
    problems.push(error(file, "(top)", "must be an object of named hook groups"));
    return [];
  }
  const ctx: ParseContext = {
    file,
    dialect: "native",
    workspaceRoot,
    problems,
    timeoutUnitMs: 1000,
    defaultTimeoutMs: 30_000,
    extraHandlerFields: [],
  };
  const groups: HookGroup[] = [];
  for (const [name, body] of Object.entries(raw)) {
    if (!isRecord(body)) {
      problems.push(error(file, name, "a hook group must be an object"));
      continue;
    }
    const group: HookGroup = {
      name,
      file,
      dialect: "native",
      enabled: readBoolean(ctx, body, `${name}.enabled`, "enabled") ?? true,
      failClosed: readBoolean(ctx, body, `${name}.failClosed`, "failClosed") ?? false,
      rules: [],
    };
    for (const [key, value] of Object.entries(body)) {
      if (NATIVE_GROUP_FIELDS.has(key)) continue;
      const event = eventFor(ctx, key, `${name}.${key}`);
      if (event) group.rules.push(...parseRules(ctx, value, `${name}.${key}`, event).map(rootAgentsPaths));
    }
    groups.push(group);
  }
  return groups;
}

// seed 002 runs hooks in a sandbox whose root is the workspace, so its commands name `/.agents/...`;
// here that folder is the workspace's (unless this machine really has a /.agents).
const ROOT_AGENTS = /(^|[\s"'=:])\/\.agents\//g;

function rootAgentsPaths(rule: HookRule): HookRule {
  if (existsSync("/.agents")) return rule;
  const handlers = rule.handlers.map((handler) =>
    handler.kind === "command"
      ? { ...handler, command: handler.command.replace(ROOT_AGENTS, '$1"$GANTRY_PROJECT_DIR"/.agents/') }
      : handler,
  );
  return { ...rule, handlers };
}
