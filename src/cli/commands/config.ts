import { createGantrySession } from "../../gantry.js";
import { printable } from "../../trust/shown-value.js";
import { type GlobalOptions, UsageError } from "../options.js";
import { cliTrustOption } from "../trust-option.js";

/**
 * `gantry config`: every value of every configuration file the session reads, with its file, and
 * whether it counts (and why not); then the workspace's trust decision.
 */
export async function run(args: string[], options: GlobalOptions): Promise<number> {
  if (args.length > 0) throw new UsageError(`gantry config takes no arguments (got ${args.join(" ")})`);
  const session = createGantrySession({
    workspace: options.workspace,
    defaultApprovalMode: "default",
    trust: cliTrustOption(options.trust),
    ...(options.sandbox ? { sandbox: true } : {}),
  });
  try {
    const out = [
      `Workspace ${session.workspace.root}: ${trustLine(session.trust.decision)} (${session.trust.how})`,
      "",
    ];
    for (const value of session.config.values) {
      const state = value.honoured ? "used" : "IGNORED";
      const why = value.why ? `: ${value.why}` : "";
      out.push(`${value.key} = ${JSON.stringify(value.value)}`, `    ${value.file} · ${state}${why}`);
    }
    if (session.config.values.length === 0) out.push("No settings in any file: every default applies.");
    if (session.config.warnings.length > 0)
      out.push("", "Warnings:", ...session.config.warnings.map((w) => `  ${w}`));
    out.push("", `Approval mode: ${session.permissions.mode ?? "none"} (${session.permissions.modeSource})`);
    process.stdout.write(`${out.map(printable).join("\n")}\n`);
    return 0;
  } finally {
    await session.dispose();
  }
}

function trustLine(decision: "trusted" | "never" | "undecided"): string {
  if (decision === "trusted") return "trusted";
  return decision === "never" ? "never trusted (your decision)" : "not trusted";
}
