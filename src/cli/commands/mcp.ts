import { spawn } from "node:child_process";
import { homedir } from "node:os";
import { createGantrySession, type GantrySession } from "../../gantry.js";
import type { McpConnection } from "../../mcp/connection.js";
import {
  type AddRequest,
  addServer,
  entryFor,
  hasServer,
  type McpScope,
  removeServer,
  scopeFile,
} from "../../mcp/edit-config.js";
import { forgetMcpCredentials, loginMcpServer } from "../../mcp/oauth.js";
import { mcpToolName } from "../../mcp/tool-adapter.js";
import { printable } from "../../trust/shown-value.js";
import { type GlobalOptions, UsageError } from "../options.js";
import { cliTrustOption, reportConfigNotices } from "../trust-option.js";

/** `gantry mcp list|get|add|add-json|remove|serve` (as `claude mcp` does, plus `serve`). */
export async function run(args: string[], options: GlobalOptions): Promise<number> {
  const [action, ...rest] = args;
  switch (action) {
    case "list":
      return list(rest, options);
    case "get":
      return get(rest, options);
    case "add":
      return add(rest, options);
    case "add-json":
      return addJson(rest, options);
    case "remove":
      return remove(rest, options);
    case "serve":
      return (await import("../../mcp/serve-cli.js")).serve(rest, options);
    case "login":
    case "logout":
      return signIn(action, rest, options);
    default:
      throw new UsageError(
        action === undefined
          ? "gantry mcp needs an action: list, get, add, add-json, remove, login, logout or serve"
          : `unknown gantry mcp action "${action}" (list, get, add, add-json, remove, login, logout, serve)`,
      );
  }
}

function openSession(options: GlobalOptions): GantrySession {
  return createGantrySession({
    workspace: options.workspace,
    defaultApprovalMode: "default",
    trust: cliTrustOption(options.trust),
  });
}

/** Starts every server (subagent-only ones too) and prints each one's state and tools. */
async function list(args: string[], options: GlobalOptions): Promise<number> {
  if (args.length > 0) throw new UsageError(`gantry mcp list takes no arguments (got ${args.join(" ")})`);
  const session = openSession(options);
  try {
    reportConfigNotices(session);
    await session.mcp.prepare(["mcp__*"]);
    const out: string[] = [];
    for (const connection of session.mcp.connections) out.push(...describeConnection(connection));
    for (const value of session.config.values) {
      if (!value.key.startsWith("mcpServers.") || value.honoured) continue;
      out.push(
        `${value.key.slice("mcpServers.".length)}  - not started: ${value.value}  (${value.file}: ${value.why})`,
      );
    }
    if (out.length === 0)
      out.push(
        "No MCP servers are configured (gantry mcp add NAME COMMAND, or .mcp.json, or mcpServers in settings).",
      );
    process.stdout.write(`${out.map(printable).join("\n")}\n`);
    return 0;
  } finally {
    await session.dispose();
  }
}

function describeConnection(connection: McpConnection): string[] {
  const config = connection.config;
  const how = `${config.transport.kind}: ${config.verbatim}  (${config.file})`;
  const only = config.subagentOnly ? " · subagents only" : "";
  if (connection.state === "ready") {
    const names = connection.tools.map((tool) => mcpToolName(config.name, tool.name));
    return [
      `${config.name}  ✓ connected (protocol ${connection.protocolVersion ?? "?"})${only}  ${how}`,
      `  ${names.length} tool${names.length === 1 ? "" : "s"}: ${names.join(", ") || "none"}`,
    ];
  }
  if (connection.state === "disabled") return [`${config.name}  - disabled${only}  ${how}`];
  const [first, ...more] = (connection.problem ?? "failed").split("\n");
  return [`${config.name}  ✗ failed${only}  ${how}`, `  ${first}`, ...more.map((line) => `  ${line}`)];
}

