import { loadSessionSettings } from "../config/load.js";
import { createConfigReport, type SettingValue } from "../config/provenance.js";
import { loadHookConfig } from "../hooks/config.js";
import { loadMcpServers } from "../mcp/sources.js";
import { loadPermissionSettings } from "../policy/load.js";
import { discoverCommands } from "../slash-commands/catalog.js";
import { shellLinesOf } from "../slash-commands/expand.js";
import { agentFileHookConfig } from "../subagents/agent-hooks.js";
import { applyTrustToHooks } from "./hooks.js";
import { printable } from "./shown-value.js";
import { relativeKey, type WorkspaceTrust } from "./workspace-trust.js";

/**
 * What a workspace would enable that this decision does not (the trust question, `gantry trust`):
 * every value its files set that is not honoured for want of trust, hooks verbatim. Nothing is run.
 */
export function reviewWorkspace(trust: WorkspaceTrust, home: string): SettingValue[] {
  const report = createConfigReport();
  const root = trust.root;
  loadSessionSettings({ root, home, trust, report });
  loadPermissionSettings({ workspaceRoot: root, home, trust, report });
  applyTrustToHooks(loadHookConfig(root, home), trust, home, report);
  // an agent file's own hooks run once its folder is trusted: shown verbatim like the settings' hooks
  applyTrustToHooks(agentFileHookConfig(root, home), trust, home, report);
  loadMcpServers({ root, home, trust, report });
  return [
    ...report.values.filter((value) => !value.honoured && value.wantsTrust === true),
    ...commandShellLines(trust, home),
  ];
}

/**
 * The shell lines of the workspace's custom commands (`` !`cmd` ``, `!{cmd}`) that run only once trust
 * covers their file, verbatim: trusting the folder approves them, so the user sees each one first.
 */
function commandShellLines(trust: WorkspaceTrust, home: string): SettingValue[] {
  return discoverCommands(trust.root, home).commands.flatMap((command) => {
    if (command.origin !== "workspace") return [];
    const lines = shellLinesOf(command);
    if (lines.length === 0) return [];
    const status = trust.file(command.file, command.content);
    if (status.trusted) return [];
    return lines.map((line) => ({
      key: `shell line of /${command.name}`,
      value: line,
      file: relativeKey(trust.root, command.file),
      origin: "workspace" as const,
      honoured: false,
      why: status.why,
      wantsTrust: true,
    }));
  });
}

/** The review as lines, file by file: `  .claude/settings.json` then `    hooks: PreToolUse "Bash": ./check.sh`. */
export function formatReview(values: readonly SettingValue[]): string[] {
  const byFile = new Map<string, SettingValue[]>();
  for (const value of values) byFile.set(value.file, [...(byFile.get(value.file) ?? []), value]);
  const lines: string[] = [];
  for (const [file, entries] of byFile) {
    lines.push(`  ${printable(file)}`);
    for (const entry of entries) lines.push(`    ${entry.key}: ${formatValue(entry.value)}`);
  }
  return lines;
}

function formatValue(value: unknown): string {
  return printable(typeof value === "string" ? value : JSON.stringify(value));
}
