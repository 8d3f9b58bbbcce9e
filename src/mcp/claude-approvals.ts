import path from "node:path";
import { shownPath } from "../trust/origin.js";
import type { JsonFiles } from "./sources.js";

/**
 * Claude Code's answers about a project's `.mcp.json` servers. `disabledMcpjsonServers` is a user's
 * refusal (Claude Code writes it to `.claude/settings.local.json` and to the project's entry in
 * `~/.claude.json`): the servers it names do not start under Gantry either, from any file, trusted or
 * not, since it only narrows. What widens (`enabledMcpjsonServers`, `enableAllProjectMcpServers`) is the
 * folder's trust in Gantry; a workspace file trust does not cover that sets it is named, not honoured.
 */
export function claudeMcpApprovals(
  root: string,
  home: string,
  {
    files: readJson,
    isTrusted,
    warnings,
  }: { files: JsonFiles; isTrusted: (file: string) => boolean; warnings: string[] },
): { disabled: Map<string, string> } {
  const disabled = new Map<string, string>();
  const files: {
    abs: string;
    shown: string;
    workspace: boolean;
    pick?: (json: Record<string, unknown>) => unknown;
  }[] = [
    {
      abs: path.join(home, ".claude.json"),
      shown: "~/.claude.json",
      workspace: false,
      pick: (json) => (json.projects as Record<string, unknown> | undefined)?.[root],
    },
    { abs: path.join(home, ".claude", "settings.json"), shown: "~/.claude/settings.json", workspace: false },
    ...[".claude/settings.json", ".claude/settings.local.json"].map((rel) => ({
      abs: path.join(root, rel),
      shown: shownPath(path.join(root, rel), root, home),
      workspace: true,
    })),
  ];
  for (const { abs, shown, workspace, pick } of files) {
    // a file that is not JSON is named by the reader of its servers or settings
    const { json } = readJson(abs);
    const section = json && (pick ? pick(json) : json);
    if (typeof section !== "object" || section === null) continue;
    const {
      disabledMcpjsonServers: names,
      enabledMcpjsonServers,
      enableAllProjectMcpServers,
    } = section as Record<string, unknown>;
    if (names !== undefined) {
      if (!Array.isArray(names) || !names.every((name) => typeof name === "string"))
        warnings.push(`${shown}: "disabledMcpjsonServers" must be a list of server names; ignored`);
      else for (const name of names) if (!disabled.has(name)) disabled.set(name, shown);
    }
    if (!workspace || isTrusted(abs)) continue;
    for (const [key, value] of Object.entries({ enabledMcpjsonServers, enableAllProjectMcpServers }))
      if (value !== undefined)
        warnings.push(
          `${shown}: ${key} is not honoured: a workspace's .mcp.json servers start once you trust the folder (gantry trust)`,
        );
  }
  return { disabled };
}