async function get(args: string[], options: GlobalOptions): Promise<number> {
  const [name, ...extra] = args;
  if (name === undefined || extra.length > 0) throw new UsageError("gantry mcp get takes one server name");
  const session = openSession(options);
  try {
    const connection = session.mcp.get(name);
    if (!connection) {
      const ignored = session.config.values.find((v) => v.key === `mcpServers.${name}`);
      process.stderr.write(
        ignored
          ? `gantry: ${name} (${ignored.file}) is not started: ${ignored.why}\n`
          : `gantry: no MCP server "${name}" is configured\n`,
      );
      return 1;
    }
    await connection.ready();
    const config = connection.config;
    const t = config.transport;
    const out = [`${name}:`, `  file: ${config.file}`, `  type: ${t.kind}`];
    if (t.kind === "stdio")
      out.push(`  command: ${config.verbatim}`, `  cwd: ${t.cwd}`, ...keysOf("env", t.env));
    else out.push(`  url: ${t.url}`, ...keysOf("headers", t.headers));
    out.push(`  timeout: ${config.timeoutMs} ms, startup: ${config.startupTimeoutMs} ms`);
    if (config.subagentOnly) out.push("  subagents only: its tools stay out of the main agent's prompt");
    if (config.includeTools) out.push(`  includeTools: ${config.includeTools.join(", ")}`);
    if (config.excludeTools) out.push(`  excludeTools: ${config.excludeTools.join(", ")}`);
    out.push(...describeConnection(connection).map((line) => `  ${line}`), `  log: ${connection.logFile}`);
    for (const tool of connection.tools)
      out.push(`    ${mcpToolName(name, tool.name)}: ${firstLine(tool.description)}`);
    process.stdout.write(`${out.map(printable).join("\n")}\n`);
    return 0;
  } finally {
    await session.dispose();
  }
}

/** Variable names only: values may be secrets. */
function keysOf(label: string, record: Record<string, string>): string[] {
  const keys = Object.keys(record);
  return keys.length > 0 ? [`  ${label}: ${keys.join(", ")} (values not shown)`] : [];
}

function firstLine(text: string | undefined): string {
  return (text ?? "").split("\n")[0]?.slice(0, 120) ?? "";
}

function scopeOf(options: GlobalOptions): McpScope | undefined {
  const scope = options.scope;
  if (scope === undefined) return undefined;
  if (scope === "user" || scope === "project") return scope;
  if (scope === "local")
    throw new UsageError(
      '--scope local is not supported: use "project" (.mcp.json) or "user" (~/.agents/settings.json)',
    );
  throw new UsageError(`--scope must be user or project, not "${scope}"`);
}

function workspaceRoot(options: GlobalOptions): string {
  return options.workspace ?? process.cwd();
}

async function add(args: string[], options: GlobalOptions): Promise<number> {
  const [name, target, ...rest] = args;
  if (name === undefined || target === undefined)
    throw new UsageError(
      "gantry mcp add needs a NAME and a COMMAND (or URL): gantry mcp add NAME -- COMMAND ARGS...",
    );
  const transport = options.transport ?? "stdio";
  if (transport !== "stdio" && transport !== "http" && transport !== "sse")
    throw new UsageError(`--transport must be stdio, http or sse, not "${transport}"`);
  const request: AddRequest = {
    name,
    target,
    args: rest,
    transport,
    env: pairs(options.env ?? [], "=", "--env KEY=VALUE"),
    headers: pairs(options.header ?? [], ":", '--header "Name: value"'),
    subagentOnly: options["subagent-only"] === true,
  };
  let entry: ReturnType<typeof entryFor>;
  try {
    entry = entryFor(request);
  } catch (cause) {
    throw new UsageError((cause as Error).message);
  }
  return writeEntry(name, entry, options);
}

async function addJson(args: string[], options: GlobalOptions): Promise<number> {
  const [name, json, ...extra] = args;
  if (name === undefined || json === undefined || extra.length > 0)
    throw new UsageError("gantry mcp add-json takes a NAME and the server's JSON");
  let entry: unknown;
  try {
    entry = JSON.parse(json);
  } catch (cause) {
    throw new UsageError(`the server JSON is not valid: ${(cause as Error).message}`);
  }
  return writeEntry(name, entry, options);
}

