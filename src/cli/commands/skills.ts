import { homedir } from "node:os";
import { discoverSkills } from "../../skills/catalog.js";
import { printable } from "../../trust/shown-value.js";
import { type GlobalOptions, UsageError } from "../options.js";
import { formatTable } from "./table.js";
import { workspaceRootOf } from "./workspace-root.js";

/** `gantry skills`: the skills the agent is told about, where each comes from, and every problem found. */
export async function run(args: string[], options: GlobalOptions): Promise<number> {
  if (args.length > 0) throw new UsageError(`gantry skills takes no arguments (got ${args.join(" ")})`);
  const root = workspaceRootOf(options);
  const catalog = discoverSkills({ root, home: homedir() });
  if (catalog.skills.length === 0) {
    process.stdout.write(
      "No skills found. A skill is a folder with a SKILL.md (front matter name: and description:) in ~/.agents/skills/, ~/.claude/skills/, ~/.gemini/skills/, ~/.codex/skills/, or the same folders of the workspace.\n",
    );
  }
  const rows = catalog.skills.map((skill) => ({
    name: skill.name,
    from: skill.origin === "home" ? "you" : "workspace",
    folder: skill.shown,
    tools: skill.allowedTools?.join(",") ?? "-",
    description: skill.description.length > 100 ? `${skill.description.slice(0, 99)}…` : skill.description,
  }));
  if (rows.length > 0) {
    const headers = {
      name: "NAME",
      from: "FROM",
      folder: "FOLDER",
      tools: "ALLOWED-TOOLS",
      description: "DESCRIPTION",
    };
    for (const line of formatTable(headers, rows)) process.stdout.write(`${printable(line)}\n`);
  }
  if (catalog.problems.length > 0) {
    process.stdout.write("\nProblems:\n");
    for (const problem of catalog.problems)
      process.stdout.write(`  ${printable(`${problem.where}: ${problem.message}`)}\n`);
  }
  return 0;
}
