import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { filesBelow } from "../config/files-below.js";
import { readIfPresent } from "../config/read-if-present.js";
import type { ApprovalMode } from "../policy/modes.js";
import { originOf } from "../trust/origin.js";
import { isInside } from "../workspace/paths.js";
import {
  fieldWarnings,
  flattenQwenFields,
  mcpServerTools,
  modelSpecOf,
  parseRunFields,
} from "./agent-file-fields.js";
import { parseFrontMatter } from "./front-matter.js";

/**
 * Which tools a subagent may call. `all` = every tool the parent has (minus the interactive ones);
 * `list` = named tools (canonical names, aliases, and Claude Code's, Gemini CLI's and Qwen Code's names
 * such as `Read`, `Bash`, `run_shell_command`, `glob`);
 * `capabilities` = define_subagent's switches on top of the read-only tools.
 */
export type ToolSelection =
  | { kind: "all" }
  | { kind: "list"; names: string[] }
  | { kind: "capabilities"; write: boolean; mcp: boolean; subagents: boolean };

export interface SubagentDefinition {
  name: string;
  description: string;
  /** The body of the markdown file: the subagent's system prompt. */
  systemPrompt: string;
  tools: ToolSelection;
  /** Tools taken away from `tools` (Claude Code's and Qwen Code's `disallowedTools`), in any harness's names. */
  disallowedTools?: string[];
  /**
   * `provider:model-id`, or a tier (`opus`, `sonnet`, `haiku`, Qwen's `fast`: the configured provider's
   * model of that tier); undefined or `inherit` = the parent's model.
   */
  model?: string;
  /**
   * Claude Code's `permissionMode`: the agent's calls run under the narrower of it and the parent's mode
   * (`plan`: read-only tools only); a wider one (`bypassPermissions`) changes nothing.
   */
  approvalMode?: ApprovalMode;
  /** Claude Code's `hooks`: the agent's own, as its settings' `hooks` object (agent-hooks.ts). */
  hooks?: Record<string, unknown>;
  /** Claude Code's `skills`: skills whose SKILL.md the agent gets in full at its start. */
  skills?: string[];
  /** Claude Code's `background`: whether a call that does not say runs it in the background. */
  background?: boolean;
  /** Claude Code's `isolation: worktree`: a call that does not say runs it in a worktree of its own. */
  isolation?: "worktree";
  /** Model turns per run (Gemini CLI's `max_turns`); default: the session's `subagents.maxTurns`. */
  maxTurns?: number;
  /** How long one run may take (Gemini CLI's `timeout_mins`), in ms; default: no limit of its own. */
  timeoutMs?: number;
  /** The model's temperature for this agent (Gemini CLI's `temperature`, Qwen Code's `modelConfig.temp`; 0–2). */
  temperature?: number;
  /** The model's top-p for this agent (Qwen Code's `modelConfig.top_p`; 0–1). */
  topP?: number;
  /** Where it came from: `builtin`, `session` (define_subagent) or the file path. */
  source: string;
  /**
   * A file of an untrusted workspace (SPEC §5a): its `model` counts only if it names the provider the
   * user configured for the session; else the agent runs on the parent's model.
   */
  untrusted?: boolean;
}

export interface DefinitionProblem {
  file: string;
  message: string;
  /** The agent is kept; it runs without what the message names. Else the file was skipped. */
  warning?: boolean;
}

/**
 * The folders searched, lowest precedence first: home, then workspace; `.agents/` wins over the others.
 * Gemini CLI's own home folder for agents is its user config folder, `~/.config/gemini-cli/agents`.
 */
export function subagentFolders(workspaceRoot: string, home = homedir()): string[] {
  const folders: string[] = [path.join(home, ".config", "gemini-cli", "agents")];
  for (const base of [home, workspaceRoot]) {
    for (const dir of [".gemini/agents", ".qwen/agents", ".claude/agents", ".agents/agents"])
      folders.push(path.join(base, dir));
  }
  return [...new Set(folders)];
}

export const GENERAL_PURPOSE: SubagentDefinition = {
  name: "general-purpose",
  description:
    "General-purpose agent for complex, multi-step tasks: researching, searching code, editing and running commands.",
  systemPrompt:
    "You are a subagent of Gantry, working on one task for a parent agent. Work autonomously with your tools; " +
    "you cannot ask the user anything. When you are done, answer with a concise report of what you found or " +
    "changed. If something blocks you (missing input, a denied tool), stop and report the blocker instead.",
  tools: { kind: "all" },
  source: "builtin",
};

