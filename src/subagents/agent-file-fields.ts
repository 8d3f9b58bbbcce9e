import path from "node:path";
import { type ApprovalMode, parseApprovalMode } from "../policy/modes.js";
import { isModelTier } from "./model-tiers.js";
import type { SubagentDefinition } from "./types.js";

type RunField =
  | "approvalMode"
  | "background"
  | "isolation"
  | "maxTurns"
  | "timeoutMs"
  | "temperature"
  | "skills";

/**
 * How the agent runs, from the fields Claude Code (`permissionMode`, `background`, `isolation`,
 * `maxTurns`, `skills`), Gemini CLI (`kind`, `max_turns`, `timeout_mins`, `temperature`) and Qwen Code
 * (`approvalMode`) add; a value Gantry cannot honour is an error naming the field, so the agent never
 * runs other than written.
 */
export function parseRunFields(fields: Record<string, unknown>): Pick<SubagentDefinition, RunField> | string {
  const problem = kindProblem(fields.kind) ?? executorProblem(fields.executor) ?? valueProblem(fields);
  if (problem) return problem;
  const approvalMode = agentModeOf(fields);
  const maxTurns = (fields.max_turns ?? fields.maxTurns) as number | undefined;
  const minutes = fields.timeout_mins as number | undefined;
  const skills = namesOf(fields.skills);
  return {
    ...(approvalMode ? { approvalMode } : {}),
    ...(typeof fields.background === "boolean" ? { background: fields.background } : {}),
    ...(fields.isolation === "worktree" ? { isolation: "worktree" as const } : {}),
    ...(maxTurns !== undefined ? { maxTurns } : {}),
    ...(minutes !== undefined ? { timeoutMs: minutes * 60_000 } : {}),
    ...(typeof fields.temperature === "number" ? { temperature: fields.temperature } : {}),
    ...(typeof fields.top_p === "number" ? { topP: fields.top_p } : {}),
    ...(Array.isArray(skills) && skills.length > 0 ? { skills } : {}),
    ...(fields.hooks !== undefined ? { hooks: fields.hooks as Record<string, unknown> } : {}),
  };
}

/**
 * Claude Code's `auto` is its classifier mode: nothing here judges calls that way, so it narrows as
 * Qwen Code reads it, to acceptEdits. Qwen Code's own `approvalMode` wins over `permissionMode`, as
 * there; its `bubble` (asks go to the parent) runs as `default`, the asks denied as any subagent's are.
 */
const AGENT_MODES: Record<string, ApprovalMode> = { auto: "auto-edit", bubble: "default" };
const QWEN_MODES = ["default", "plan", "auto-edit", "yolo", "bubble"];

function agentModeOf(fields: Record<string, unknown>): ApprovalMode | undefined {
  if (typeof fields.approvalMode === "string")
    return AGENT_MODES[fields.approvalMode] ?? parseApprovalMode(fields.approvalMode);
  if (typeof fields.permissionMode !== "string") return undefined;
  return AGENT_MODES[fields.permissionMode] ?? parseApprovalMode(fields.permissionMode);
}

/** Qwen Code's `executor` hands the agent to another program; running it here instead would be another agent. */
function executorProblem(executor: unknown): string | undefined {
  if (executor === undefined) return undefined;
  return "executor (an external agent process) is not supported; only agents Gantry runs itself load (remove executor: to run it here)";
}

function kindProblem(kind: unknown): string | undefined {
  if (kind === undefined || kind === "local") return undefined;
  return kind === "remote"
    ? "kind: remote (an A2A agent) is not supported here; only local agents run"
    : `kind must be "local" (got ${JSON.stringify(kind)})`;
}

const isCount = (value: unknown) => Number.isInteger(value) && (value as number) > 0;

function valueProblem(fields: Record<string, unknown>): string | undefined {
  const shown = (value: unknown) => JSON.stringify(value);
  const mode = fields.permissionMode;
  if (
    mode !== undefined &&
    (typeof mode !== "string" || (mode !== "auto" && parseApprovalMode(mode) === undefined))
  )
    return `permissionMode must be default, acceptEdits, auto, dontAsk, bypassPermissions or plan (got ${shown(mode)})`;
  const qwenMode = fields.approvalMode;
  if (qwenMode !== undefined && !(typeof qwenMode === "string" && QWEN_MODES.includes(qwenMode)))
    return `approvalMode must be default, plan, auto-edit, yolo or bubble (got ${shown(qwenMode)})`;
  if (fields.background !== undefined && typeof fields.background !== "boolean")
    return `background must be true or false (got ${shown(fields.background)})`;
  if (fields.isolation !== undefined && fields.isolation !== "worktree")
    return `isolation must be "worktree" (got ${shown(fields.isolation)})`;
  const turns = fields.max_turns ?? fields.maxTurns;
  if (turns !== undefined && !isCount(turns))
    return `max_turns must be a whole number above 0 (got ${shown(turns)})`;
  const minutes = fields.timeout_mins;
  if (minutes !== undefined && !(typeof minutes === "number" && minutes > 0))
    return `timeout_mins must be a number of minutes above 0 (got ${shown(minutes)})`;
  const temperature = fields.temperature;
  if (temperature !== undefined && !(typeof temperature === "number" && temperature >= 0 && temperature <= 2))
    return `temperature must be a number from 0 to 2 (got ${shown(temperature)})`;
  const topP = fields.top_p;
  if (topP !== undefined && !(typeof topP === "number" && topP >= 0 && topP <= 1))
    return `top_p must be a number from 0 to 1 (got ${shown(topP)})`;
  const hooks = fields.hooks;
  if (hooks !== undefined && (typeof hooks !== "object" || hooks === null || Array.isArray(hooks)))
    return "hooks must be an object of events, as in settings (PreToolUse: [{ matcher, hooks }])";
  if (fields.skills !== undefined && typeof namesOf(fields.skills) === "string")
    return "skills must be a list of skill names or a comma-separated string";
  return undefined;
}

