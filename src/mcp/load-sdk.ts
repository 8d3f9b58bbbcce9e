/**
 * The MCP client SDK (with its own schemas and HTTP stack) is loaded when the first server starts, not
 * with every session: most sessions start none, and `gantry tool` start-up is a benchmark target.
 */
export type McpSdk = typeof import("./sdk.js");

let loaded: McpSdk | undefined;

export async function loadMcpSdk(): Promise<McpSdk> {
  loaded ??= await import("./sdk.js");
  return loaded;
}

/** The SDK once a server has started (everything that handles a server's answers runs after that). */
export function loadedMcpSdk(): McpSdk {
  if (!loaded) throw new Error("the MCP SDK is used before any server started");
  return loaded;
}
