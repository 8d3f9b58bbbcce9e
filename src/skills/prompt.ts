import type { Skill } from "./catalog.js";

/** The skills list stays small whatever is installed: Codex keeps its list to about this many characters. */
const MAX_SECTION_CHARS = 8_000;
const MAX_LINE_DESCRIPTION = 300;

/**
 * The system prompt's skills section: one line per skill (name, description, SKILL.md path), never the
 * bodies — the agent reads a skill when a task needs it. Workspace skills are marked as the repository's.
 */
export function skillsPromptSection(skills: readonly Skill[]): string | undefined {
  if (skills.length === 0) return undefined;
  const head = [
    "# Skills",
    "Skills are folders of instructions for particular tasks. When a task matches a skill's description, read its SKILL.md with view_file (pass IsSkillFile: true; it may lie outside the workspace) and follow it; read the files it names the same way. Commands a skill tells you to run are ordinary commands, under the same permissions. Skills marked (workspace) come from the repository, not from the user.",
  ].join("\n");
  const lines: string[] = [];
  let size = head.length;
  let left = 0;
  for (const skill of skills) {
    const line = skillLine(skill);
    if (size + line.length + 1 > MAX_SECTION_CHARS) {
      left++;
      continue;
    }
    lines.push(line);
    size += line.length + 1;
  }
  const more =
    left > 0 ? [`(${left} more skills are not listed here for space; \`gantry skills\` lists them all)`] : [];
  return [head, ...lines, ...more].join("\n");
}

function skillLine(skill: Skill): string {
  const description =
    skill.description.length > MAX_LINE_DESCRIPTION
      ? `${skill.description.slice(0, MAX_LINE_DESCRIPTION - 1)}…`
      : skill.description;
  const from = skill.origin === "workspace" ? " (workspace)" : "";
  return `- ${skill.name}${from}: ${description} [${skill.file}]`;
}
