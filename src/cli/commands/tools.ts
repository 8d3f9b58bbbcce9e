import { createGantrySession } from "../../gantry.js";
import type { GlobalOptions } from "../options.js";
import { formatTable } from "./table.js";

/** `gantry tools`: name, aliases, safety level and enabled state of every registered tool. */
export async function run(_args: string[], options: GlobalOptions): Promise<number> {
  const { registry } = createGantrySession({ workspace: options.workspace });
  const rows = registry.all().map((tool) => ({
    name: tool.spec.name,
    aliases: (tool.spec.aliases ?? []).join(", ") || "-",
    safety: tool.spec.safety,
    group: tool.spec.group,
    enabled: registry.isEnabled(tool.spec.name) ? "yes" : "no",
  }));
  const headers = { name: "NAME", aliases: "ALIASES", safety: "SAFETY", group: "GROUP", enabled: "ENABLED" };
  for (const line of formatTable(headers, rows)) process.stdout.write(`${line}\n`);
  return 0;
}
