import { readIfPresent } from "../config/read-if-present.js";
import type { Skill } from "../skills/catalog.js";
import type { SubagentDefinition } from "./types.js";

/** The subagent part of its system prompt: its role, its definition, what it lacks, its preloaded skills. */
export function subagentSection(
  definition: SubagentDefinition,
  role: string | undefined,
  unknown: string[],
  skills: readonly Skill[],
): string {
  const parts = [
    `# Your role: subagent "${definition.name}"`,
    "You were started by a parent agent for one task. You cannot ask the user anything: if missing input " +
      "or a denied tool blocks you, stop and report the blocker. Your final message is your report to the parent.",
    definition.systemPrompt,
  ];
  if (role) parts.push(`Role for this task: ${role}`);
  if (unknown.length > 0)
    parts.push(`(Tools named in your definition but not available here: ${unknown.join(", ")}.)`);
  parts.push(...preloadedSkills(definition.skills ?? [], skills));
  return parts.join("\n\n");
}

/** Claude Code's `skills:` in an agent file: those skills' SKILL.md, in full, from the agent's start. */
function preloadedSkills(names: readonly string[], skills: readonly Skill[]): string[] {
  const parts: string[] = [];
  const missing: string[] = [];
  for (const name of names) {
    const skill = skills.find((candidate) => candidate.name === name);
    const text = skill && readSkill(skill.file);
    if (!skill || !text) missing.push(name);
    else parts.push(`## Skill "${name}" (${skill.shown}), loaded for you\n\n${text.trim()}`);
  }
  if (missing.length > 0)
    parts.push(`(Skills named in your definition but not found: ${missing.join(", ")}.)`);
  return parts;
}

/** A skill's SKILL.md, at most this much of it: the rest of a skill is read with view_file when needed. */
const MAX_SKILL_CHARS = 64 * 1024;

function readSkill(file: string): string | undefined {
  try {
    // the catalog saw a regular file; it may be a pipe or a link to /dev/zero by now
    const text = readIfPresent(file, { maxBytes: MAX_SKILL_CHARS * 4 + 1, head: true })?.toString("utf8");
    if (text === undefined) return undefined;
    if (text.length <= MAX_SKILL_CHARS) return text;
    return `${text.slice(0, MAX_SKILL_CHARS)}\n[SKILL.md cut at ${MAX_SKILL_CHARS} characters: read the rest with view_file]`;
  } catch {
    return undefined;
  }
}
