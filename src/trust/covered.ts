import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { createConfigReport } from "../config/provenance.js";
import { type HookConfig, loadHookConfig } from "../hooks/config.js";
import { loadMcpServers, serverScripts } from "../mcp/sources.js";
import { workspaceCommandFiles } from "../slash-commands/catalog.js";
import { agentFileHookConfig } from "../subagents/agent-hooks.js";
import { subagentFolders } from "../subagents/types.js";
import { PROTECTED_AGENT_CONFIG } from "../workspace/protected.js";
import { scriptsNamedBy } from "./hook-scripts.js";
import { originOf } from "./origin.js";
import { resolveWorkspaceTrust } from "./workspace-trust.js";

/**
 * Every file a decision for `root` pins (SPEC §5a): the config files that exist (what can run code,
 * redirect the model or widen a permission: hooks, settings, MCP servers), the agent definitions
 * (their `model`), the custom commands (their shell lines) and the workspace scripts any hook names.
 */
export function trustCoveredFiles(root: string, home: string): string[] {
  const files = new Set<string>();
  for (const rel of PROTECTED_AGENT_CONFIG) {
    const abs = path.join(root, rel);
    if (isFile(abs)) files.add(abs);
  }
  for (const folder of subagentFolders(root, home)) {
    if (originOf(folder, home, root) === "workspace")
      for (const file of markdownBelow(folder)) files.add(file);
  }
  for (const file of workspaceCommandFiles(root)) files.add(file);
  for (const script of hookScripts(root, home)) files.add(script);
  for (const script of mcpServerScripts(root, home)) files.add(script);
  return [...files].sort();
}

/** The workspace scripts MCP servers run (`node tools/server.js`, `npx` of a package in node_modules). */
function mcpServerScripts(root: string, home: string): string[] {
  const trust = resolveWorkspaceTrust(root, { kind: "given", how: "listing what trust covers" });
  const { servers } = loadMcpServers({ root, home, trust, report: createConfigReport(), env: {} });
  // the user's own servers too: what they run of the workspace is pinned like the workspace's
  return servers.flatMap((server) => serverScripts(server, root, home));
}

/** The workspace scripts hooks name, the user's own and agent files' included (their scripts are protected too). */
export function hookScripts(root: string, home: string): string[] {
  return [
    ...scriptsOfHooks(loadHookConfig(root, home), root, { home }),
    // agent files' own hooks (`hooks:` in .claude/agents/*.md) run their scripts as well
    ...scriptsOfHooks(agentFileHookConfig(root, home), root, { home }),
  ];
}

/**
 * The workspace scripts the handlers of `config` name (all of them, trusted or not); `includeMissing`:
 * also those named that do not exist yet (scriptsNamedBy), for the files the agent may not create.
 */
export function scriptsOfHooks(
  config: HookConfig,
  root: string,
  options: { includeMissing?: boolean; home?: string } = {},
): string[] {
  const scripts = new Set<string>();
  for (const group of config.groups) {
    for (const rule of group.rules) {
      for (const handler of rule.handlers) {
        if (handler.kind !== "command") continue;
        for (const script of scriptsNamedBy(handler.command, root, options)) scripts.add(script);
      }
    }
  }
  return [...scripts];
}

const MAX_DEPTH = 4;

function markdownBelow(folder: string, depth = 0): string[] {
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const entry of entries) {
    const abs = path.join(folder, entry.name);
    if (entry.isDirectory() && depth < MAX_DEPTH) found.push(...markdownBelow(abs, depth + 1));
    else if (entry.name.endsWith(".md") && isFile(abs)) found.push(abs);
  }
  return found;
}

function isFile(abs: string): boolean {
  try {
    return statSync(abs).isFile();
  } catch {
    return false;
  }
}