function writeEntry(name: string, entry: unknown, options: GlobalOptions): number {
  const scope = scopeOf(options) ?? "project";
  const file = scopeFile(scope, workspaceRoot(options), homedir());
  try {
    addServer(file, name, entry);
  } catch (cause) {
    process.stderr.write(`gantry: ${(cause as Error).message}\n`);
    return 1;
  }
  const note =
    scope === "project"
      ? ' It starts once you trust this folder ("gantry trust"), as every server of .mcp.json does.'
      : "";
  process.stdout.write(`Added MCP server "${name}" to ${file}.${note}\n`);
  return 0;
}

async function remove(args: string[], options: GlobalOptions): Promise<number> {
  const [name, ...extra] = args;
  if (name === undefined || extra.length > 0) throw new UsageError("gantry mcp remove takes one server name");
  const scopes: McpScope[] = scopeOf(options) ? [scopeOf(options) as McpScope] : ["project", "user"];
  const files = scopes.map((scope) => scopeFile(scope, workspaceRoot(options), homedir()));
  const holding = files.filter((file) => hasServer(file, name));
  if (holding.length === 0) {
    process.stderr.write(`gantry: no MCP server "${name}" in ${files.join(" or ")}\n`);
    return 1;
  }
  if (holding.length > 1) {
    process.stderr.write(
      `gantry: "${name}" is in ${holding.join(" and ")}; say which with --scope user or --scope project\n`,
    );
    return 1;
  }
  removeServer(holding[0] as string, name);
  process.stdout.write(`Removed MCP server "${name}" from ${holding[0]}.\n`);
  return 0;
}

/** `gantry mcp login NAME`: the OAuth sign-in of a remote server (the page to open is printed); `logout` forgets it. */
async function signIn(action: "login" | "logout", args: string[], options: GlobalOptions): Promise<number> {
  const [name, ...extra] = args;
  if (name === undefined || extra.length > 0)
    throw new UsageError(`gantry mcp ${action} takes one server name`);
  const session = openSession(options);
  try {
    const config = session.mcp.get(name)?.config;
    if (!config) {
      process.stderr.write(`gantry: no MCP server "${name}" is configured (or this folder is not trusted)\n`);
      return 1;
    }
    if (action === "logout") {
      const had = forgetMcpCredentials(config, homedir());
      process.stdout.write(had ? `Signed out of "${name}".\n` : `No sign-in was kept for "${name}".\n`);
      return 0;
    }
    const outcome = await loginMcpServer(config, homedir(), (url) => {
      process.stdout.write(`Open this page to sign in to "${name}":\n  ${url.href}\n`);
      openInBrowser(url.href);
    });
    process.stdout.write(
      outcome === "already"
        ? `Already signed in to "${name}".\n`
        : `Signed in to "${name}" (kept in ~/.agents/mcp-oauth.json).\n`,
    );
    return 0;
  } catch (cause) {
    process.stderr.write(`gantry: ${(cause as Error).message}\n`);
    return 1;
  } finally {
    await session.dispose();
  }
}

/** Best effort: the printed address is the way in; a desktop opener only saves a copy and paste. */
function openInBrowser(url: string): void {
  if (process.env.GANTRY_NO_BROWSER === "1" || !process.stdout.isTTY) return;
  const opener = process.platform === "darwin" ? "open" : "xdg-open";
  try {
    spawn(opener, [url], { stdio: "ignore", detached: true })
      .on("error", () => undefined)
      .unref();
  } catch {
    // no opener: the address above is enough
  }
}

function pairs(items: string[], separator: string, form: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const at = item.indexOf(separator);
    if (at <= 0) throw new UsageError(`"${item}" is not ${form}`);
    out[item.slice(0, at).trim()] = item.slice(at + 1).trim();
  }
  return out;
}
