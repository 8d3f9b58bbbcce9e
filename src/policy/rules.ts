import { realpathSync } from "node:fs";
import path from "node:path";
import ignore from "ignore";
import type { SafetyLevel } from "../tools/contract.js";
import { hostCovers, isLoopbackHost } from "../tools/web/address.js";
import { isInside } from "../workspace/paths.js";

/**
 * Permission rules in Claude Code's syntax (SPEC §5): `Tool` or `Tool(specifier)`.
 * Policy is data (STYLE rule 8): a rule is parsed once into a plain object that names itself.
 */
export type RuleKind = "allow" | "deny" | "ask";

/** A rule as written in a settings file, before it is compiled. */
export interface RuleEntry {
  kind: RuleKind;
  text: string;
  /** Where it came from, as shown to the user: a settings file, or `session grant (...)`. */
  origin: string;
  /** The folder a `/path` specifier is relative to: the project that holds the settings file. */
  projectDir: string;
}

/** What one check of a call is judged on: a command part, a path, a URL's host, or the tool alone. */
export type CheckValue =
  | {
      type: "command";
      /** The words after quote removal (what runs); allow rules and grants match it or `written`. */
      text: string;
      /** As written, when it differs. */
      written?: string;
      /** Other spellings of the same program that deny and ask rules also match (`/bin/rm` as `rm`). */
      looseSpellings?: readonly string[];
    }
  | {
      type: "path";
      resolved?: string;
      named?: string;
      directory: boolean;
      /** A folder and everything below it (`rm -r`, `grep -r`): a deny or ask rule on anything inside matches. */
      recursive?: boolean;
    }
  | { type: "url"; host?: string }
  | { type: "none" };

/** One thing a call does that rules judge; a compound command is one check per part. */
export interface Check {
  /** Canonical tool name (a redirection `> file` is judged as `write_to_file`). */
  tool: string;
  safety: SafetyLevel;
  value: CheckValue;
  /** For messages: the command part, the path, the host. */
  label: string;
  /** The command did not parse: no allow rule or grant may pass it. */
  unparseable?: boolean;
  /** Why the program or path is known only when the command runs: no rule can vouch for it (SPEC §5). */
  unknown?: string;
  /** What to do about a refusal of what is known only when running, when not "Write it out literally". */
  fix?: string;
  /**
   * Needs no approval of its own: a command that only runs another (`timeout 5 …`, allowed with what
   * it runs) or a file a command reads. Deny and ask rules still judge it.
   */
  implied?: boolean;
  /** The file that governs the agent (hooks, settings) this write or delete would change: refused in every mode. */
  protectedFile?: string;
  /** A write whose target is unknown and could be a protected file. */
  mayBeProtected?: boolean;
  /** Inside a script a command runs: only deny rules, the protected files and unknown programs judge it. */
  onlyDenials?: boolean;
  /** Input sent to a running task: the checks of the task's own command, which may have allowed anything. */
  carrier?: readonly Check[];
}

export interface Rule extends RuleEntry {
  /** Canonical tool names the rule covers. */
  tools: ReadonlySet<string>;
  specifier?: string;
  /** `strict` (allow rules, grants): a path must resolve inside the pattern; `loose` (deny, ask): the name as written counts too. */
  matches(check: Check, mode: "strict" | "loose"): boolean;
}

export interface RuleContext {
  workspaceRoot: string;
  home: string;
  /** A native tool name or alias → canonical name; undefined when no such tool exists. */
  resolveTool(name: string): string | undefined;
}

const EDIT_TOOLS = ["replace_file_content", "multi_replace_file_content", "write_to_file", "delete_file"];
const READ_TOOLS = ["view_file", "list_dir", "find_by_name", "grep_search"];

/**
 * Claude Code's tool names → Gantry's native tools. Edit covers delete_file too (it changes files);
 * Read covers the search tools, as Claude's Read rules cover Grep, Glob and LS.
 */
export const TOOL_GROUPS: Record<string, readonly string[]> = {
  Bash: ["run_command"],
  Command: ["run_command"],
  Edit: EDIT_TOOLS,
  Write: ["write_to_file"],
  MultiEdit: ["multi_replace_file_content"],
  Read: READ_TOOLS,
  Glob: ["find_by_name"],
  Grep: ["grep_search"],
  LS: ["list_dir"],
  WebSearch: ["search_web"],
  WebFetch: ["read_url_content"],
};

// a tool name, or an MCP name ending in `*` (`mcp__github__*`, Claude Code's wildcard for a server)
const RULE_SYNTAX = /^([A-Za-z_][\w.-]*\*?)(?:\(([\s\S]*)\))?$/;

export type RuleParse = { ok: true; rule: Rule } | { ok: false; entry: RuleEntry; error: string };

