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
import { withContext } from "./claude.js";
import type { HandlerVerdict, HookDialect } from "./dialect.js";
import { stringOrUndefined } from "./dialect.js";
import { argsFromDialect, argsToDialect, GEMINI_TOOLS, sharedToolPayload } from "./tool-map.js";

const EVENT_NAMES: Partial<Record<HookEventName, string>> = {
  pre_tool_execution: "BeforeTool",
  post_tool_execution: "AfterTool",
};
const DECISIONS: Record<string, Verdict> = {
  allow: "allow",
  approve: "allow",
  deny: "deny",
  block: "deny",
  ask: "ask",
};

/** Gemini CLI's hook contract, so a script written for Gemini CLI runs unchanged. */
export const geminiDialect: HookDialect = {
  id: "gemini",
  exitTwoBlocks: true,
  plainTextIsFailure: true,
  matchNames: (call) => ({
    gantryNames: [call.name, ...call.aliases],
    dialectName: GEMINI_TOOLS[call.name]?.name,
  }),
  encode(event, session) {
    const payload: Record<string, unknown> = {
      ...sharedToolPayload(GEMINI_TOOLS, EVENT_NAMES[event.kind], event, session),
      timestamp: new Date().toISOString(),
    };
    if (event.kind === "post_tool_execution") {
      const { result } = event;
      payload.tool_response = {
        llmContent: result.text,
        returnDisplay: result.text,
        ...(result.error ? { error: { message: result.text, type: result.errorCode } } : {}),
      };
    }
    return payload;
  },
  decode(output, event, session) {
    const specific = isRecord(output.hookSpecificOutput) ? output.hookSpecificOutput : {};
    const decision = DECISIONS[String(output.decision)];
    const reason = stringOrUndefined(output.reason);
    const context = [stringOrUndefined(specific.additionalContext)];
    if (event.kind === "post_tool_execution") {
      // AfterTool's deny hides the result in Gemini CLI; here the call already ran, so the reason is context.
      if (decision === "deny") context.push(reason);
      return withContext({}, context);
    }
    const verdict: HandlerVerdict = decision ? { verdict: decision, reason } : {};
    if (output.continue === false) {
      verdict.verdict = "deny";
      verdict.reason = stringOrUndefined(output.stopReason) ?? reason ?? "the hook asked to stop";
    }
    if (isRecord(specific.tool_input)) {
      const tool = GEMINI_TOOLS[event.call.name];
      const merged = {
        ...argsToDialect(tool, event.call.args, session.workspaceRoot),
        ...specific.tool_input,
      };
      verdict.args = argsFromDialect(tool, merged);
    }
    return withContext(verdict, context);
  },
  blockedBy: (stderr, event) =>
    event.kind === "pre_tool_execution"
      ? { verdict: "deny", reason: stderr.trim() || "blocked by a hook (exit code 2)" }
      : withContext({}, [stderr.trim()]),
};

/** The `hooks` section of `.gemini/settings.json` (timeouts in milliseconds, default 60,000). */
export function parseGeminiSettingsHooks(
  raw: unknown,
  file: string,
  workspaceRoot: string,
  problems: HookProblem[],
): HookGroup[] {
  if (!isRecord(raw) || raw.hooks === undefined) return [];
  const ctx: ParseContext = {
    file,
    dialect: "gemini",
    workspaceRoot,
    problems,
    timeoutUnitMs: 1,
    defaultTimeoutMs: 60_000,
    extraHandlerFields: [],
  };
  if (!isRecord(raw.hooks)) {
    problems.push(warning(file, "hooks", "must be an object of events; ignored"));
    return [];
  }
  const settings = isRecord(raw.hooksConfig) ? raw.hooksConfig : {};
  const disabled = new Set(Array.isArray(settings.disabled) ? settings.disabled.map(String) : []);
  const enabled = settings.enabled !== false && raw.hooks.enabled !== false;
  const name = `gemini:${path.relative(workspaceRoot, file)}`;
  const group: HookGroup = { name, file, dialect: "gemini", enabled, failClosed: false, rules: [] };
  for (const [key, value] of Object.entries(raw.hooks)) {
    if (key === "enabled" || key === "disabled" || key === "notifications") continue;
    const event = eventFor(ctx, key, `hooks.${key}`);
    if (!event) continue;
    for (const rule of parseRules(ctx, value, `hooks.${key}`, event, { ruleFields: ["sequential"] })) {
      // hooksConfig.disabled lists hook names (or commands) the user switched off.
      rule.handlers = rule.handlers.filter(
        (h) => !disabled.has(h.name) && !(h.kind === "command" && disabled.has(h.command)),
      );
      group.rules.push(rule);
    }
  }
  return [group];
}
