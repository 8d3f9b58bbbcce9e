import path from "node:path";
import type { Check, Rule, RuleContext } from "./rules.js";
import { compileRule, TOOL_GROUPS } from "./rules.js";

/** A session grant: an allow rule the user gave during this session, with where it came from. */
export interface Grant {
  rule: Rule;
  /** `answer: always for this session`, `ask_permission: <reason>`, `answer: always (saved to …)`. */
  source: string;
  grantedAt: string;
}

export interface GrantStore {
  /** Compiles and records a grant; an error names the problem when the text is not a rule. */
  add(text: string, source: string): { ok: true; grant: Grant } | { ok: false; error: string };
  list(): readonly Grant[];
  rules(): Rule[];
}

export function createGrantStore(context: RuleContext): GrantStore {
  const grants: Grant[] = [];
  return {
    add(text, source) {
      const existing = grants.find((grant) => grant.rule.text === text);
      if (existing) return { ok: true, grant: existing };
      const compiled = compileRule(
        { kind: "allow", text, origin: `session grant, ${source}`, projectDir: context.workspaceRoot },
        context,
      );
      if (!compiled.ok) return { ok: false, error: compiled.error };
      const grant = { rule: compiled.rule, source, grantedAt: new Date().toISOString() };
      grants.push(grant);
      return { ok: true, grant };
    },
    list: () => grants,
    rules: () => grants.map((grant) => grant.rule),
  };
}

const EDIT_GROUP = new Set(TOOL_GROUPS.Edit);
const READ_GROUP = new Set(TOOL_GROUPS.Read);

/**
 * The rule a "yes, always" answer records for one check: `Bash(<exact part>)`, `Edit(/<path>)`
 * (relative to the workspace, else `//absolute`), `WebFetch(domain:<host>)`, or the bare tool name.
 * Undefined when nothing safe can be recorded (a command that does not parse, a program or target
 * known only when it runs).
 */
export function grantRuleFor(check: Check, workspaceRoot: string): string | undefined {
  if (check.unparseable || check.unknown) return undefined;
  const value = check.value;
  switch (value.type) {
    case "command":
      return `${check.tool === "run_command" ? "Bash" : check.tool}(${value.text})`;
    case "path": {
      if (!value.resolved) return undefined;
      const group = EDIT_GROUP.has(check.tool) ? "Edit" : READ_GROUP.has(check.tool) ? "Read" : check.tool;
      const rel = path.relative(workspaceRoot, value.resolved).split(path.sep).join("/");
      const inside = rel !== "" && !rel.startsWith("../") && rel !== ".." && !path.isAbsolute(rel);
      const pattern = escapeGitignore(inside ? `/${rel}` : `/${value.resolved}`);
      return `${group}(${pattern}${value.directory ? "/**" : ""})`;
    }
    case "url":
      return value.host ? `WebFetch(domain:${value.host})` : undefined;
    case "none":
      return check.tool;
  }
}

function escapeGitignore(pattern: string): string {
  return pattern.replace(/[*?[\]!#\\]/g, (char) => `\\${char}`);
}
