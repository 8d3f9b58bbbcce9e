import path from "node:path";
import type { SecretGuard } from "../workspace/secrets.js";
import type { SessionPermissions } from "./permissions.js";
import type { Check, Rule } from "./rules.js";

/**
 * What a listing or search may show (SPEC §5: Read rules bind every tool that reads or lists): the
 * secret guard, plus the paths a deny rule for the tool covers, and those an ask rule covers unless a
 * grant or yolo passes them. A hidden file is neither searched nor named, as a secret is not.
 */
export function withReadRules(
  permissions: SessionPermissions | undefined,
  tool: string,
  secrets: SecretGuard,
): { guard: SecretGuard; hidesByRules: boolean } {
  const mode = permissions?.mode;
  if (!permissions || !mode) return { guard: secrets, hidesByRules: false };
  const rules = permissions.rules();
  const forTool = (rule: Rule) => rule.tools.has(tool) && rule.specifier !== undefined;
  const deny = rules.deny.filter(forTool);
  const ask = mode === "yolo" ? [] : rules.ask.filter(forTool);
  if (deny.length === 0 && ask.length === 0) return { guard: secrets, hidesByRules: false };
  const grants = permissions.grants.rules();
  const root = permissions.workspace.root;
  const hidden = (rel: string) => {
    const abs = path.join(root, rel);
    const check: Check = {
      tool,
      safety: "read_only",
      label: rel,
      value: { type: "path", resolved: abs, named: abs, directory: false },
    };
    if (deny.some((rule) => rule.matches(check, "loose"))) return true;
    return (
      ask.some((rule) => rule.matches(check, "loose")) &&
      !grants.some((grant) => grant.matches(check, "strict"))
    );
  };
  return {
    guard: {
      isSecret: (rel) => secrets.isSecret(rel) || hidden(rel),
      isSecretEntry: (rel, name) => secrets.isSecretEntry(rel, name) || hidden(rel),
    },
    hidesByRules: true,
  };
}
