import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";
import type { SubagentCatalog } from "../../subagents/types.js";
import { defineTool, errorResult, okResult } from "../contract.js";

const DefineSubagentParameters = lazySchema(() =>
  z.object({
    name: z
      .string()
      .describe("Name of the new subagent type (letters, digits, -, _, .); used as subagent_type / TypeName"),
    description: z.string().min(1).describe("When to use this subagent, in one or two sentences"),
    system_prompt: z.string().min(1).describe("The system prompt the subagent runs with"),
    enable_write_tools: z
      .boolean()
      .optional()
      .describe("Let it edit files and run commands (default false: read-only tools)"),
    enable_mcp_tools: z.boolean().optional().describe("Let it call MCP tools (default false)"),
    enable_subagent_tools: z
      .boolean()
      .optional()
      .describe("Let it start subagents of its own, within the nesting depth limit (default false)"),
  }),
);

/** Seed 000's define_subagent: a subagent type for the rest of this session. */
export function createDefineSubagentTool(catalog: SubagentCatalog) {
  return defineTool({
    spec: {
      name: "define_subagent",
      description:
        "Defines a new specialised subagent type for the rest of this session. It starts with read-only tools; " +
        "the enable_* switches add write/command, MCP and subagent tools. Use it afterwards with the agent tool " +
        "(subagent_type) or invoke_subagent (TypeName).",
      parameters: DefineSubagentParameters,
      safety: "read_only",
      group: "Subagents",
    },
    async execute(args) {
      const tools = {
        kind: "capabilities" as const,
        write: args.enable_write_tools ?? false,
        mcp: args.enable_mcp_tools ?? false,
        subagents: args.enable_subagent_tools ?? false,
      };
      const defined = catalog.define({
        name: args.name,
        description: args.description,
        systemPrompt: args.system_prompt,
        tools,
        source: "session",
      });
      if (!defined.ok) return errorResult("conflict", `define_subagent: ${defined.message}`);
      const allowed = [
        "read-only tools",
        tools.write && "write and command tools",
        tools.mcp && "MCP tools",
        tools.subagents && "subagent tools",
      ]
        .filter(Boolean)
        .join(", ");
      return okResult(`Defined subagent type "${args.name}" for this session (${allowed}).`, {
        name: args.name,
        tools,
      });
    },
  });
}
