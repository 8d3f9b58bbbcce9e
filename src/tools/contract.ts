import type { z } from "zod";

/** How much a tool can change or reach; the policy and approval modes decide on it. */
export type SafetyLevel = "read_only" | "write" | "execute" | "network" | "interactive";

/** Display groups of seed 000; the terminal UI collapses runs of Read/Search calls. */
export type DisplayGroup =
  | "Read"
  | "Edit"
  | "Search"
  | "WebSearch"
  | "WebFetch"
  | "Command"
  | "Permission"
  | "Subagents"
  | "Interaction"
  | "MCP";

/** Typed failure codes, so callers never parse messages back (STYLE rule 3). */
export type ToolErrorCode =
  | "unknown_tool"
  | "invalid_arguments"
  | "disabled_tool"
  | "denied"
  | "outside_workspace"
  | "secret_path"
  | "protected_path"
  | "invalid_path"
  | "not_found"
  | "not_a_file"
  | "not_a_directory"
  | "special_file"
  | "binary_file"
  | "too_large"
  | "ignored_path"
  | "stale_file"
  | "no_match"
  | "ambiguous_match"
  | "conflict"
  | "timeout"
  | "aborted"
  /** The model's output limit cut the call off before its arguments were complete; it did not run. */
  | "cut_off"
  /** A durable session moved to another worker while the call was in flight; it was not run again. */
  | "interrupted"
  | "unavailable"
  | "execution_failed";

export interface ImagePart {
  mimeType: string;
  /** base64 */
  data: string;
}

export interface ToolResult {
  /** What the model reads. */
  text: string;
  error: boolean;
  errorCode?: ToolErrorCode;
  /** Facts for the UI, the logs and the model's next step. */
  metadata: Record<string, unknown>;
  /** Images for models that take them (view_file of a picture). */
  images?: ImagePart[];
}

/** How the pipeline may shorten a tool's output (STYLE rule 5: one module, driven by the spec). */
export interface OutputPolicy {
  /** Characters kept; defaults to the workspace's maxOutputChars. `false` = the tool bounds itself. */
  maxChars?: number | false;
  /** Keep the head and the tail instead of the head only. */
  keep?: "head" | "head_and_tail";
  /** The next step a truncated result tells the model, given the call's arguments and the characters shown. */
  continuation?: (args: Record<string, unknown>, shownChars: number) => string;
}

/** A shell command line a call will run, for the permission policy (SPEC §5: one judgement per effect). */
export interface ShellCommand {
  commandLine: string;
  /** Absolute folders the shell may be in when it reads the line; none: unknown. */
  folders: readonly string[];
  /** The shell's `$HOME` (for `~`), when it may differ from Gantry's; null: unknown. */
  home?: string | null;
  /**
   * Variables set in the shell before it reads the line that change where a command leads (CDPATH, GIT_DIR,
   * GIT_WORK_TREE, …: src/policy/shell-location-variables.ts): a persistent terminal's earlier commands may
   * have exported them. Undefined: none beyond Gantry's own environment; null: unknown.
   */
  locationVariables?: readonly string[] | null;
  /** Lines the same shell read before it (input sent earlier to a task): their `cd`s may have moved it. */
  earlier?: readonly string[];
  /** Input sent to a running task: the task's own command (input counts as a command unless that may run anything). */
  feeds?: ShellCommand;
}

/** Non-secret details of how an MCP server is reached (no env, no headers). */
export interface McpConnectionFacts {
  command?: string;
  args?: string[];
  cwd?: string;
  url?: string;
}

/** Where an MCP tool comes from: its server, the tool's own name there, and how the server is reached. */
export interface McpToolOrigin {
  server: string;
  tool: string;
  connection: McpConnectionFacts;
}

export interface ToolSpec<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  /** The one schema: validation, the TypeScript type and the JSON schema all come from it. */
  parameters: S;
  safety: SafetyLevel;
  group: DisplayGroup;
  aliases?: readonly string[];
  /** Default true; the registry can switch tools on and off. */
  enabled?: boolean;
  output?: OutputPolicy;
  /**
   * The shell commands a call will run (run_command, a schedule's TimerCondition, input to a shell
   * task), with the folders they start in: the policy judges each like a command line of its own.
   */
  shellCommands?: (args: z.infer<S>) => ShellCommand[] | Promise<ShellCommand[]>;
  /**
   * The JSON schema the model is sent, for a tool whose schema is not Gantry's to write (an MCP
   * server's tool): `parameters` then validates against this schema rather than describing it.
   */
  jsonSchema?: Record<string, unknown>;
  /** An MCP server's tool: which server and tool (hook dialects name and describe it their way). */
  mcp?: McpToolOrigin;
  /** `subagents`: left out of the main agent's declarations and calls; a subagent that names it gets it. */
  audience?: "all" | "subagents";
  /**
   * Files a call reads or writes that its path arguments (AbsolutePath, TargetFile, …) do not name, so
   * the permission rules judge them too: Read rules the reads, Edit rules the writes. Paths are absolute
   * or workspace-relative.
   */
  effects?: (args: Record<string, unknown>) => { reads?: readonly string[]; writes?: readonly string[] };
}

/** Per-call context: what one call needs besides its arguments. Session-wide deps go to the tool's factory. */
export interface ToolContext {
  signal: AbortSignal;
  callId: string;
  /** "main" for the top-level agent, else the subagent's id. */
  agentId: string;
  /** Progress for UIs (partial output of a long command); optional. */
  onUpdate?: (partial: string) => void;
}

export interface Tool<S extends z.ZodType = z.ZodType> {
  spec: ToolSpec<S>;
  execute(args: z.infer<S>, ctx: ToolContext): Promise<ToolResult>;
}

export type AnyTool = Tool<any>;

/**
 * A tool as its module writes it: `parameters` may be the function that builds the schema on first use
 * (config/lazy-schema.ts), so a session's tools build none of their schemas until a call or the model's
 * tool list reads them.
 */
export interface ToolDefinition<S extends z.ZodType> {
  spec: Omit<ToolSpec<S>, "parameters"> & { parameters: S | (() => S) };
  execute(args: z.infer<S>, ctx: ToolContext): Promise<ToolResult>;
}

export function defineTool<S extends z.ZodType>(tool: ToolDefinition<S>): Tool<S> {
  const { parameters } = tool.spec;
  if (typeof parameters === "function")
    Object.defineProperty(tool.spec, "parameters", { get: parameters, enumerable: true });
  return tool as Tool<S>;
}

export function okResult(text: string, metadata: Record<string, unknown> = {}): ToolResult {
  return { text, error: false, metadata };
}

export function errorResult(
  code: ToolErrorCode,
  text: string,
  metadata: Record<string, unknown> = {},
): ToolResult {
  return { text, error: true, errorCode: code, metadata };
}