export function compileRule(entry: RuleEntry, context: RuleContext): RuleParse {
  const found = RULE_SYNTAX.exec(entry.text.trim());
  if (!found) {
    return { ok: false, entry, error: `"${entry.text}" is not a rule: write Tool or Tool(specifier)` };
  }
  const toolName = found[1] as string;
  const rawSpecifier = found[2]?.trim();
  const specifier = rawSpecifier === "" || rawSpecifier === "*" ? undefined : rawSpecifier;
  if (toolName.endsWith("*") && !toolName.startsWith("mcp__"))
    return { ok: false, entry, error: `"${entry.text}": only MCP names end in * (mcp__server__*)` };
  const grouped = Object.hasOwn(TOOL_GROUPS, toolName) ? TOOL_GROUPS[toolName] : undefined;
  const canonical = grouped ?? [context.resolveTool(toolName) ?? toolName];
  const tools = new Set(canonical);
  const coversTool = mcpNameMatcher(toolName) ?? ((tool: string) => tools.has(tool));
  const matchSpecifier = specifier === undefined ? () => true : specifierMatcher(specifier, entry, context);
  const rule: Rule = {
    ...entry,
    tools,
    specifier,
    matches: (check, mode) => coversTool(check.tool) && matchSpecifier(check, mode),
  };
  return { ok: true, rule };
}

/**
 * Claude Code's MCP rules: `mcp__github` covers every tool of the server github, `mcp__github__*` too,
 * `mcp__github__get_*` the tools starting so; a full `mcp__github__create_issue` is an exact name.
 * Rules are compiled before servers start, so these match by name, not through the registry.
 */
function mcpNameMatcher(toolName: string): ((tool: string) => boolean) | undefined {
  if (!toolName.startsWith("mcp__")) return undefined;
  if (toolName.endsWith("*")) {
    const prefix = toolName.slice(0, -1);
    return (tool) => tool.startsWith(prefix) && tool.length > prefix.length;
  }
  if (!toolName.slice("mcp__".length).includes("__")) return (tool) => tool.startsWith(`${toolName}__`);
  return undefined;
}

function specifierMatcher(
  specifier: string,
  entry: RuleEntry,
  context: RuleContext,
): (check: Check, mode: "strict" | "loose") => boolean {
  let command: ((text: string) => boolean) | undefined;
  let paths: PathTest | undefined;
  return (check, mode) => {
    const value = check.value;
    switch (value.type) {
      case "command": {
        command ??= commandMatcher(specifier);
        const strict = [value.text, value.written];
        const candidates = mode === "strict" ? strict : [...strict, ...(value.looseSpellings ?? [])];
        return candidates.some((text) => text !== undefined && command?.(text));
      }
      case "path": {
        paths ??= pathMatcher(specifier, entry, context);
        const candidates = mode === "strict" ? [value.resolved] : [value.resolved, value.named];
        const place = { directory: value.directory, recursive: value.recursive === true };
        return candidates.some((abs) => abs !== undefined && paths?.(abs, place, mode));
      }
      case "url":
        return value.host !== undefined && domainMatches(specifier, value.host, mode);
      case "none":
        return false;
    }
  };
}

/**
 * `npm run test:*` (legacy prefix), `git * main` (`*` = any text), `ls *` (the trailing ` *` may
 * match nothing), else the exact command. A wildcard match finds the literal pieces in order, each at
 * its leftmost place: never more than one pass per piece, whatever the rule or the command.
 */
export function commandMatcher(specifier: string): (text: string) => boolean {
  const spec = specifier.replace(/\s+/g, " ");
  if (spec.endsWith(":*") && !spec.slice(0, -2).includes("*")) {
    const prefix = spec.slice(0, -2);
    return (text) => text === prefix || (text.startsWith(prefix) && isWordBoundary(prefix, text));
  }
  const pieces = spec.split("*");
  if (pieces.length === 2 && spec.endsWith(" *")) {
    const prefix = spec.slice(0, -2);
    return (text) => text === prefix || text.startsWith(`${prefix} `);
  }
  if (pieces.length > 1) return (text) => matchesPieces(pieces, text);
  return (text) => text === spec;
}

/** Whether `text` is pieces[0] + any + pieces[1] + any + … + the last piece (any text may hold newlines). */
function matchesPieces(pieces: readonly string[], text: string): boolean {
  const first = pieces[0] as string;
  const last = pieces[pieces.length - 1] as string;
  if (!text.startsWith(first) || !text.endsWith(last)) return false;
  const end = text.length - last.length;
  let at = first.length;
  // the leftmost place of each middle piece leaves the most room for the ones after it
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i] as string;
    const found = text.indexOf(piece, at);
    if (found < 0) return false;
    at = found + piece.length;
  }
  return at <= end;
}

