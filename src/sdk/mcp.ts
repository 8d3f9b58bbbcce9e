/**
 * An MCP server as data, the shape ACP's `session/new` hands over: a command to start (stdio) or a URL
 * (http, sse).
 */
export type McpServerSpec =
  | { name: string; type?: "stdio"; command: string; args?: string[]; env?: Record<string, string> }
  | { name: string; type: "http" | "sse"; url: string; headers?: Record<string, string> };

/** Servers by name, as in `.mcp.json`, or a list of McpServerSpec. */
export type McpServersOption = Record<string, unknown> | readonly McpServerSpec[];

/** The `.mcp.json` shape src/mcp reads (`createGantrySession({ mcpServers })`), from either form. */
export function mcpServersByName(servers: McpServersOption): Record<string, unknown> {
  if (!Array.isArray(servers)) return servers as Record<string, unknown>;
  const byName: Record<string, unknown> = {};
  for (const { name, ...server } of servers as readonly McpServerSpec[]) {
    if (Object.hasOwn(byName, name)) throw new Error(`mcpServers names the server "${name}" twice`);
    byName[name] = server;
  }
  return byName;
}
