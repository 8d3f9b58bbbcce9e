import type { AnyTool } from "../tools/contract.js";
import type { ToolRegistry } from "../tools/registry.js";
import { forkToolGate } from "./fork.js";
import { gantryToolsFor } from "./tool-names.js";
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

export interface ToolAccess {
  /** For `RunOptions.allowTool` and for filtering the declarations the subagent's model sees. */
  allows(canonicalName: string): boolean;
  /** Names that are no tool of any harness: the agent file is wrong, and the subagent does not start. */
  unknown: string[];
  /** Tools another harness has that this session lacks (NotebookEdit, an absent MCP server): noted, not fatal. */
  unavailable: string[];
}

/** The Gantry tools an agent file's names select; which names are unknown, and which unavailable here. */
function selectNames(entries: readonly string[], registry: ToolRegistry) {
  const names = new Set<string>();
  const unknown: string[] = [];
  const unavailable: string[] = [];
  for (const written of entries) {
    const entry = geminiMcpName(written, registry);
    if (entry.startsWith("mcp__")) {
      names.add(entry);
      if (!entry.endsWith("*") && !registry.lookup(entry)) unavailable.push(entry);
      continue;
    }
    const { tools, dialectName } = gantryToolsFor(entry);
    const known = tools.flatMap((name) => registry.lookup(name)?.spec.name ?? []);
    for (const name of known) names.add(name);
    if (known.length > 0) continue;
    if (dialectName) unavailable.push(entry);
    else unknown.push(entry);
  }
  return { names, unknown, unavailable };
}

/**
 * Gemini CLI's MCP names in Gantry's spelling: `mcp_*` (every server), `mcp_github_*` (one server's
 * tools), `mcp_github_create_issue` (one tool, found among the registered ones; else the server's
 * whole name is unknown until it starts and the entry is noted as unavailable).
 */
function geminiMcpName(entry: string, registry: ToolRegistry): string {
  if (!entry.startsWith("mcp_") || entry.startsWith("mcp__")) return entry;
  const rest = entry.slice("mcp_".length);
  if (rest === "*") return "mcp__*";
  if (rest.endsWith("_*")) return `mcp__${rest.slice(0, -2)}__*`;
  const registered = registry
    .listEnabled()
    .map((tool) => tool.spec.name)
    .find((name) => name.startsWith("mcp__") && name.replace(/^mcp__(.+?)__/, "mcp_$1_") === entry);
  return registered ?? `mcp__${rest}`;
}

/** A name, or an MCP pattern: `mcp__github` (the whole server), `mcp__github__read_*`, `mcp__*`. */
function matchesSelected(names: Set<string>, tool: AnyTool): boolean {
  const mcpPatterns = forkToolGate([...names].filter((name) => name.startsWith("mcp__")));
  return names.has(tool.spec.name) || mcpPatterns(tool.spec.name);
}

/**
 * What a subagent may call: its definition's selection, never an interactive tool (subagents never
 * ask the user), and no agent tools once the nesting depth limit is reached.
 */
export function resolveToolAccess(
  selection: ToolSelection,
  registry: ToolRegistry,
  options: { allowSubagentTools: boolean; disallowed?: readonly string[] },
): ToolAccess {
  const unknown: string[] = [];
  const unavailable: string[] = [];
  let selected: (tool: AnyTool) => boolean;
  // a server kept for subagents reaches only those that ask for MCP tools or name them
  if (selection.kind === "all") selected = (tool) => tool.spec.audience !== "subagents";
  else if (selection.kind === "capabilities") selected = (tool) => capabilityAllows(selection, tool);
  else {
    const picked = selectNames(selection.names, registry);
    unknown.push(...picked.unknown);
    unavailable.push(...picked.unavailable);
    selected = (tool) => matchesSelected(picked.names, tool);
  }
  // disallowedTools (Claude Code, Qwen Code) takes tools away from whatever `tools` gave
  const removed = selectNames(options.disallowed ?? [], registry);
  unknown.push(...removed.unknown);
  return {
    allows(canonicalName) {
      const tool = registry.lookup(canonicalName);
      if (!tool || tool.spec.safety === "interactive") return false;
      if (SUBAGENT_TOOL_NAMES.has(tool.spec.name) && !options.allowSubagentTools) return false;
      return selected(tool) && !matchesSelected(removed.names, tool);
    },
    unknown,
    unavailable,
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
