import { homedir } from "node:os";
import type { ToolPipeline } from "../tools/pipeline.js";
import type { WorkspaceTrust } from "../trust/workspace-trust.js";
import { type CommandCatalog, discoverCommands } from "./catalog.js";
import { type Expansion, expandCommand } from "./expand.js";

/** `/name rest…` split; undefined when the line is not a slash command. */
export function slashLine(line: string): { name: string; args: string } | undefined {
  const match = /^\/([A-Za-z0-9][\w.:-]*)(?:\s+([\s\S]*))?$/.exec(line.trim());
  return match ? { name: match[1] as string, args: (match[2] ?? "").trim() } : undefined;
}

/**
 * The prompt a custom command makes of a `/name args` line, or why it cannot; undefined when no command
 * file names it. Command files are read at each use, so a new or edited one counts at once.
 */
export async function customCommandPrompt(
  line: string,
  session: { root: string; pipeline: ToolPipeline; home?: string; trust: WorkspaceTrust },
  signal: AbortSignal,
): Promise<Expansion | undefined> {
  const parsed = slashLine(line);
  if (!parsed) return undefined;
  const command = commandsOf(session).get(parsed.name);
  if (!command) return undefined;
  return expandCommand(command, parsed.args, { ...session, signal });
}

export function commandsOf(session: { root: string; home?: string }): CommandCatalog {
  return discoverCommands(session.root, session.home ?? homedir());
}