/** `git diff:*` matches `git diff --stat` and `git diff` but not `git diff-tree`. */
function isWordBoundary(prefix: string, text: string): boolean {
  const next = text.charAt(prefix.length);
  return next === "" || !/[\w.-]/.test(next) || !/[\w.-]$/.test(prefix);
}

/**
 * Gitignore-style path patterns, as Claude Code reads them: `//abs/path`, `~/in/home`, `/relative/to/the/project`
 * (the folder holding the settings file), `./relative/to/the/workspace`, or a bare pattern (any depth, like .gitignore).
 */
type PathTest = (
  abs: string,
  place: { directory: boolean; recursive: boolean },
  mode: "strict" | "loose",
) => boolean;

function pathMatcher(specifier: string, entry: RuleEntry, context: RuleContext): PathTest {
  let base: string;
  let pattern: string;
  if (specifier.startsWith("//")) [base, pattern] = ["/", specifier.slice(1)];
  else if (specifier.startsWith("~/")) [base, pattern] = [context.home, specifier.slice(1)];
  else if (specifier.startsWith("/")) [base, pattern] = [entry.projectDir, specifier];
  else if (specifier.startsWith("./")) [base, pattern] = [context.workspaceRoot, specifier.slice(1)];
  else [base, pattern] = [context.workspaceRoot, specifier];
  const realBase = realOrSelf(base);
  // deny and ask rules also catch other spellings on case-insensitive disks; allow rules take the case as written
  const matchers = {
    loose: ignore({ ignorecase: true }).add(pattern),
    strict: ignore({ ignorecase: false }).add(pattern),
  };
  const reaches = reachTest(realBase, pattern);
  return (abs, place, mode) => {
    // a recursive effect on a folder that holds what the pattern names reaches it (deny and ask rules)
    if (mode === "loose" && place.recursive && reaches(abs)) return true;
    const matcher = matchers[mode];
    const rel = path.relative(realBase, abs).split(path.sep).join("/");
    if (rel === "" || rel === ".." || rel.startsWith("../") || path.isAbsolute(rel)) return false;
    // a folder a tool lists or searches counts as covered when the pattern covers what is inside it
    return matcher.ignores(rel) || (place.directory && matcher.ignores(`${rel}/__contents__`));
  };
}

/**
 * Whether a folder holds paths the pattern may match: it holds the pattern's literal folder
 * (`secret-dir` of `/secret-dir/**`), or lies inside it where the rest can still match deeper
 * (a `**` in the rest, or more levels than the folder is deep), or, for a pattern that matches at
 * any depth (`*.pem`, or one that starts with `**` and a slash), lies in the base.
 */
function reachTest(base: string, pattern: string): (folder: string) => boolean {
  if (pattern.startsWith("!")) return () => false;
  const trimmed = pattern.replace(/^\//, "").replace(/\/+$/, "");
  // `**/x` matches at any depth, as a pattern without a slash does
  const anchored = (pattern.startsWith("/") || trimmed.includes("/")) && !trimmed.startsWith("**/");
  if (!anchored) return (candidate) => isInside(candidate, base) || isInside(base, candidate);
  const glob = trimmed.search(/[*?[\\]/);
  // the folder the pattern's literal part names: up to the last "/" before a wildcard, or all of it
  const literal = glob < 0 ? trimmed : trimmed.slice(0, Math.max(0, trimmed.lastIndexOf("/", glob)));
  const folder = path.join(base, literal);
  const rest = trimmed.slice(literal.length).replace(/^\//, "");
  const restDepth = rest.split("/").length;
  return (candidate) => {
    if (isInside(candidate, folder)) return true;
    if (!isInside(folder, candidate)) return false;
    // a folder below the literal one holds matches where the rest has `**` or more levels than it is deep
    const depth = path.relative(folder, candidate).split(path.sep).length;
    return rest.includes("**") || depth < restDepth;
  };
}

/**
 * `domain:example.com` covers example.com and its subdomains, whatever the spelling of the host
 * (`[::ffff:127.0.0.1]` and `2130706433` are 127.0.0.1). A deny or ask rule for a loopback host covers
 * every loopback host: `deny WebFetch(domain:localhost)` means no local server, `127.0.0.2` included.
 */
function domainMatches(specifier: string, host: string, mode: "strict" | "loose"): boolean {
  if (!specifier.startsWith("domain:")) return false;
  const domain = specifier.slice("domain:".length).trim();
  if (hostCovers(domain, host)) return true;
  return mode === "loose" && isLoopbackHost(domain) && isLoopbackHost(host);
}

function realOrSelf(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return path.resolve(folder);
  }
}
