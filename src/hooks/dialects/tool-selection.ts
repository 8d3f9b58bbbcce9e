import type { ModelToolFacts } from "../events.js";
import { isObject } from "./dialect.js";

/** BeforeToolSelection's answer in Gantry's terms. */
export interface ToolSelection {
  toolConfig?: { mode?: string; allowed?: string[] };
  /** What of the answer names nothing or is not applied, and why (logged, naming the hook). */
  notices?: string[];
}

/** Gemini CLI's function calling modes (its HookToolConfig). */
const MODES = new Set(["AUTO", "ANY", "NONE"]);
/** Offered names listed in a notice, at most. */
const LISTED = 12;

/**
 * `toolConfig: { mode, allowedFunctionNames }` read against the tools offered this turn. Each name is
 * matched exactly, as the model API matches it in Gemini CLI: first by the dialect's names for a tool
 * (`dialectNames`), then by Gantry's own name or alias. A name that matches no offered tool, and a mode
 * Gantry cannot apply, are said (a notice), never dropped in silence.
 */
export function toolSelectionOf(
  value: unknown,
  offered: readonly ModelToolFacts[],
  dialectNames: (tool: ModelToolFacts) => readonly string[],
): ToolSelection {
  if (value === undefined) return {};
  if (!isObject(value))
    return { notices: [`toolConfig is not an object (${JSON.stringify(value)}); ignored`] };
  const notices: string[] = [];
  const mode = typeof value.mode === "string" ? value.mode.toUpperCase() : undefined;
  if (value.mode !== undefined && (mode === undefined || !MODES.has(mode)))
    notices.push(`toolConfig.mode ${JSON.stringify(value.mode)} is none of AUTO, ANY, NONE; taken as AUTO`);
  if (mode === "ANY")
    notices.push(
      'toolConfig.mode "ANY" (a tool call is forced) is not applied: the model may still answer without one; allowedFunctionNames still narrows the tools',
    );
  const config: NonNullable<ToolSelection["toolConfig"]> = mode === "NONE" ? { mode } : {};
  const names = value.allowedFunctionNames;
  // an empty list narrows nothing: Gemini CLI sends [] whenever no hook named a tool
  const narrows = names !== undefined && !(Array.isArray(names) && names.length === 0);
  if (narrows && mode !== "NONE") {
    if (!Array.isArray(names))
      notices.push("toolConfig.allowedFunctionNames is not a list of names; it allows nothing");
    config.allowed = [];
    for (const name of Array.isArray(names) ? names : []) {
      const found = typeof name === "string" ? toolsNamed(name, offered, dialectNames) : [];
      if (found.length > 0) config.allowed.push(...found);
      else notices.push(unknownName(name, offered, dialectNames));
    }
  }
  return {
    ...(Object.keys(config).length > 0 ? { toolConfig: config } : {}),
    ...(notices.length > 0 ? { notices } : {}),
  };
}

/** Gantry's names of the offered tools a name stands for (Gemini's `replace` is both edit tools). */
function toolsNamed(
  name: string,
  offered: readonly ModelToolFacts[],
  dialectNames: (tool: ModelToolFacts) => readonly string[],
): string[] {
  const byDialect = offered.filter((tool) => dialectNames(tool).includes(name));
  const matched =
    byDialect.length > 0
      ? byDialect
      : offered.filter((tool) => tool.name === name || tool.aliases.includes(name));
  return matched.map((tool) => tool.name);
}

function unknownName(
  name: unknown,
  offered: readonly ModelToolFacts[],
  dialectNames: (tool: ModelToolFacts) => readonly string[],
): string {
  // the offered names closest to the one given first (by shared prefix: `mcp_` ones for an `mcp_` name)
  const given = typeof name === "string" ? name : "";
  const names = [...new Set(offered.map((tool) => dialectNames(tool)[0] ?? tool.name))].sort(
    (a, b) => sharedPrefix(b, given) - sharedPrefix(a, given),
  );
  const listed =
    names.slice(0, LISTED).join(", ") + (names.length > LISTED ? `, … (${names.length} in all)` : "");
  const what = typeof name === "string" ? `"${name}"` : `${JSON.stringify(name)} (not a name)`;
  return `toolConfig.allowedFunctionNames names ${what}, which matches no tool offered this turn, so it allows nothing${names.length > 0 ? ` (offered: ${listed})` : ""}`;
}

function sharedPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}
