import { homedir } from "node:os";
import { parseClaudeSettingsHooks, parseQwenSettingsHooks } from "../hooks/dialects/settings-parsers.js";
import type { HookProblem } from "../hooks/rules.js";
import { originOf } from "../trust/origin.js";
import type { SubagentHost } from "./host.js";
import type { SubagentDefinition } from "./types.js";

/**
 * Claude Code's `hooks` in an agent file: hooks of that agent alone, for its own calls and events, from
 * its start to its end; its `Stop` is the agent's SubagentStop, as there. A file of a folder you have not
 * trusted adds none (as its settings' hooks would not run). Hooks that do not parse keep the agent from
 * starting: an agent without the guard its file wrote would do more than its author allowed.
 * Returns what ends them, or why the agent cannot start.
 */
export function startAgentHooks(
  host: SubagentHost,
  definition: SubagentDefinition | undefined,
  agentId: string,
): { end: () => void } | { error: string } {
  const raw = definition?.hooks;
  const none = { end: () => undefined };
  if (!definition || !raw || !host.deps.hooks) return none;
  if (definition.untrusted) {
    host.deps.hooks.log(
      `agent type "${definition.name}" (${definition.source}): its hooks do not run (this folder is not trusted)`,
    );
    return none;
  }
  const home = host.deps.home ?? homedir();
  const renamed = Object.fromEntries(
    Object.entries(raw).map(([key, value]) => [key === "Stop" ? "SubagentStop" : key, value]),
  );
  const qwen = /[\\/]\.qwen[\\/]agents[\\/]/.test(definition.source);
  const problems: HookProblem[] = [];
  const source = {
    source: {
      file: definition.source,
      dialect: qwen ? ("qwen" as const) : ("claude" as const),
      scope:
        originOf(definition.source, home, host.deps.workspace.root) === "home"
          ? ("home" as const)
          : ("workspace" as const),
    },
    workspaceRoot: host.deps.workspace.root,
    home,
    problems,
    events: [],
  };
  const groups = (qwen ? parseQwenSettingsHooks : parseClaudeSettingsHooks)({ hooks: renamed }, source);
  const errors = problems.filter((problem) => problem.severity === "error");
  if (errors.length > 0) {
    const list = errors.map((problem) => `${problem.at}: ${problem.message}`).join("; ");
    return {
      error: `agent type "${definition.name}" (${definition.source}) has hooks that do not parse: ${list}`,
    };
  }
  for (const problem of problems)
    host.deps.hooks.log(`${definition.source}: ${problem.at}: ${problem.message}`);
  return { end: host.deps.hooks.addAgentGroups(agentId, groups) };
}
