import { createGantrySession } from "../../gantry.js";
import type { GlobalOptions } from "../options.js";

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
  const keys = Object.keys(headers) as (keyof typeof headers)[];
  const widths = keys.map((key) => Math.max(headers[key].length, ...rows.map((row) => row[key].length)));
  for (const row of [headers, ...rows]) {
    process.stdout.write(
      `${keys
        .map((key, i) => row[key].padEnd(widths[i] as number))
        .join("  ")
        .trimEnd()}\n`,
    );
  }
  return 0;
}
