import type { AnyTool } from "../tools/contract.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { ToolSelection } from "./types.js";

/** Tools that start or steer other agents; a subagent at the depth limit loses them. */
export const SUBAGENT_TOOL_NAMES = new Set([
  "agent",
  "invoke_subagent",
  "define_subagent",
  "send_message",
  "manage_subagents",
  "list_agents",
]);

/** Claude Code / Qwen names used in agent files' `tools:` lists, mapped to Gantry's tools (SPEC §5). */
const TOOL_GROUPS: Record<string, string[]> = {
  Read: ["view_file", "list_dir"],
  LS: ["list_dir"],
  Edit: ["replace_file_content", "multi_replace_file_content", "write_to_file"],
  MultiEdit: ["multi_replace_file_content"],
  Write: ["write_to_file"],
  Glob: ["find_by_name"],
  Grep: ["grep_search"],
  Bash: ["run_command", "manage_task"],
  WebFetch: ["read_url_content"],
  WebSearch: ["search_web"],
  Task: ["agent"],
  Agent: ["agent"],
};

export interface ToolAccess {
  /** For `RunOptions.allowTool` and for filtering the declarations the subagent's model sees. */
  allows(canonicalName: string): boolean;
  /** Names in the selection that match no tool (reported, not fatal: an MCP server may be absent). */
  unknown: string[];
}

/**
 * What a subagent may call: its definition's selection, never an interactive tool (subagents never
 * ask the user), and no agent tools once the nesting depth limit is reached.
 */
export function resolveToolAccess(
  selection: ToolSelection,
  registry: ToolRegistry,
  options: { allowSubagentTools: boolean },
): ToolAccess {
  const unknown: string[] = [];
  let selected: (tool: AnyTool) => boolean;
  if (selection.kind === "all") selected = () => true;
  else if (selection.kind === "capabilities") selected = (tool) => capabilityAllows(selection, tool);
  else {
    const names = new Set<string>();
    for (const entry of selection.names) {
      const expanded = TOOL_GROUPS[entry] ?? [registry.lookup(entry)?.spec.name ?? ""];
      const known = expanded.filter((name) => name !== "" && registry.lookup(name) !== undefined);
      if (known.length === 0 && !entry.startsWith("mcp__")) unknown.push(entry);
      for (const name of known) names.add(name);
      if (entry.startsWith("mcp__")) names.add(entry);
    }
    selected = (tool) =>
      names.has(tool.spec.name) ||
      [...names].some(
        (n) => n.startsWith("mcp__") && n.endsWith("*") && tool.spec.name.startsWith(n.slice(0, -1)),
      );
  }
  return {
    allows(canonicalName) {
      const tool = registry.lookup(canonicalName);
      if (!tool || tool.spec.safety === "interactive") return false;
      if (SUBAGENT_TOOL_NAMES.has(tool.spec.name) && !options.allowSubagentTools) return false;
      return selected(tool);
    },
    unknown,
  };
}

function capabilityAllows(
  selection: Extract<ToolSelection, { kind: "capabilities" }>,
  tool: AnyTool,
): boolean {
  const name = tool.spec.name;
  if (SUBAGENT_TOOL_NAMES.has(name)) return selection.subagents;
  if (name.startsWith("mcp__")) return selection.mcp;
  if (tool.spec.safety === "write" || tool.spec.safety === "execute") return selection.write;
  return tool.spec.safety === "read_only" || tool.spec.safety === "network";
}
