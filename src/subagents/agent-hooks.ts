import { homedir } from "node:os";
import { createConfigReport } from "../config/provenance.js";
import { parseClaudeSettingsHooks, parseQwenSettingsHooks } from "../hooks/dialects/settings-parsers.js";
import type { HookConfig, HookGroup, HookProblem } from "../hooks/rules.js";
import { applyTrustToHooks } from "../trust/hooks.js";
import { originOf } from "../trust/origin.js";
import type { SubagentHost } from "./host.js";
import { loadSubagentDefinitions, type SubagentDefinition } from "./types.js";

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
  const parsed = agentFileHooks(definition, host.deps.workspace.root, home);
  if ("error" in parsed) return parsed;
  for (const problem of parsed.problems)
    host.deps.hooks.log(`${definition.source}: ${problem.at}: ${problem.message}`);
  // their workspace scripts are pinned as settings hooks' are: a script changed since trust does not run
  const trust = host.deps.trust;
  const groups = trust
    ? applyTrustToHooks(
        { groups: parsed.groups, files: [], problems: [], events: [] },
        trust,
        home,
        createConfigReport(),
      ).groups
    : parsed.groups;
  return { end: host.deps.hooks.addAgentGroups(agentId, groups) };
}

/** The hook groups an agent file's `hooks` field makes (its `Stop` as SubagentStop), or why they do not parse. */
export function agentFileHooks(
  definition: SubagentDefinition,
  root: string,
  home: string,
): { groups: HookGroup[]; problems: HookProblem[] } | { error: string } {
  const renamed = Object.fromEntries(
    Object.entries(definition.hooks ?? {}).map(([key, value]) => [
      key === "Stop" ? "SubagentStop" : key,
      value,
    ]),
  );
  const qwen = /[\\/]\.qwen[\\/]agents[\\/]/.test(definition.source);
  const problems: HookProblem[] = [];
  const source = {
    source: {
      file: definition.source,
      dialect: qwen ? ("qwen" as const) : ("claude" as const),
      scope: originOf(definition.source, home, root) === "home" ? ("home" as const) : ("workspace" as const),
    },
    workspaceRoot: root,
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
  return { groups, problems };
}

/** The hooks of every agent file with a `hooks` field (the trust review shows them; trust pins their scripts). */
export function agentFileHookConfig(root: string, home: string): HookConfig {
  const { definitions, contents } = loadSubagentDefinitions(root, home);
  const groups: HookGroup[] = [];
  for (const definition of definitions) {
    if (!definition.hooks) continue;
    const parsed = agentFileHooks(definition, root, home);
    if (!("error" in parsed)) groups.push(...parsed.groups);
  }
  return { groups, files: [], problems: [], events: [], contents: Object.fromEntries(contents) };
}