/** A YAML list of names or a comma-separated string; a string says it is neither. */
function namesOf(value: unknown): string[] | string {
  if (value === undefined || value === null) return [];
  const names = typeof value === "string" ? value.split(",") : value;
  if (!Array.isArray(names) || names.some((name) => typeof name !== "string")) return "not a list of names";
  return (names as string[]).map((name) => name.trim()).filter((name) => name !== "");
}

/**
 * Claude Code's `mcpServers` as tool names: each server it names (one the settings configure) gives the
 * agent that server's tools. A server defined inline in the file (Claude Code's objects, Gemini CLI's
 * `mcp_servers` map, always inline) is refused: agent files do not start processes of their own.
 */
export function mcpServerTools(value: unknown, geminiServers?: unknown): string[] | string {
  if (geminiServers !== undefined)
    return "mcp_servers (servers defined in the agent file) are not started from agent files; add the server to mcpServers in settings and list its tools (mcp_<server>_*) in tools";
  if (value === undefined) return [];
  const inline =
    "mcpServers in an agent file may only name servers your settings configure; add the server to mcpServers in settings and name it here";
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== "string")) return inline;
  return (value as string[]).map((name) => `mcp__${name.trim()}`);
}

/** Qwen Code's `modelConfig` and `runConfig` objects: the words of its files. */
const QWEN_NESTED: Record<string, Record<string, string>> = {
  modelConfig: { model: "model", temp: "temperature", temperature: "temperature", top_p: "top_p" },
  runConfig: { max_turns: "max_turns", max_time_minutes: "timeout_mins" },
};

/**
 * Qwen Code's nested fields as the flat ones (`modelConfig.temp` is `temperature`, `runConfig.max_turns`
 * `max_turns`); a flat field written too wins. A key Qwen's objects do not have stays, as unknown.
 */
export function flattenQwenFields(fields: Record<string, unknown>): Record<string, unknown> {
  const flat: Record<string, unknown> = { ...fields };
  for (const [object, keys] of Object.entries(QWEN_NESTED)) {
    const nested = fields[object];
    if (typeof nested !== "object" || nested === null || Array.isArray(nested)) continue;
    delete flat[object];
    for (const [key, value] of Object.entries(nested)) {
      const flatKey = keys[key] ?? `${object}.${key}`;
      if (!(flatKey in flat)) flat[flatKey] = value;
    }
  }
  return flat;
}

/** Fields known to the harnesses that Gantry does not act on; anything else is unknown. */
const NOT_HONOURED: Record<string, string> = {
  // not a loss but worth saying: these run code, and only where the file's folder is trusted
  hooks:
    'hooks in an agent file run for that agent\'s own calls, only once the folder holding the file is trusted ("gantry trust" shows them)',
  memory: "memory (a persistent memory folder) is not supported; the agent runs without one",
  effort: "effort (the model's reasoning effort) is not supported; the agent runs at the model's default",
  initialPrompt:
    "initialPrompt applies when the agent is the main session's agent (claude --agent); a subagent starts from the prompt its parent gives",
};

/** Values read, but not as their harness means them: said, so the difference is not a surprise. */
function valueWarnings(fields: Record<string, unknown>): string[] {
  const warnings: string[] = [];
  if (fields.permissionMode === "auto" && fields.approvalMode === undefined)
    warnings.push(
      "permissionMode auto (Claude Code's classifier) has no counterpart here; the agent runs as with acceptEdits: edits run, commands and network tools ask",
    );
  return warnings;
}
const KNOWN = new Set([
  ...[
    "name",
    "description",
    "tools",
    "disallowedTools",
    "model",
    "permissionMode",
    "maxTurns",
    "skills",
    "hooks",
  ],
  ...["mcpServers", "background", "isolation", "color", "kind", "max_turns", "timeout_mins", "temperature"],
  ...["top_p", "display_name", "approvalMode"],
]);

/** What the file says that the agent will run without: said by `gantry agents`, never silently dropped. */
export function fieldWarnings(fields: Record<string, unknown>): string[] {
  const warnings: string[] = valueWarnings(fields);
  for (const key of Object.keys(fields)) {
    if (Object.hasOwn(NOT_HONOURED, key)) warnings.push(NOT_HONOURED[key] as string);
    else if (!KNOWN.has(key)) warnings.push(`unknown field "${key}"; ignored`);
  }
  return warnings;
}

/**
 * A model as the file's harness writes it: Gemini CLI's files name a bare Gemini model
 * (`gemini-3-flash-preview`), Claude Code's may name a bare Claude one; Gantry's are `provider:model-id`
 * or a tier.
 */
export function modelSpecOf(model: string, file: string): string {
  if (model.includes(":") || isModelTier(model)) return model;
  const folder = file.split(path.sep).join("/");
  if (/\/\.gemini\/agents\/|\/gemini-cli\/agents\//.test(folder)) return `google:${model}`;
  if (folder.includes("/.claude/agents/") && model.startsWith("claude-")) return `anthropic:${model}`;
  return model;
}
