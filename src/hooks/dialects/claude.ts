import path from "node:path";
import type { Verdict } from "../../tools/gates.js";
import type { HookEventName } from "../events.js";
import {
  eventFor,
  type HookGroup,
  type HookProblem,
  isRecord,
  type ParseContext,
  parseRules,
  warning,
} from "../rules.js";
import type { HandlerVerdict, HookDialect } from "./dialect.js";
import { stringOrUndefined } from "./dialect.js";
import { argsFromDialect, CLAUDE_TOOLS, sharedToolPayload } from "./tool-map.js";

const EVENT_NAMES: Partial<Record<HookEventName, string>> = {
  pre_tool_execution: "PreToolUse",
  post_tool_execution: "PostToolUse",
};
const PERMISSION: Record<string, Verdict> = { allow: "allow", deny: "deny", ask: "ask" };
const LEGACY_DECISION: Record<string, Verdict> = { approve: "allow", block: "deny" };

/** Claude Code's hook contract, so a script written for Claude Code runs unchanged. */
export const claudeDialect: HookDialect = {
  id: "claude",
  exitTwoBlocks: true,
  plainTextIsFailure: false,
  matchNames: (call) => ({
    gantryNames: [call.name, ...call.aliases],
    dialectName: CLAUDE_TOOLS[call.name]?.name,
  }),
  encode(event, session) {
    const payload: Record<string, unknown> = {
      ...sharedToolPayload(CLAUDE_TOOLS, EVENT_NAMES[event.kind], event, session),
      permission_mode: "default",
    };
    if (event.kind === "post_tool_execution") {
      const { result } = event;
      payload.tool_response = {
        success: !result.error,
        output: result.text,
        ...(result.error ? { error: result.text } : {}),
        metadata: result.metadata,
      };
    }
    return payload;
  },
  decode(output, event) {
    const specific = isRecord(output.hookSpecificOutput) ? output.hookSpecificOutput : {};
    const verdict: HandlerVerdict = {};
    const context = [stringOrUndefined(specific.additionalContext)];
    if (event.kind === "post_tool_execution") {
      // PostToolUse: `decision: "block"` feeds its reason to the model; nothing can be undone.
      if (output.decision === "block") context.push(stringOrUndefined(output.reason));
      return withContext(verdict, context);
    }
    const permission = PERMISSION[String(specific.permissionDecision)];
    const legacy = LEGACY_DECISION[String(output.decision)];
    if (permission) {
      verdict.verdict = permission;
      verdict.reason = stringOrUndefined(specific.permissionDecisionReason);
    } else if (legacy) {
      verdict.verdict = legacy;
      verdict.reason = stringOrUndefined(output.reason);
    }
    if (output.continue === false) {
      verdict.verdict = "deny";
      verdict.reason = stringOrUndefined(output.stopReason) ?? verdict.reason ?? "the hook asked to stop";
    }
    if (isRecord(specific.updatedInput)) {
      verdict.args = argsFromDialect(CLAUDE_TOOLS[event.call.name], specific.updatedInput);
    }
    return withContext(verdict, context);
  },
  blockedBy: (stderr, event) =>
    event.kind === "pre_tool_execution"
      ? { verdict: "deny", reason: stderr.trim() || "blocked by a hook (exit code 2)" }
      : withContext({}, [stderr.trim()]),
};

export function withContext(verdict: HandlerVerdict, context: (string | undefined)[]): HandlerVerdict {
  const texts = context.filter((text): text is string => Boolean(text));
  return texts.length > 0 ? { ...verdict, additionalContext: texts } : verdict;
}

const CLAUDE_EVENT_KEYS: Record<string, { event: string; only?: "success" | "failure" }> = {
  PostToolUse: { event: "PostToolUse", only: "success" },
  PostToolUseFailure: { event: "PostToolUse", only: "failure" },
};
const CLAUDE_HANDLER_FIELDS = ["statusMessage", "once", "async", "shell", "allowedEnvVars"];

/** The `hooks` section of `.claude/settings.json` (timeouts in seconds, default 600). */
export function parseClaudeSettingsHooks(
  raw: unknown,
  file: string,
  workspaceRoot: string,
  problems: HookProblem[],
): HookGroup[] {
  if (!isRecord(raw) || raw.hooks === undefined) return [];
  const name = `claude:${path.relative(workspaceRoot, file)}`;
  const ctx: ParseContext = {
    file,
    dialect: "claude",
    workspaceRoot,
    problems,
    timeoutUnitMs: 1000,
    defaultTimeoutMs: 600_000,
    extraHandlerFields: CLAUDE_HANDLER_FIELDS,
  };
  if (!isRecord(raw.hooks)) {
    problems.push(warning(file, "hooks", "must be an object of events; ignored"));
    return [];
  }
  const enabled = raw.disableAllHooks !== true;
  const group: HookGroup = { name, file, dialect: "claude", enabled, failClosed: false, rules: [] };
  for (const [key, value] of Object.entries(raw.hooks)) {
    const mapped = CLAUDE_EVENT_KEYS[key];
    const event = eventFor(ctx, mapped?.event ?? key, `hooks.${key}`);
    if (event) group.rules.push(...parseRules(ctx, value, `hooks.${key}`, event, { only: mapped?.only }));
  }
  return [group];
}
