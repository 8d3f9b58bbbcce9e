import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";
import { MODE_DESCRIPTIONS } from "../../policy/modes.js";
import type { SessionPermissions } from "../../policy/permissions.js";
import { defineTool, okResult } from "../contract.js";

const ListPermissionsParameters = lazySchema(() => z.object({}));

/** `list_permissions`: the approval mode, every rule with its file, and this session's grants with their source. */
export function createListPermissionsTool(permissions: SessionPermissions) {
  return defineTool({
    spec: {
      name: "list_permissions",
      description:
        "List what this session may do without asking: the approval mode, the allow/ask/deny rules with the settings file each comes from, and the grants given during this session (with who gave them). No arguments.",
      parameters: ListPermissionsParameters,
      safety: "read_only",
      group: "Permission",
    },
    async execute() {
      const rules = permissions.rules();
      const ruleRows = (["deny", "ask", "allow"] as const).flatMap((kind) =>
        rules[kind].map((rule) => ({ kind, rule: rule.text, file: rule.origin })),
      );
      const grants = permissions.grants.list().map((grant) => ({
        rule: grant.rule.text,
        source: grant.source,
        grantedAt: grant.grantedAt,
      }));
      const errors = permissions
        .ruleErrors()
        .map(({ entry, error }) => ({ rule: entry.text, file: entry.origin, error }));
      const mode = permissions.mode;
      const lines = [
        mode
          ? `Approval mode: ${mode} (${MODE_DESCRIPTIONS[mode]}); from ${permissions.modeSource}.`
          : `Approval mode: ${permissions.modeSource}.`,
        "",
        "Rules (deny beats ask beats allow):",
        ...(ruleRows.length > 0
          ? ruleRows.map((row) => `  ${row.kind.padEnd(5)} ${row.rule}  [${row.file}]`)
          : ["  (none)"]),
        "",
        "Grants this session:",
        ...(grants.length > 0 ? grants.map((grant) => `  ${grant.rule}  [${grant.source}]`) : ["  (none)"]),
      ];
      if (errors.length > 0) {
        lines.push(
          "",
          "Rules that could not be read:",
          ...errors.map((e) => `  ${e.rule} [${e.file}]: ${e.error}`),
        );
      }
      if (permissions.ignored.length > 0) {
        lines.push(
          "",
          "Ignored (the workspace's files need the user's trust; the user runs `gantry trust`):",
          ...permissions.ignored.map((entry) => `  ${entry.text}  [${entry.origin}]: ${entry.why}`),
        );
      }
      for (const warning of permissions.warnings) lines.push(`Warning: ${warning}`);
      return okResult(lines.join("\n"), {
        approvalMode: mode ?? null,
        approvalModeSource: permissions.modeSource,
        rules: ruleRows,
        grants,
        ruleErrors: errors,
        ignored: permissions.ignored,
      });
    },
  });
}
