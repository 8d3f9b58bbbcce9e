import path from "node:path";
import { z } from "zod";
import { lazySchema } from "../config/lazy-schema.js";
import type { Origin } from "../config/provenance.js";
import type { McpConnectionFacts } from "../tools/contract.js";
import { shownPairs } from "../trust/shown-value.js";

/**
 * One MCP server as users already write it: Claude Code's `.mcp.json` (`type`, `command`, `args`, `env`,
 * `url`, `headers`), Gemini CLI's and Qwen Code's `mcpServers` (`httpUrl`, `cwd`, `timeout`,
 * `includeTools`, `excludeTools`), and Gantry's own keys (`enabled`, `startupTimeout`, `subagentOnly`).
 */
export const McpServerEntrySchema = lazySchema(() =>
  z.object({
    type: z
      .enum(["stdio", "http", "streamable-http", "streamableHttp", "sse"])
      .optional()
      .describe("the transport; inferred from command / url / httpUrl when absent"),
    command: z.string().min(1).optional().describe("the program a stdio server runs"),
    args: z.array(z.string()).optional(),
    env: z
      .record(z.string(), z.string())
      .optional()
      .describe("added to the server's environment; ${VAR} expands"),
    cwd: z.string().optional().describe("the stdio server's working folder (default: the workspace)"),
    url: z
      .string()
      .optional()
      .describe("a remote server (streamable HTTP; SSE with type sse or a Gemini url)"),
    httpUrl: z.string().optional().describe("Gemini CLI's streamable HTTP url"),
    headers: z.record(z.string(), z.string()).optional().describe("HTTP headers; ${VAR} expands"),
    enabled: z.boolean().optional().describe("false switches the server off"),
    disabled: z.boolean().optional().describe("true switches the server off (Cline, Roo)"),
    timeout: z.number().int().positive().optional().describe("milliseconds one request may take"),
    startupTimeout: z.number().int().positive().optional().describe("milliseconds to start and list tools"),
    includeTools: z
      .array(z.string())
      .optional()
      .describe("only these tools (names as the server gives them)"),
    excludeTools: z.array(z.string()).optional().describe("all tools but these"),
    subagentOnly: z
      .boolean()
      .optional()
      .describe("its tools stay out of the main agent's prompt; subagents that name them get them"),
    description: z.string().optional(),
    trust: z
      .boolean()
      .optional()
      .describe("Gemini CLI's confirmation bypass; Gantry's permission rules decide"),
    oauth: z
      .object({
        enabled: z.boolean().optional(),
        clientId: z.string().optional(),
        clientSecret: z.string().optional(),
        scopes: z.array(z.string()).optional(),
      })
      .optional(),
  }),
);
export type McpServerEntry = z.infer<ReturnType<typeof McpServerEntrySchema>>;

export const DEFAULT_REQUEST_TIMEOUT_MS = 10 * 60_000;
export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;

export type McpTransportConfig =
  | { kind: "stdio"; command: string; args: string[]; env: Record<string, string>; cwd: string }
  | { kind: "http" | "sse"; url: string; headers: Record<string, string> };

/** A server ready to start: variables expanded, defaults filled in, and where it was configured. */
export interface McpServerConfig {
  name: string;
  transport: McpTransportConfig;
  enabled: boolean;
  timeoutMs: number;
  startupTimeoutMs: number;
  includeTools?: string[];
  excludeTools?: string[];
  subagentOnly: boolean;
  oauth?: { clientId?: string; clientSecret?: string; scopes?: string[] };
  /** The file it came from as shown to the user, and whose that file is. */
  file: string;
  origin: Origin;
  /** The command line or URL exactly as written (before ${VAR} expansion), for the trust question. */
  verbatim: string;
  /** What trusting it enables, as written: env, cwd and headers too (reviewedOf). */
  reviewed: string;
  /** How it is reached, for hooks (Gemini CLI's `mcp_context`): never env or headers. */
  connection: McpConnectionFacts;
  /** A trusted workspace server's scripts with the digests trust approved, checked before each start. */
  scripts?: { file: string; digest: string }[];
  /** Why it cannot start (an unset variable), reported instead of starting it. */
  problem?: string;
}

/**
 * A server's non-secret connection details: the command, its arguments and the URL as written (a
 * `${VAR}` stays unexpanded, so a secret it names never reaches a hook), and the folder it starts in.
 */
export function connectionFactsOf(entry: McpServerEntry, cwd: string | undefined): McpConnectionFacts {
  if (entry.command !== undefined)
    return { command: entry.command, args: [...(entry.args ?? [])], ...(cwd ? { cwd } : {}) };
  const url = entry.httpUrl ?? entry.url;
  return url === undefined ? {} : { url };
}

/** Server names become part of tool names (`mcp__<name>__<tool>`): letters, digits, `-` and `_`. */
const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

export function serverNameProblem(name: string): string | undefined {
  if (!SERVER_NAME.test(name)) return `server name "${name}" may only hold letters, digits, "-" and "_"`;
  if (name.includes("__")) return `server name "${name}" may not contain "__" (it separates tool names)`;
  return undefined;
}

/** The command line or URL as written, for people to read (the trust question, `gantry mcp list`). */
export function verbatimOf(entry: McpServerEntry): string {
  if (entry.command !== undefined) return [entry.command, ...(entry.args ?? [])].map(quoteArg).join(" ");
  return entry.httpUrl ?? entry.url ?? "(no command or url)";
}

/**
 * The entry as the trust review shows it: the command line with the environment and folder it starts
 * in, or the URL with its headers, as written (`${VAR}` unexpanded; a literal credential as `…`).
 */
