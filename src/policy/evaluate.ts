import type { GateDecision } from "../tools/gates.js";
import { type ApprovalMode, modeBaseline } from "./modes.js";
import type { Check, Rule } from "./rules.js";

export interface RuleSet {
  deny: readonly Rule[];
  ask: readonly Rule[];
  allow: readonly Rule[];
}

export function ruleLabel(rule: Rule): string {
  return `rule ${rule.kind} ${rule.text} (${rule.origin})`;
}

interface CheckOutcome {
  verdict: "allow" | "ask" | "force_ask" | "deny";
  source: string;
  reason?: string;
}

/** One check against the rules, in Claude Code's order: deny, then ask, then allow; no rule → the mode. */
function judgeCheck(check: Check, rules: RuleSet, mode: ApprovalMode): CheckOutcome {
  const deny = rules.deny.find((rule) => rule.matches(check, "loose"));
  if (deny) return { verdict: "deny", source: ruleLabel(deny), reason: `"${check.label}" matches it` };
  const baseline = modeBaseline(mode, check.safety);
  if (mode === "plan" && baseline === "deny") {
    return {
      verdict: "deny",
      source: "approval mode plan",
      reason: `plan mode runs read-only tools only; "${check.label}" (${check.tool}) would change something. Run with --approval-mode default to be asked instead.`,
    };
  }
  if (check.unparseable) {
    return {
      verdict: "force_ask",
      source: "shell parser",
      reason: `the command does not parse as a shell command, so no rule can vouch for it`,
    };
  }
  const ask = rules.ask.find((rule) => rule.matches(check, "loose"));
  if (ask && mode === "yolo")
    return { verdict: "allow", source: `approval mode yolo (over ${ruleLabel(ask)})` };
  if (ask) return { verdict: "ask", source: ruleLabel(ask), reason: `"${check.label}" matches it` };
  const allow = rules.allow.find((rule) => rule.matches(check, "strict"));
  if (allow) return { verdict: "allow", source: ruleLabel(allow) };
  return {
    verdict: baseline === "allow" ? "allow" : "ask",
    source: `approval mode ${mode}`,
    reason: baseline === "allow" ? undefined : `no allow rule matches "${check.label}" (${check.tool})`,
  };
}

const ORDER = ["deny", "force_ask", "ask", "allow"] as const;

/** The policy's decision on a call: the strictest of its checks, naming the rule or mode that decided. */
export function decideChecks(checks: readonly Check[], rules: RuleSet, mode: ApprovalMode): GateDecision {
  const outcomes = checks.map((check) => judgeCheck(check, rules, mode));
  for (const verdict of ORDER) {
    const hits = outcomes.filter((outcome) => outcome.verdict === verdict);
    const first = hits[0];
    if (!first) continue;
    if (verdict === "allow") return { verdict, source: unique(hits.map((hit) => hit.source)).join("; ") };
    const reasons = unique(hits.map((hit) => hit.reason).filter((reason): reason is string => !!reason));
    return { verdict, source: first.source, reason: reasons.join("; ") || undefined };
  }
  return { verdict: "allow", source: `approval mode ${mode}` };
}

export interface Coverage {
  covered: boolean;
  /** The grants or rules that covered the call, when it was. */
  source: string;
  /** Checks nothing covers: what the user is asked about. */
  uncovered: Check[];
}

/**
 * Whether earlier consent already covers a call (for `ask` and `deny_unless_prior_grant`): a
 * session grant beats an ask rule (the user said "always"); an allow rule counts unless an ask rule
 * also matches; yolo counts for `ask` only, never for `deny_unless_prior_grant`.
 */
export function coverage(
  checks: readonly Check[],
  rules: RuleSet,
  grants: readonly Rule[],
  options: { yolo: boolean },
): Coverage {
  const sources: string[] = [];
  const uncovered: Check[] = [];
  for (const check of checks) {
    if (check.unparseable) {
      uncovered.push(check);
      continue;
    }
    const grant = grants.find((rule) => rule.matches(check, "strict"));
    if (grant) {
      sources.push(`grant ${grant.text} (${grant.origin})`);
      continue;
    }
    const asked = rules.ask.some((rule) => rule.matches(check, "loose"));
    if (options.yolo) {
      sources.push("approval mode yolo");
      continue;
    }
    const allow = asked ? undefined : rules.allow.find((rule) => rule.matches(check, "strict"));
    if (allow) sources.push(ruleLabel(allow));
    else uncovered.push(check);
  }
  return { covered: uncovered.length === 0, source: unique(sources).join("; "), uncovered };
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}