/** `fork` is not a definition: it is the parent itself, continued (fork.ts). */
export const FORK_TYPE = "fork";

const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Parses one agent file: YAML front matter between `---` lines, then the system prompt. */
export function parseSubagentMarkdown(
  text: string,
  file: string,
): { ok: true; definition: SubagentDefinition; warnings: string[] } | { ok: false; message: string } {
  const parsed = parseFrontMatter(text);
  if (!parsed.ok) return { ok: false, message: frontMatterProblem(parsed) };
  const fields = flattenQwenFields(parsed.fields);
  const name = fields.name ?? path.basename(file, ".md");
  if (typeof name !== "string" || !NAME_PATTERN.test(name)) {
    return {
      ok: false,
      message: `name must be letters, digits, "-", "_" or "." (got ${JSON.stringify(name)})`,
    };
  }
  if (name === FORK_TYPE) return { ok: false, message: `"${FORK_TYPE}" is reserved for forks of the parent` };
  if (typeof fields.description !== "string" || fields.description.trim() === "") {
    return { ok: false, message: "description is required (a string saying when to use this agent)" };
  }
  const parsedTools = parseToolsField(fields.tools);
  if (typeof parsedTools === "string") return { ok: false, message: parsedTools };
  const serverTools = mcpServerTools(fields.mcpServers, fields.mcp_servers);
  if (typeof serverTools === "string") return { ok: false, message: serverTools };
  const tools: ToolSelection =
    parsedTools.kind === "list"
      ? { kind: "list", names: [...parsedTools.names, ...serverTools] }
      : parsedTools;
  const disallowed = parseToolsField(fields.disallowedTools);
  if (typeof disallowed === "string")
    return { ok: false, message: disallowed.replace("tools must", "disallowedTools must") };
  const model = fields.model;
  if (model !== undefined && typeof model !== "string")
    return { ok: false, message: "model must be a string" };
  const run = parseRunFields(fields);
  if (typeof run === "string") return { ok: false, message: run };
  const systemPrompt = parsed.body.trim();
  if (systemPrompt === "") return { ok: false, message: "the body (the system prompt) is empty" };
  return {
    ok: true,
    definition: {
      name,
      description: fields.description.trim(),
      systemPrompt,
      tools,
      ...(disallowed.kind === "list" && disallowed.names.length > 0
        ? { disallowedTools: disallowed.names }
        : {}),
      model: model === undefined || model === "inherit" ? undefined : modelSpecOf(model, file),
      ...run,
      source: file,
    },
    warnings: fieldWarnings(fields),
  };
}

function frontMatterProblem(parsed: Extract<ReturnType<typeof parseFrontMatter>, { ok: false }>): string {
  if (parsed.problem === "missing") return "no front matter: the file must start with a `---` line";
  // Gemini CLI's list of remote agents
  if (parsed.problem === "list")
    return "the front matter is a list (Gemini CLI's remote agents); remote (A2A) agents are not supported, only local ones with name:, description: and a prompt";
  return parsed.message;
}

/** `tools:` as a YAML list or Claude Code's comma-separated string; absent or `*` = all tools. */
function parseToolsField(value: unknown): ToolSelection | string {
  if (value === undefined || value === null || value === "*") return { kind: "all" };
  const names = typeof value === "string" ? value.split(",") : value;
  if (!Array.isArray(names) || names.some((n) => typeof n !== "string")) {
    return "tools must be a list of tool names or a comma-separated string";
  }
  const trimmed = (names as string[]).map((n) => n.trim()).filter((n) => n !== "");
  if (trimmed.includes("*")) return { kind: "all" };
  return { kind: "list", names: trimmed };
}

/**
 * Reads every `*.md` of the subagent folders and their subfolders; later folders override earlier ones by
 * name, except that a workspace's file never replaces one of the user's own (it is named as not used).
 */
