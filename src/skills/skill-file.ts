import { parseFrontMatter } from "../subagents/front-matter.js";

/** What SKILL.md's front matter says (the Agent Skills format Claude Code, Gemini CLI and Codex read). */
export interface SkillFrontMatter {
  name: string;
  description: string;
  /** Claude Code's `allowed-tools`: listed for the user; it widens nothing in Gantry. */
  allowedTools?: string[];
}

export type ParsedSkill =
  | { ok: true; skill: SkillFrontMatter; warnings: string[] }
  | { ok: false; message: string };

/** The Agent Skills name rule: lowercase letters, digits and single hyphens, at most 64 characters. */
const SKILL_NAME = /^[a-z0-9](?:[a-z0-9]|-(?!-)){0,63}$/;
export const MAX_DESCRIPTION_CHARS = 1024;

/** Parses SKILL.md's front matter; `folderName` is the skill folder's name, which the name should match. */
export function parseSkillFile(text: string, folderName: string): ParsedSkill {
  const parsed = parseFrontMatter(text);
  if (!parsed.ok) {
    return {
      ok: false,
      message:
        parsed.problem === "missing"
          ? "no front matter: SKILL.md must start with a `---` line, then name: and description:, then `---`"
          : parsed.message,
    };
  }
  const { name, description } = parsed.fields;
  if (typeof name !== "string" || name.trim() === "")
    return { ok: false, message: "front matter has no name:" };
  if (!SKILL_NAME.test(name.trim()) || name.trim().endsWith("-")) {
    return {
      ok: false,
      message: `name "${name}" is not a skill name: lowercase letters, digits and hyphens, at most 64 characters`,
    };
  }
  if (typeof description !== "string" || description.trim() === "")
    return { ok: false, message: "front matter has no description:" };
  const warnings: string[] = [];
  if (name.trim() !== folderName)
    warnings.push(`name "${name.trim()}" differs from its folder "${folderName}"`);
  let shown = description.replace(/\s+/g, " ").trim();
  if (shown.length > MAX_DESCRIPTION_CHARS) {
    warnings.push(`description is longer than ${MAX_DESCRIPTION_CHARS} characters; cut`);
    shown = `${shown.slice(0, MAX_DESCRIPTION_CHARS - 1)}…`;
  }
  const allowedTools = toolList(parsed.fields["allowed-tools"]);
  if (allowedTools === "invalid")
    warnings.push("allowed-tools is neither a list nor a comma-separated string; ignored");
  return {
    ok: true,
    skill: {
      name: name.trim(),
      description: shown,
      ...(Array.isArray(allowedTools) && allowedTools.length > 0 ? { allowedTools } : {}),
    },
    warnings,
  };
}

function toolList(value: unknown): string[] | "invalid" | undefined {
  if (value === undefined || value === null) return undefined;
  const items = typeof value === "string" ? splitTools(value) : Array.isArray(value) ? value : undefined;
  if (!items || items.some((item) => typeof item !== "string")) return "invalid";
  return (items as string[]).map((item) => item.trim()).filter((item) => item !== "");
}

/** `Read, Grep` (Claude Code) or `Bash(git status:*) Read` (Agent Skills): commas and spaces outside parentheses. */
function splitTools(text: string): string[] {
  const items: string[] = [];
  let current = "";
  let depth = 0;
  for (const char of text) {
    if (char === "(") depth++;
    if (char === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === "," || /\s/.test(char))) {
      items.push(current);
      current = "";
    } else current += char;
  }
  items.push(current);
  return items;
}
