import path from "node:path";
import { createGantrySession } from "../../gantry.js";
import { resolveToolAccess } from "../../subagents/access.js";
import { unknownToolsMessage } from "../../subagents/spawn.js";
import { createSubagentCatalog, type SubagentDefinition, type ToolSelection } from "../../subagents/types.js";
import type { ToolRegistry } from "../../tools/registry.js";
import { printable } from "../../trust/shown-value.js";
import { type GlobalOptions, UsageError } from "../options.js";
import { formatTable } from "./table.js";

/** `gantry agents`: the subagent types this workspace offers, and any agent file that failed to load. */
export async function run(args: string[], options: GlobalOptions): Promise<number> {
  if (args.length > 0) throw new UsageError(`gantry agents takes no arguments (got ${args.join(" ")})`);
  const root = path.resolve(options.workspace ?? process.cwd());
  const catalog = createSubagentCatalog(root);
  const rows = catalog.list().map((definition) => ({
    name: definition.name,
    tools: describeTools(definition.tools, definition.disallowedTools),
    model: definition.model ?? "inherit",
    source:
      definition.source === "builtin"
        ? "built-in"
        : path.relative(root, definition.source) || definition.source,
    description: definition.description,
  }));
  const headers = {
    name: "NAME",
    tools: "TOOLS",
    model: "MODEL",
    source: "SOURCE",
    description: "DESCRIPTION",
  };
  for (const line of formatTable(headers, rows)) process.stdout.write(`${printable(line)}\n`);
  for (const problem of catalog.problems) {
    const line = `${problem.warning ? "" : "skipped "}${problem.file}: ${problem.message}`;
    process.stderr.write(`gantry: ${printable(line)}
`);
  }
  for (const line of await toolProblems(root, catalog.list()))
    process.stderr.write(`gantry: ${printable(line)}\n`);
  return 0;
}

/** Tool names the agent files get wrong (an error when such an agent starts) or that Gantry lacks (a note). */
async function toolProblems(root: string, definitions: SubagentDefinition[]): Promise<string[]> {
  let registry: ToolRegistry;
  let dispose: () => Promise<void>;
  try {
    const session = createGantrySession({ workspace: root });
    registry = session.registry;
    dispose = () => session.dispose();
  } catch (cause) {
    return [`the agents' tool names were not checked: ${(cause as Error).message}`];
  }
  const lines: string[] = [];
  for (const definition of definitions) {
    const access = resolveToolAccess(definition.tools, registry, {
      allowSubagentTools: true,
      ...(definition.disallowedTools ? { disallowed: definition.disallowedTools } : {}),
    });
    if (access.unknown.length > 0)
      lines.push(`${unknownToolsMessage(definition, access.unknown)}; it will not start`);
    if (access.unavailable.length > 0)
      lines.push(
        `agent type "${definition.name}": no such tool in Gantry, left out: ${access.unavailable.join(", ")}`,
      );
  }
  await dispose();
  return lines;
}

function describeTools(tools: ToolSelection, disallowed?: string[]): string {
  const minus = disallowed?.length ? ` -${disallowed.join(",-")}` : "";
  if (tools.kind === "all") return `all${minus}`;
  if (tools.kind === "list") return `${tools.names.join(",") || "none"}${minus}`;
  return ["read", tools.write && "write", tools.mcp && "mcp", tools.subagents && "subagents"]
    .filter(Boolean)
    .join("+");
}
