import path from "node:path";
import { createSubagentCatalog, type ToolSelection } from "../../subagents/types.js";
import { type GlobalOptions, UsageError } from "../options.js";

/** `gantry agents`: the subagent types this workspace offers, and any agent file that failed to load. */
export async function run(args: string[], options: GlobalOptions): Promise<number> {
  if (args.length > 0) throw new UsageError(`gantry agents takes no arguments (got ${args.join(" ")})`);
  const root = path.resolve(options.workspace ?? process.cwd());
  const catalog = createSubagentCatalog(root);
  const rows = catalog.list().map((definition) => ({
    name: definition.name,
    tools: describeTools(definition.tools),
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
  const keys = Object.keys(headers) as (keyof typeof headers)[];
  const widths = keys.map((key) => Math.max(headers[key].length, ...rows.map((row) => row[key].length)));
  for (const row of [headers, ...rows]) {
    const line = keys.map((key, i) => row[key].padEnd(widths[i] as number)).join("  ");
    process.stdout.write(`${line.trimEnd()}\n`);
  }
  for (const problem of catalog.problems) {
    process.stderr.write(`gantry: skipped ${problem.file}: ${problem.message}\n`);
  }
  return 0;
}

function describeTools(tools: ToolSelection): string {
  if (tools.kind === "all") return "all";
  if (tools.kind === "list") return tools.names.join(",") || "none";
  return ["read", tools.write && "write", tools.mcp && "mcp", tools.subagents && "subagents"]
    .filter(Boolean)
    .join("+");
}
