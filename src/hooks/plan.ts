import { claudeDialect } from "./dialects/claude.js";
import type { HookDialect } from "./dialects/dialect.js";
import { geminiDialect } from "./dialects/gemini.js";
import { nativeDialect } from "./dialects/native.js";
import type { HookEventName, ToolHookEvent } from "./events.js";
import type { HandlerConfig, HookConfig, HookGroup, HookRule } from "./rules.js";

export const DIALECTS: Record<HookGroup["dialect"], HookDialect> = {
  native: nativeDialect,
  claude: claudeDialect,
  gemini: geminiDialect,
};

/** One handler that will run for an event, with the name logs and the model see. */
export interface PlannedHandler {
  label: string;
  group: HookGroup;
  handler: HandlerConfig;
  dialect: HookDialect;
}

/** Which handlers run for an event, in order: sources, then groups, rules and handlers as declared. */
export function planHandlers(config: HookConfig, event: ToolHookEvent): PlannedHandler[] {
  const planned: PlannedHandler[] = [];
  for (const group of config.groups) {
    if (!group.enabled) continue;
    const dialect = DIALECTS[group.dialect];
    const names = dialect.matchNames(event.call);
    for (const rule of group.rules) {
      if (!ruleApplies(rule, event) || !rule.matcher.test(names)) continue;
      for (const handler of rule.handlers)
        planned.push({ label: labelFor(group, handler), group, handler, dialect });
    }
  }
  return planned;
}

/** Whether any enabled group has rules for the event at all (lets a hook-free call skip the planner). */
export function hasHandlersFor(config: HookConfig, event: HookEventName): boolean {
  return config.groups.some(
    (g) => g.enabled && g.rules.some((r) => r.event === event && r.handlers.length > 0),
  );
}

function ruleApplies(rule: HookRule, event: ToolHookEvent): boolean {
  if (rule.event !== event.kind) return false;
  if (rule.only === undefined || event.kind !== "post_tool_execution") return true;
  return rule.only === (event.result.error ? "failure" : "success");
}

function labelFor(group: HookGroup, handler: HandlerConfig): string {
  const handlerCount = group.rules.reduce((count, rule) => count + rule.handlers.length, 0);
  if (handlerCount === 1) return group.name;
  return handler.name.startsWith(group.name) ? handler.name : `${group.name} ${handler.name}`;
}
