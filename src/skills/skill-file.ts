import { frontMatterText, parseFrontMatter } from "../subagents/front-matter.js";

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
  const warnings: string[] = [];
  let fields: Record<string, unknown>;
  if (parsed.ok) fields = parsed.fields;
  else {
    if (parsed.problem === "missing")
      return {
        ok: false,
        message:
          "no front matter: SKILL.md must start with a `---` line, then name: and description:, then `---`",
      };
    // Gemini CLI reads name and description line by line when YAML refuses the block (an unquoted
    // `description: Use when: …`); only those two, so nothing else counts from a block YAML refuses
    const lenient =
      parsed.problem === "invalid" ? nameAndDescription(frontMatterText(text) ?? "") : undefined;
    if (!lenient) return { ok: false, message: parsed.message };
    fields = lenient;
    warnings.push(
      `${parsed.message.split("\n")[0]}; name and description read line by line, as Gemini CLI does (quote the description to keep it YAML)`,
    );
  }
  const invocation = modelInvocationProblem(fields, folderName);
  if (invocation) return { ok: false, message: invocation };
  const { name, description } = fields;
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
  warnings.push(...fieldWarnings(fields));
  if (name.trim() !== folderName)
    warnings.push(`name "${name.trim()}" differs from its folder "${folderName}"`);
  let shown = description.replace(/\s+/g, " ").trim();
  if (shown.length > MAX_DESCRIPTION_CHARS) {
    warnings.push(`description is longer than ${MAX_DESCRIPTION_CHARS} characters; cut`);
    shown = `${shown.slice(0, MAX_DESCRIPTION_CHARS - 1)}…`;
  }
  const allowedTools = toolList(fields["allowed-tools"]);
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

/** `name:` and `description:` lines (a description may go on over indented lines); both, or nothing. */
function nameAndDescription(yaml: string): { name: string; description: string } | undefined {
  const lines = yaml.split(/\r?\n/);
  let name: string | undefined;
  let description: string | undefined;
  for (let at = 0; at < lines.length; at++) {
    const line = lines[at] as string;
    const key = /^(name|description):\s*(.*)$/.exec(line);
    if (!key) continue;
    if (key[1] === "name") {
      name = key[2]?.trim();
      continue;
    }
    const parts = [key[2]?.trim() ?? ""];
    while (at + 1 < lines.length && /^[ \t]+\S/.test(lines[at + 1] as string))
      parts.push((lines[++at] as string).trim());
    description = parts.filter((part) => part !== "").join(" ");
  }
  return name && description ? { name, description } : undefined;
}

/**
 * Claude Code runs a skill with `disable-model-invocation: true` only when the user types its slash
 * command; Gantry has none, so offering it to the model would run it where its author said not to.
 */
function modelInvocationProblem(fields: Record<string, unknown>, folderName: string): string | undefined {
  if (fields["disable-model-invocation"] !== true) return undefined;
  const name = typeof fields.name === "string" ? fields.name.trim() : folderName;
  return `disable-model-invocation: true: Claude Code runs this skill only when the user types /${name}, which Gantry has no command for; not offered to the model`;
}

/** The Agent Skills fields and Claude Code's that change nothing about how Gantry's agent reads a skill. */
const QUIET_FIELDS = new Set([
  ...["name", "description", "license", "compatibility", "metadata", "allowed-tools"],
  ...["argument-hint", "user-invocable", "disable-model-invocation", "version"],
]);
/** Claude Code's fields that ask for what Gantry does not do with a skill. */
const NOT_ACTED_ON: Record<string, string> = {
  model:
    "model (the model the skill runs on) is not acted on: the skill is followed by the agent that reads it, on its model",
  context:
    "context: fork (the skill run in an agent of its own) is not acted on: the agent that reads the skill follows it",
  agent:
    "agent (the agent a forked skill runs in) is not acted on: the agent that reads the skill follows it",
  hooks: "hooks in a skill do not run here; put them in .agents/hooks.json or a settings file",
};

function fieldWarnings(fields: Record<string, unknown>): string[] {
  return Object.keys(fields).flatMap((key) => {
    if (QUIET_FIELDS.has(key)) return [];
    return [NOT_ACTED_ON[key] ?? `unknown field "${key}"; ignored`];
  });
}