export function reviewedOf(entry: McpServerEntry): string {
  const env = shownPairs(entry.env, (name, value) => `${name}=${value === "…" ? value : quoteArg(value)}`);
  const headers = shownPairs(entry.headers, (name, value) => `${name}: ${value}`);
  return [
    ...(env.length > 0 ? [env.join(" ")] : []),
    verbatimOf(entry),
    ...(entry.cwd !== undefined ? [`(in ${quoteArg(entry.cwd)})`] : []),
    ...(headers.length > 0 ? [`(headers ${headers.join("; ")})`] : []),
  ].join(" ");
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./~${}-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}

export interface ResolveContext {
  name: string;
  file: string;
  origin: Origin;
  workspaceRoot: string;
  env: NodeJS.ProcessEnv;
  /** What a `url` without a `type` is: SSE in Gemini CLI's and Qwen Code's files, streamable HTTP elsewhere. */
  bareUrl: "sse" | "http";
}

/** An entry made ready to start; an unset variable or a missing command becomes `problem`. */
export function resolveServer(entry: McpServerEntry, context: ResolveContext): McpServerConfig {
  const missing = new Set<string>();
  const expand = (text: string) => expandVariables(text, context.env, missing);
  const expandAll = (record: Record<string, string> | undefined) =>
    Object.fromEntries(Object.entries(record ?? {}).map(([key, value]) => [key, expand(value)]));
  const transport = transportOf(entry, expand, expandAll, context);
  const problems: string[] = [];
  if (typeof transport === "string") problems.push(transport);
  if (missing.size > 0)
    problems.push(`it names ${[...missing].map((v) => `\${${v}}`).join(", ")}, which is not set`);
  return {
    name: context.name,
    transport:
      typeof transport === "string" ? { kind: "stdio", command: "", args: [], env: {}, cwd: "" } : transport,
    enabled: entry.enabled !== false && entry.disabled !== true,
    timeoutMs: entry.timeout ?? DEFAULT_REQUEST_TIMEOUT_MS,
    startupTimeoutMs: entry.startupTimeout ?? DEFAULT_STARTUP_TIMEOUT_MS,
    ...(entry.includeTools ? { includeTools: entry.includeTools } : {}),
    ...(entry.excludeTools ? { excludeTools: entry.excludeTools } : {}),
    subagentOnly: entry.subagentOnly === true,
    ...(usesOAuth(entry, transport)
      ? {
          oauth: {
            ...(entry.oauth?.clientId ? { clientId: expand(entry.oauth.clientId) } : {}),
            ...(entry.oauth?.clientSecret ? { clientSecret: expand(entry.oauth.clientSecret) } : {}),
            ...(entry.oauth?.scopes ? { scopes: entry.oauth.scopes } : {}),
          },
        }
      : {}),
    file: context.file,
    origin: context.origin,
    verbatim: verbatimOf(entry),
    reviewed: reviewedOf(entry),
    connection: connectionFactsOf(
      entry,
      typeof transport !== "string" && transport.kind === "stdio" ? transport.cwd : undefined,
    ),
    ...(problems.length > 0 ? { problem: problems.join("; ") } : {}),
  };
}

/**
 * A remote server signs in with OAuth when it asks (a 401), unless its headers carry the credentials
 * already or its entry says `"oauth": {"enabled": false}`.
 */
function usesOAuth(entry: McpServerEntry, transport: McpTransportConfig | string): boolean {
  if (typeof transport === "string" || transport.kind === "stdio") return false;
  if (entry.oauth?.enabled === false) return false;
  return !Object.keys(transport.headers).some((name) => name.toLowerCase() === "authorization");
}

function transportOf(
  entry: McpServerEntry,
  expand: (text: string) => string,
  expandAll: (record: Record<string, string> | undefined) => Record<string, string>,
  context: ResolveContext,
): McpTransportConfig | string {
  const type = entry.type;
  if (type === "stdio" || (type === undefined && entry.command !== undefined)) {
    if (entry.command === undefined) return 'type "stdio" needs a "command"';
    return {
      kind: "stdio",
      command: expand(entry.command),
      args: (entry.args ?? []).map(expand),
      env: expandAll(entry.env),
      // a relative `cwd` is the workspace's folder, not wherever Gantry was started
      cwd: entry.cwd ? path.resolve(context.workspaceRoot, expand(entry.cwd)) : context.workspaceRoot,
    };
  }
  // Gemini CLI: `httpUrl` is streamable HTTP, a bare `url` is SSE; Claude Code: `url` with its `type`
  const url = entry.httpUrl ?? entry.url;
  if (url === undefined) return 'it needs a "command" (stdio) or a "url"';
  const bare = type === undefined && entry.httpUrl === undefined ? context.bareUrl : "http";
  const kind = type === "sse" ? "sse" : type === undefined ? bare : "http";
  return { kind, url: expand(url), headers: expandAll(entry.headers) };
}

/** `${VAR}` and `${VAR:-default}`, as Claude Code expands them; unset names are collected in `missing`. */
export function expandVariables(text: string, env: NodeJS.ProcessEnv, missing: Set<string>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_whole, name: string, fallback) => {
    const value = env[name];
    if (value !== undefined && value !== "") return value;
    if (fallback !== undefined) return fallback as string;
    missing.add(name);
    return "";
  });
}

/** Whether the server offers this tool to Gantry (includeTools / excludeTools, by the server's own name). */
export function offersTool(config: McpServerConfig, tool: string): boolean {
  if (config.includeTools && !config.includeTools.includes(tool)) return false;
  return !config.excludeTools?.includes(tool);
}
