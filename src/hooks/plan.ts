import { claudeDialect, qwenDialect } from "./dialects/claude.js";
import type { HookDialect } from "./dialects/dialect.js";
import { geminiDialect } from "./dialects/gemini.js";
import { nativeDialect } from "./dialects/native.js";
import { agentOf, HOOK_EVENTS, type HookEvent, type HookEventName, matchTarget } from "./events.js";
import type { HandlerConfig, HookConfig, HookGroup, HookRule } from "./rules.js";

export const DIALECTS: Record<HookGroup["dialect"], HookDialect> = {
  native: nativeDialect,
  claude: claudeDialect,
  gemini: geminiDialect,
  qwen: qwenDialect,
};

/** One handler that will run for an event, with the name logs and the model see. */
export interface PlannedHandler {
  label: string;
  group: HookGroup;
  rule: HookRule;
  handler: HandlerConfig;
  dialect: HookDialect;
}

/** Which handlers run for an event, in order: sources, then groups, rules and handlers as declared. */
export function planHandlers(config: HookConfig, event: HookEvent): PlannedHandler[] {
  const planned: PlannedHandler[] = [];
  for (const group of config.groups) {
    if (!group.enabled || (group.agentId !== undefined && group.agentId !== agentOf(event))) continue;
    const dialect = DIALECTS[group.dialect];
    for (const rule of group.rules) {
      if (rule.event !== event.kind || !matches(rule, event, dialect)) continue;
      if (dialect.accepts && !dialect.accepts(rule, event)) continue;
      for (const handler of rule.handlers)
        planned.push({ label: labelFor(group, handler), group, rule, handler, dialect });
    }
  }
  return planned;
}

function matches(rule: HookRule, event: HookEvent, dialect: HookDialect): boolean {
  if ("call" in event) return rule.matcher.test(dialect.matchNames(event.call));
  if (HOOK_EVENTS[event.kind].matches === "nothing") return true;
  const target = matchTarget(event);
  return target === undefined || rule.matcher.testValue(target);
}

/** Whether any enabled group has rules for the event at all (lets a hook-free moment skip the planner). */
export function hasHandlersFor(config: HookConfig, event: HookEventName): boolean {
  return config.groups.some(
    (g) => g.enabled && g.rules.some((r) => r.event === event && r.handlers.length > 0),
  );
}

function labelFor(group: HookGroup, handler: HandlerConfig): string {
  const handlerCount = group.rules.reduce((count, rule) => count + rule.handlers.length, 0);
  if (handlerCount === 1) return group.name;
  return handler.name.startsWith(group.name) ? handler.name : `${group.name} ${handler.name}`;
}
