import type { Tool as McpToolInfo } from "@modelcontextprotocol/client";
import type { AnyTool } from "../tools/contract.js";
import { type McpServerConfig, offersTool } from "./config.js";
import { createMcpConnection, type McpConnection, type McpConnectionDeps } from "./connection.js";
import type { ElicitRequest, ElicitResult } from "./elicitation.js";
import { createMcpTool, mcpToolName } from "./tool-adapter.js";

export interface McpManagerOptions {
  servers: readonly McpServerConfig[];
  /** Folder for the servers' logs (one `<server>.log` each). */
  logDir: string;
  clientVersion: string;
  /** Receives each tool a server offers, once (the session registers it in its registry). */
  onTool(tool: AnyTool): void;
  /** Whether a tool of this name is already known (a name two servers' tools both map to). */
  hasTool?(name: string): boolean;
  /** A line for the user (a server that failed to start, a tool name taken twice). */
  onNotice?(line: string): void;
  /** A registered tool the server withdrew (`tools/list_changed`) or offers again: out of the model's list, or back. */
  setOffered?(name: string, offered: boolean): void;
  authProviderFor?(config: McpServerConfig): McpConnectionDeps["authProvider"];
  /** Folders offered to the servers as MCP roots. */
  roots?: readonly string[];
  /** Puts a server's elicitation form to the user; none: elicitation is not offered. */
  elicit?(server: string, request: ElicitRequest, signal: AbortSignal): Promise<ElicitResult>;
}

/** The session's MCP servers: each started lazily, its tools registered as they become known. */
export interface McpManager {
  readonly connections: readonly McpConnection[];
  get(server: string): McpConnection | undefined;
  /**
   * Starts the servers the main agent uses (not the subagent-only ones) that have not been started,
   * in parallel, and waits for each to be ready or to fail. Returns one line per failure (a server that
   * did not start, a tool it offers that cannot be used).
   */
  startMain(): Promise<string[]>;
  /** Starts the servers tool names or patterns mean (`mcp__github__x`, `mcp__github`, `mcp__gh*`, `mcp__*`). */
  startFor(patterns: readonly string[]): Promise<string[]>;
  /** Both: what every agent has, and what this one names (a subagent about to be planned). */
  prepare(patterns: readonly string[]): Promise<string[]>;
  close(): Promise<void>;
}

export function createMcpManager(options: McpManagerOptions): McpManager {
  const offered = new Set<string>();
  /** Tools registered from each server, and those it has withdrawn since. */
  const registeredBy = new Map<McpConnection, Set<string>>();
  const withdrawn = new Set<string>();
  /** Lines said while servers start, returned with the failures. */
  let said: string[] = [];
  const notice = (line: string) => {
    said.push(line);
    options.onNotice?.(line);
  };
  const connections = options.servers.map((config) => {
    const connection: McpConnection = createMcpConnection(config, {
      logDir: options.logDir,
      clientVersion: options.clientVersion,
      onTools: (tools) => registerTools(connection, tools),
      ...authOf(options.authProviderFor?.(config)),
      ...(options.roots ? { roots: options.roots } : {}),
      ...(options.elicit
        ? {
            elicit: (request: ElicitRequest, signal: AbortSignal) =>
              options.elicit!(config.name, request, signal),
          }
        : {}),
    });
    return connection;
  });

  function registerTools(connection: McpConnection, tools: readonly McpToolInfo[]): void {
    const server = connection.config.name;
    const mine = registeredBy.get(connection) ?? new Set<string>();
    registeredBy.set(connection, mine);
    const current = new Set<string>();
    for (const info of tools) {
      if (!offersTool(connection.config, info.name)) continue;
      const name = mcpToolName(server, info.name);
      current.add(name);
      if (offered.has(name)) continue;
      if (options.hasTool?.(name)) {
        notice(`MCP server "${server}": tool name ${name} is taken; "${info.name}" is skipped`);
        continue;
      }
      let tool: AnyTool;
      try {
        tool = createMcpTool(connection, info);
      } catch (cause) {
        // one tool the model could not be given must not cost the server its other tools
        notice(
          `MCP server "${server}": the tool "${info.name}" is skipped: its input schema cannot be used (${(cause as Error).message})`,
        );
        continue;
      }
      offered.add(name);
      mine.add(name);
      options.onTool(tool);
    }
    for (const name of mine) {
      const isOffered = current.has(name);
      if (isOffered === !withdrawn.has(name)) continue;
      if (isOffered) withdrawn.delete(name);
      else withdrawn.add(name);
      options.setOffered?.(name, isOffered);
    }
  }

  async function startAll(chosen: McpConnection[]): Promise<string[]> {
    const outcomes = await Promise.all(chosen.map((connection) => connection.ready()));
    const failures = outcomes.filter((outcome): outcome is string => typeof outcome === "string");
    for (const failure of failures) options.onNotice?.(failure);
    const lines = [...failures, ...said];
    said = [];
    return lines;
  }

  const startMain = () => startAll(connections.filter((c) => !c.config.subagentOnly && c.state === "idle"));
  const startFor = (patterns: readonly string[]) =>
    startAll(
      connections.filter(
        (c) =>
          c.state !== "disabled" &&
          c.state !== "ready" &&
          patterns.some((p) => patternMeans(p, c.config.name)),
      ),
    );
  return {
    connections,
    get: (server) => connections.find((connection) => connection.config.name === server),
    startMain,
    startFor,
    async prepare(patterns) {
      const [main, named] = await Promise.all([startMain(), startFor(patterns)]);
      return [...main, ...named];
    },
    async close() {
      await Promise.all(connections.map((connection) => connection.close()));
    },
  };
}

function authOf(provider: McpConnectionDeps["authProvider"] | undefined) {
  return provider ? { authProvider: provider } : {};
}

/** Whether a tool name or pattern could name a tool of `server`. */
export function patternMeans(pattern: string, server: string): boolean {
  if (!pattern.startsWith("mcp__")) return false;
  const rest = pattern.slice("mcp__".length);
  if (rest.endsWith("*") && !rest.includes("__")) return server.startsWith(rest.slice(0, -1));
  const head = rest.split("__")[0] ?? "";
  return head === server;
}
