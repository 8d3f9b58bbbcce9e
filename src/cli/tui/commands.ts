import type { ToolRegistry } from "../../tools/registry.js";
import type { AgentSession } from "../agent-session.js";

/** The REPL's own commands; a line is one when its first word is `/name` with no further slash. */
export const SLASH_COMMANDS: Record<string, string> = {
  "/help": "this list",
  "/tools": "the tools the agent can use",
  "/permissions": "the approval mode, permission rules and this session's grants",
  "/reload-hooks": "read the hook files again (changes to them count only after this)",
  "/exit": "end the session (also Ctrl-D, or Ctrl-C at an empty prompt)",
};

export function isSlashCommand(line: string): boolean {
  return /^\/[A-Za-z][\w-]*(\s|$)/.test(line.trim());
}

export type SlashOutcome = "exit" | "done";

/** Runs a slash command, printing through `print`; says whether the session should end. */
export async function runSlashCommand(
  line: string,
  agent: AgentSession,
  print: (text: string) => void,
): Promise<SlashOutcome> {
  const name = line.trim().split(/\s+/)[0] ?? "";
  switch (name) {
    case "/exit":
    case "/quit":
      return "exit";
    case "/help":
      print(helpText());
      return "done";
    case "/tools":
      print(toolTable(agent.session.registry));
      return "done";
    case "/permissions": {
      const result = await agent.session.pipeline.run({ name: "list_permissions", args: {} });
      print(result.text);
      return "done";
    }
    case "/reload-hooks":
      print(reloadHooks(agent));
      return "done";
    default:
      print(`unknown command ${name}; /help lists the commands`);
      return "done";
  }
}

function reloadHooks(agent: AgentSession): string {
  try {
    const reloaded = agent.session.reloadHooks();
    const groups = reloaded.groups.filter((group) => group.enabled);
    const names = groups.map((group) => group.name).join(", ");
    const ignored = reloaded.ignored.map((line) => `\n  ${line}`).join("");
    return `hooks reloaded: ${groups.length} enabled ${groups.length === 1 ? "group" : "groups"}${names ? ` (${names})` : ""}${ignored}`;
  } catch (cause) {
    return `hooks not reloaded, the earlier ones still apply: ${(cause as Error).message}`;
  }
}

export function helpText(): string {
  const width = Math.max(...Object.keys(SLASH_COMMANDS).map((name) => name.length));
  return [
    "Type a request and press Enter; the agent works on it in this workspace.",
    ...Object.entries(SLASH_COMMANDS).map(([name, what]) => `  ${name.padEnd(width)}  ${what}`),
    "Ctrl-C during a turn stops the turn and returns to the prompt.",
  ].join("\n");
}

/** Enabled tools, one per line: name, display group, safety level. */
export function toolTable(registry: ToolRegistry): string {
  const rows = registry
    .all()
    .filter((tool) => registry.isEnabled(tool.spec.name))
    .map((tool) => [tool.spec.name, tool.spec.group, tool.spec.safety]);
  const widths = [0, 1].map((column) => Math.max(...rows.map((row) => (row[column] as string).length)));
  return rows
    .map(
      (row) => `  ${row[0]?.padEnd(widths[0] as number)}  ${row[1]?.padEnd(widths[1] as number)}  ${row[2]}`,
    )
    .join("\n");
}