export function loadSubagentDefinitions(
  workspaceRoot: string,
  home = homedir(),
): {
  definitions: SubagentDefinition[];
  problems: DefinitionProblem[];
  /** The bytes each file was parsed from, for its trust (not a second read). */
  contents: Map<string, Buffer>;
} {
  const byName = new Map<string, SubagentDefinition>([[GENERAL_PURPOSE.name, GENERAL_PURPOSE]]);
  const problems: DefinitionProblem[] = [];
  const contents = new Map<string, Buffer>();
  const homeDefinitions = new Map<string, SubagentDefinition>();
  for (const folder of subagentFolders(workspaceRoot, home)) {
    // subfolders too (`.claude/agents/team/validator.md`); a workspace's definitions are its own text:
    // a folder or file linking out of it is not read
    const confine =
      isInside(workspaceRoot, folder) && originOf(folder, home, workspaceRoot) === "workspace"
        ? workspaceRoot
        : undefined;
    for (const file of filesBelow(folder, /\.md$/)) {
      if (skippedByItsHarness(folder, file)) continue;
      const outside = confine && linksOutOf(confine, file);
      if (outside) {
        problems.push({ file, message: `links outside the workspace (to ${outside}); not read` });
        continue;
      }
      let bytes: Buffer | undefined;
      try {
        // a named pipe is refused, not waited on; a link to /dev/zero is not read
        bytes = readIfPresent(file);
      } catch (cause) {
        problems.push({ file, message: `cannot read: ${(cause as Error).message}` });
        continue;
      }
      if (bytes === undefined) continue;
      contents.set(file, bytes);
      const parsed = parseSubagentMarkdown(bytes.toString("utf8"), file);
      if (!parsed.ok) {
        problems.push({ file, message: parsed.message });
        continue;
      }
      const mine = homeDefinitions.get(parsed.definition.name);
      if (confine && mine) {
        // the user's own definition is their choice of tools and prompt: a repository's may not replace it
        const shown = `~/${path.relative(home, mine.source)}`;
        problems.push({ file, message: `not used: your own ${shown} of the same name wins`, warning: true });
        continue;
      }
      byName.set(parsed.definition.name, parsed.definition);
      if (!confine && originOf(folder, home, workspaceRoot) === "home")
        homeDefinitions.set(parsed.definition.name, parsed.definition);
      for (const message of parsed.warnings) problems.push({ file, message, warning: true });
    }
  }
  return { definitions: [...byName.values()], problems, contents };
}

/**
 * Gemini CLI reads only the files directly in its folder, and none whose name starts with `_` (drafts,
 * templates): neither does Gantry there, so the same agents load.
 */
function skippedByItsHarness(folder: string, file: string): boolean {
  const gemini = /[\\/](\.gemini|gemini-cli)[\\/]agents$/.test(folder);
  return gemini && (path.basename(file).startsWith("_") || path.dirname(file) !== folder);
}

/** Where `file` really lies when that is outside `root` (a symlink, or a linked folder above it). */
function linksOutOf(root: string, file: string): string | undefined {
  try {
    const real = realpathSync(file);
    return isInside(root, real) ? undefined : real;
  } catch {
    return undefined;
  }
}

/** The session's subagent types: files (read once), the built-in one and those define_subagent adds. */
export interface SubagentCatalog {
  list(): SubagentDefinition[];
  get(name: string): SubagentDefinition | undefined;
  /** Adds or replaces a session-only type; refuses to shadow a file or built-in type. */
  define(definition: SubagentDefinition): { ok: true } | { ok: false; message: string };
  readonly problems: DefinitionProblem[];
}

export function createSubagentCatalog(
  workspaceRoot: string,
  home = homedir(),
  /** Whether a file counts, judged on the bytes it was parsed from. */
  isTrusted: (file: string, content: Buffer | undefined) => boolean = () => true,
): SubagentCatalog {
  // the folders are read at the first question, not when the session starts: a one-shot tool call
  // never asks one
  let loaded: { byName: Map<string, SubagentDefinition>; problems: DefinitionProblem[] } | undefined;
  const state = () => {
    if (loaded) return loaded;
    const read = loadSubagentDefinitions(workspaceRoot, home);
    const byName = new Map(
      read.definitions.map((d) => [
        d.name,
        d.source === "builtin" || isTrusted(d.source, read.contents.get(d.source))
          ? d
          : { ...d, untrusted: true },
      ]),
    );
    loaded = { byName, problems: read.problems };
    return loaded;
  };
  return {
    list: () => [...state().byName.values()],
    get: (name) => state().byName.get(name),
    define(definition) {
      if (definition.name === FORK_TYPE) return { ok: false, message: `"${FORK_TYPE}" is reserved` };
      if (!NAME_PATTERN.test(definition.name)) {
        return {
          ok: false,
          message: `name must be letters, digits, "-", "_" or "." (got "${definition.name}")`,
        };
      }
      const { byName } = state();
      const existing = byName.get(definition.name);
      if (existing && existing.source !== "session") {
        return { ok: false, message: `"${definition.name}" is already defined by ${existing.source}` };
      }
      byName.set(definition.name, { ...definition, source: "session" });
      return { ok: true };
    },
    get problems() {
      return state().problems;
    },
  };
}
