import type { ToolCallFacts } from "../events.js";
import {
  type HandlerVerdict,
  isObject,
  type PermissionVerdict,
  rewriteFrom,
  stringOrUndefined,
} from "./dialect.js";
import type { DialectTool } from "./tool-map.js";

/**
 * PermissionRequest's `hookSpecificOutput.decision` (Claude Code, Qwen Code): `{ behavior, message,
 * interrupt }`, and with an allow `updatedInput` (the call runs with it, merged over its arguments and
 * judged by the rules again) and `updatedPermissions` (session allow rules; nothing else is applied).
 */
export function permissionAnswer(
  value: unknown,
  tools: Record<string, DialectTool>,
  call: ToolCallFacts,
): Pick<HandlerVerdict, "permission"> {
  if (!isObject(value) || (value.behavior !== "allow" && value.behavior !== "deny")) return {};
  const permission: PermissionVerdict = {
    behavior: value.behavior,
    ...(stringOrUndefined(value.message) ? { message: value.message as string } : {}),
    ...(value.interrupt === true ? { interrupt: true } : {}),
  };
  if (value.behavior !== "allow") return { permission };
  if (isObject(value.updatedInput)) {
    const rewrite = rewriteFrom(tools, call, value.updatedInput);
    if (!rewrite.args) return { permission: { behavior: "deny", message: rewrite.reason } };
    permission.args = rewrite.args;
  }
  if (Array.isArray(value.updatedPermissions)) {
    const { rules, ignored } = sessionRulesOf(value.updatedPermissions);
    if (rules.length > 0) permission.sessionRules = rules;
    if (ignored.length > 0) permission.ignored = ignored;
  }
  return { permission };
}

/**
 * Claude Code's permission updates, as far as a hook may change Gantry's: allow rules, for this session
 * (a rule it wanted saved is kept for the session only). Modes, deny/ask rules, removals and folders are
 * not applied: each is named in `ignored`.
 */
function sessionRulesOf(updates: unknown[]): { rules: string[]; ignored: string[] } {
  const rules: string[] = [];
  const ignored: string[] = [];
  for (const update of updates) {
    if (!isObject(update)) continue;
    const type = String(update.type);
    if (type === "setMode") {
      ignored.push(
        `updatedPermissions: setMode "${String(update.mode)}" is not applied (a hook cannot change the approval mode)`,
      );
      continue;
    }
    if (type !== "addRules" || update.behavior !== "allow" || !Array.isArray(update.rules)) {
      const what = type === "addRules" ? `${String(update.behavior)} rules` : `"${type}"`;
      ignored.push(
        `updatedPermissions: ${what} not applied (a hook may only add allow rules for the session)`,
      );
      continue;
    }
    const texts = update.rules.flatMap(ruleText);
    rules.push(...texts);
    if (update.destination !== undefined && update.destination !== "session")
      ignored.push(
        `updatedPermissions: ${texts.join(", ")} kept for this session only (not saved to ${String(update.destination)})`,
      );
  }
  return { rules, ignored };
}

/** `{ toolName: "Bash", ruleContent: "npm test" }` → `Bash(npm test)`; Gantry reads Claude's rule syntax. */
function ruleText(rule: unknown): string[] {
  if (!isObject(rule) || typeof rule.toolName !== "string" || rule.toolName === "") return [];
  const content = stringOrUndefined(rule.ruleContent);
  return [content ? `${rule.toolName}(${content})` : rule.toolName];
}
