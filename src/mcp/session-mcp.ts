import { readFileSync } from "node:fs";
import path from "node:path";
import type { ConfigReport } from "../config/provenance.js";
import type { Asker } from "../policy/asker.js";
import { sessionsDir } from "../session/jsonl.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { WorkspaceTrust } from "../trust/workspace-trust.js";
import type { McpServerConfig } from "./config.js";
import { canElicit, type ElicitRequest, elicitThroughAsker } from "./elicitation.js";
import { createMcpManager, type McpManager } from "./manager.js";
import { createMcpOAuthProvider } from "./oauth.js";
import { createMcpResourcesTool } from "./resources-tool.js";
import { loadMcpServers } from "./sources.js";

export interface SessionMcpOptions {
  root: string;
  home: string;
  trust: WorkspaceTrust;
  report: ConfigReport;
  registry: ToolRegistry;
  /** Tool names switched off in settings (`tools.disabled` may name `mcp__` tools before they exist). */
  disabled: readonly string[];
  /** Servers the caller gives (the library's `mcpServers`), counted as the user's. */
  given?: Record<string, unknown>;
  settingsGiven: boolean;
  env?: NodeJS.ProcessEnv;
  /** Who answers a server's elicitation forms (the session's asker); headless or none: not offered. */
  asker?: Asker;
}

/**
 * A session's MCP servers: read from every file users keep them in (trust decides the workspace's),
 * none started yet; their tools join the registry when a server starts (src/mcp/manager.ts).
 */
export function openSessionMcp(options: SessionMcpOptions): McpManager {
  const loaded = loadMcpServers({
    root: options.root,
    home: options.home,
    trust: options.trust,
    report: options.report,
    ...(options.env ? { env: options.env } : {}),
    ...(options.given ? { given: options.given } : {}),
    settingsGiven: options.settingsGiven,
  });
  options.report.warnings.push(...loaded.warnings);
  return createServerManager(loaded.servers, options.registry, {
    // the folder's name hashes the workspace's path (node:crypto, ms of start-up): only servers log there
    logDir: loaded.servers.length > 0 ? path.join(sessionsDir(options.home, options.root), "mcp") : "",
    disabled: options.disabled,
    home: options.home,
    roots: [options.root],
    ...(canElicit(options.asker) ? { asker: options.asker } : {}),
  });
}

/**
 * MCP servers' tools in a registry (the clean seam for embedders and other adapters): each server
 * starts on first use, and each tool it offers is registered, off where `disabled` names it.
 */
export function createServerManager(
  servers: readonly McpServerConfig[],
  registry: ToolRegistry,
  options: {
    logDir: string;
    disabled?: readonly string[];
    onNotice?: (line: string) => void;
    /** Where remote servers' OAuth tokens are kept (`~/.agents/mcp-oauth.json`); without it, no OAuth. */
    home?: string;
    /** Folders offered to servers as MCP roots (the workspace); none: no roots capability. */
    roots?: readonly string[];
    /** Who fills in servers' elicitation forms; none: elicitation is not offered. */
    asker?: Asker;
  },
): McpManager {
  const manager = createMcpManager({
    servers,
    logDir: options.logDir,
    clientVersion: GANTRY_VERSION,
    hasTool: (name) => registry.lookup(name) !== undefined,
    onTool: (tool) => {
      registry.register(tool);
      if (options.disabled?.includes(tool.spec.name)) registry.setEnabled(tool.spec.name, false);
    },
    setOffered: (name, offered) => registry.setEnabled(name, offered && !options.disabled?.includes(name)),
    ...(options.onNotice ? { onNotice: options.onNotice } : {}),
    ...(options.home ? { authProviderFor: oauthFor(options.home) } : {}),
    ...(options.roots ? { roots: options.roots } : {}),
    ...(options.asker ? { elicit: elicitWith(options.asker) } : {}),
  });
  if (servers.length > 0) registry.register(createMcpResourcesTool(manager));
  return manager;
}

function elicitWith(asker: Asker) {
  return (server: string, request: ElicitRequest, signal: AbortSignal) =>
    elicitThroughAsker(asker, server, request, signal);
}

function oauthFor(home: string) {
  return (config: McpServerConfig) => (config.oauth ? createMcpOAuthProvider(config, home) : undefined);
}

/** Gantry's version for the MCP handshake (package.json sits two folders up from src/mcp, dist/mcp and dist/bundle). */
export const GANTRY_VERSION: string = (() => {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version?: string;
    };
    return pkg.version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
})();
