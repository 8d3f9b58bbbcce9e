import {
  type DialectId,
  eventFor,
  groupLabel,
  type HookGroup,
  type HookRule,
  isRecord,
  type ParseContext,
  parseRules,
  type SourceContext,
  warning,
} from "../rules.js";

const CLAUDE_HANDLER_FIELDS = [
  "statusMessage",
  "once",
  "async",
  "asyncRewake",
  "shell",
  "allowedEnvVars",
  "if",
];
const QWEN_HANDLER_FIELDS = [
  "statusMessage",
  "once",
  "async",
  "shell",
  "env",
  "allowedEnvVars",
  "failMode",
  "if",
];
/**
 * Gemini CLI's model events: Claude Code and Qwen Code have none of them (Qwen's registry skips an event
 * name it does not know), and their contract has no field for what such a hook answers.
 */
const GEMINI_ONLY_EVENTS: Record<string, string> = {
  BeforeModel: "before_model",
  AfterModel: "after_model",
  BeforeToolSelection: "before_tool_selection",
};
const HARNESS = { claude: "Claude Code", qwen: "Qwen Code" };
/** PostToolUse runs after a success and PostToolUseFailure after a failure (one Gantry event). */
const ONLY: Record<string, HookRule["only"]> = { PostToolUse: "success", PostToolUseFailure: "failure" };

type Units = Pick<ParseContext, "timeoutUnitMs" | "defaultTimeoutMs" | "httpTimeout" | "extraHandlerFields">;

function contextFor(source: SourceContext, dialect: DialectId, units: Units): ParseContext {
  return {
    file: source.source.file,
    dialect,
    workspaceRoot: source.workspaceRoot,
    problems: source.problems,
    events: source.events,
    ...units,
  };
}

/** The `hooks` section of a Claude-style settings file: `{ "<Event>": [{ matcher, hooks }] }`. */
function parseClaudeStyle(raw: unknown, source: SourceContext, dialect: "claude" | "qwen", units: Units) {
  if (!isRecord(raw) || raw.hooks === undefined) return [];
  const ctx = contextFor(source, dialect, units);
  if (!isRecord(raw.hooks)) {
    source.problems.push(warning(ctx.file, "hooks", "must be an object of events; ignored"));
    return [];
  }
  const group: HookGroup = {
    name: groupLabel(source),
    file: ctx.file,
    dialect,
    scope: source.source.scope,
    enabled: raw.disableAllHooks !== true,
    failClosed: false,
    rules: [],
  };
  for (const [key, value] of Object.entries(raw.hooks)) {
    const native = Object.hasOwn(GEMINI_ONLY_EVENTS, key) ? GEMINI_ONLY_EVENTS[key] : undefined;
    if (native) {
      const message = `event "${key}" is Gemini CLI's; ${HARNESS[dialect]} has no such event, so its hooks are ignored (put it in .gemini/settings.json, or as ${native} in .agents/hooks.json)`;
      ctx.events.push({ file: ctx.file, key, fires: false });
      source.problems.push(warning(ctx.file, `hooks.${key}`, message));
      continue;
    }
    const event = eventFor(ctx, key, `hooks.${key}`);
    if (event) group.rules.push(...parseRules(ctx, value, `hooks.${key}`, event, { key, only: ONLY[key] }));
  }
  return [group];
}

/** `.claude/settings.json` (home and workspace) and `.claude/settings.local.json`: timeouts in seconds, default 600. */
export function parseClaudeSettingsHooks(raw: unknown, source: SourceContext): HookGroup[] {
  return parseClaudeStyle(raw, source, "claude", {
    timeoutUnitMs: 1000,
    defaultTimeoutMs: 600_000,
    extraHandlerFields: CLAUDE_HANDLER_FIELDS,
  });
}

/** `.qwen/settings.json`: Claude's events with Qwen's tool names; commands time out in ms (60,000), HTTP in s (600). */
export function parseQwenSettingsHooks(raw: unknown, source: SourceContext): HookGroup[] {
  return parseClaudeStyle(raw, source, "qwen", {
    timeoutUnitMs: 1,
    defaultTimeoutMs: 60_000,
    httpTimeout: { unitMs: 1000, defaultMs: 600_000 },
    extraHandlerFields: QWEN_HANDLER_FIELDS,
  });
}

/** The `hooks` section of `.gemini/settings.json` (timeouts in milliseconds, default 60,000). */
export function parseGeminiSettingsHooks(raw: unknown, source: SourceContext): HookGroup[] {
  if (!isRecord(raw) || raw.hooks === undefined) return [];
  const ctx = contextFor(source, "gemini", {
    timeoutUnitMs: 1,
    defaultTimeoutMs: 60_000,
    extraHandlerFields: ["env"],
  });
  if (!isRecord(raw.hooks)) {
    source.problems.push(warning(ctx.file, "hooks", "must be an object of events; ignored"));
    return [];
  }
  const settings = isRecord(raw.hooksConfig) ? raw.hooksConfig : {};
  const disabled = new Set([
    ...(Array.isArray(settings.disabled) ? settings.disabled.map(String) : []),
    ...(Array.isArray(raw.hooks.disabled) ? raw.hooks.disabled.map(String) : []),
  ]);
  const enabled = settings.enabled !== false && raw.hooks.enabled !== false;
  const group: HookGroup = {
    name: groupLabel(source),
    file: ctx.file,
    dialect: "gemini",
    scope: source.source.scope,
    enabled,
    failClosed: false,
    rules: [],
  };
  for (const [key, value] of Object.entries(raw.hooks)) {
    if (key === "enabled" || key === "disabled" || key === "notifications") continue;
    const event = eventFor(ctx, key, `hooks.${key}`);
    if (!event) continue;
    for (const rule of parseRules(ctx, value, `hooks.${key}`, event, { key, ruleFields: ["sequential"] })) {
      // hooksConfig.disabled lists hook names (or commands) the user switched off.
      rule.handlers = rule.handlers.filter(
        (h) => !disabled.has(h.name) && !(h.kind === "command" && disabled.has(h.command)),
      );
      group.rules.push(rule);
    }
  }
  return [group];
}
