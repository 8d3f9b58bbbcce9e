import type { ToolCallFacts } from "../hooks/events.js";
import type { AnyTool } from "../tools/contract.js";
import { checksForCall } from "./checks.js";
import type { SessionPermissions } from "./permissions.js";
import { compileRule, type Rule } from "./rules.js";

/**
 * Claude Code's `if` on a hook handler: whether a tool call matches that permission rule, judged as the
 * policy judges a deny rule (each program of a command line on its own, `ls && git push` matching
 * `Bash(git push:*)`; a path by its name as written and where it resolves). A rule naming no tool of
 * this session matches nothing.
 */
export function createHookConditions(
  permissions: SessionPermissions,
  lookup: (name: string) => AnyTool | undefined,
): (condition: string, call: ToolCallFacts) => Promise<boolean> {
  const compiled = new Map<string, Rule | undefined>();
  const ruleOf = (condition: string) => {
    if (!compiled.has(condition)) {
      const entry = {
        kind: "deny" as const,
        text: condition,
        origin: "a hook's if",
        projectDir: permissions.workspace.root,
      };
      const result = compileRule(entry, permissions.ruleContext());
      compiled.set(condition, result.ok ? result.rule : undefined);
    }
    return compiled.get(condition);
  };
  return async (condition, call) => {
    const rule = ruleOf(condition);
    const tool = lookup(call.name);
    if (!rule || !tool || !rule.tools.has(tool.spec.name)) return false;
    const checks = await checksForCall({ tool, args: call.args }, permissions.checkContext());
    return checks.some((check) => rule.matches(check, "loose"));
  };
}
