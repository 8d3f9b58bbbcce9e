import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type McpServerEntry, McpServerEntrySchema, serverNameProblem } from "./config.js";

/**
 * `gantry mcp add|remove`, as `claude mcp` does: `user` scope is the user's `~/.agents/settings.json`,
 * `project` scope the workspace's `.mcp.json` (shared with Claude Code; it needs the folder's trust).
 */
export type McpScope = "user" | "project";

export function scopeFile(scope: McpScope, root: string, home: string): string {
  return scope === "user" ? path.join(home, ".agents", "settings.json") : path.join(root, ".mcp.json");
}

export interface AddRequest {
  name: string;
  /** The command (stdio) or the URL (http, sse). */
  target: string;
  args: string[];
  transport: "stdio" | "http" | "sse";
  env: Record<string, string>;
  headers: Record<string, string>;
  subagentOnly?: boolean;
}

/** The entry `gantry mcp add` writes, in Claude Code's shape (so `.mcp.json` stays readable by it). */
export function entryFor(request: AddRequest): McpServerEntry {
  const extra = request.subagentOnly ? { subagentOnly: true } : {};
  if (request.transport === "stdio") {
    return {
      type: "stdio",
      command: request.target,
      args: request.args,
      ...(Object.keys(request.env).length > 0 ? { env: request.env } : {}),
      ...extra,
    };
  }
  if (request.args.length > 0)
    throw new Error(`a ${request.transport} server takes a URL, not arguments (${request.args.join(" ")})`);
  try {
    new URL(request.target);
  } catch {
    throw new Error(`"${request.target}" is not a URL (for a local server, use --transport stdio)`);
  }
  return {
    type: request.transport,
    url: request.target,
    ...(Object.keys(request.headers).length > 0 ? { headers: request.headers } : {}),
    ...extra,
  };
}

/** Adds (or, with `replace`, replaces) a server in the scope's file; other keys of the file stay as they are. */
export function addServer(file: string, name: string, entry: unknown, replace = false): void {
  const problem = serverNameProblem(name);
  if (problem) throw new Error(problem);
  const parsed = McpServerEntrySchema().safeParse(entry);
  if (!parsed.success)
    throw new Error(
      `invalid server: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(entry)"}: ${i.message}`).join("; ")}`,
    );
  const json = readObject(file);
  const servers = serversOf(json, file);
  if (servers[name] !== undefined && !replace)
    throw new Error(`${file} already has a server "${name}" (remove it first: gantry mcp remove ${name})`);
  servers[name] = entry;
  json.mcpServers = servers;
  writeObject(file, json);
}

/** Removes a server from the file; false when the file has none of that name. */
export function removeServer(file: string, name: string): boolean {
  if (!existsSync(file)) return false;
  const json = readObject(file);
  const servers = serversOf(json, file);
  if (servers[name] === undefined) return false;
  delete servers[name];
  json.mcpServers = servers;
  writeObject(file, json);
  return true;
}

export function hasServer(file: string, name: string): boolean {
  return existsSync(file) && serversOf(readObject(file), file)[name] !== undefined;
}

function readObject(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (cause) {
    throw new Error(
      `${file} is not valid JSON (${(cause as Error).message}); fix it first, nothing was changed`,
    );
  }
  if (typeof json !== "object" || json === null || Array.isArray(json))
    throw new Error(`${file} does not hold a JSON object; nothing was changed`);
  return json as Record<string, unknown>;
}

function serversOf(json: Record<string, unknown>, file: string): Record<string, unknown> {
  const servers = json.mcpServers ?? {};
  if (typeof servers !== "object" || servers === null || Array.isArray(servers))
    throw new Error(`${file}: "mcpServers" is not an object; nothing was changed`);
  return { ...(servers as Record<string, unknown>) };
}

/** Written whole to a temporary file and renamed over the old one: a crash leaves one or the other. */
function writeObject(file: string, json: Record<string, unknown>): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.gantry-tmp-${process.pid}`;
  writeFileSync(temp, `${JSON.stringify(json, null, 2)}\n`);
  renameSync(temp, file);
}
