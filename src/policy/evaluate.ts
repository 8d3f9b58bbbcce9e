import type { GateDecision } from "../tools/gates.js";
import { type ApprovalMode, type Baseline, modeBaseline } from "./modes.js";
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
  /** Empty for an implied check, which passes with the rest of the call. */
  source: string;
  reason?: string;
  /** The approval mode's own baseline decided (no rule matched). */
  byMode?: boolean;
}

const PROTECTED_SOURCE = "protected files";

/**
 * One check against the rules, in Claude Code's order: deny, then ask, then allow; no rule → the
 * mode. Protected files and deny rules hold in every mode; what is known only when the command runs
 * is never allowed by a rule (SPEC §5).
 */
function judgeCheck(check: Check, rules: RuleSet, mode: ApprovalMode): CheckOutcome {
  const deny = rules.deny.find((rule) => rule.matches(check, "loose"));
  if (deny) return { verdict: "deny", source: ruleLabel(deny), reason: `"${check.label}" matches it` };
  if (check.protectedFile) return protectedDenial(check);
  if (check.onlyDenials) return judgeInsideScript(check, rules, mode);
  const baseline = modeBaseline(mode, check.safety);
  if (mode === "plan" && baseline === "deny") {
    return {
      verdict: "deny",
      source: "approval mode plan",
      reason: `plan mode runs read-only tools only; "${check.label}" (${check.tool}) would change something. Run with --approval-mode default to be asked instead.`,
    };
  }
  const carried = check.carrier ? carrierSource(check.carrier, rules, mode) : undefined;
  if (carried !== undefined) return judgeCarried(check, rules, mode, carried);
  if (check.unparseable) {
    return {
      verdict: "force_ask",
      source: "shell parser",
      reason: `the command does not parse as a shell command, so no rule can vouch for it`,
    };
  }
  if (check.unknown) return judgeUnknown(check, rules, mode, baseline);
  const ask = rules.ask.find((rule) => rule.matches(check, "loose"));
  if (ask && mode === "yolo")
    return { verdict: "allow", source: `approval mode yolo (over ${ruleLabel(ask)})` };
  if (ask) return { verdict: "ask", source: ruleLabel(ask), reason: `"${check.label}" matches it` };
  if (check.implied) return { verdict: "allow", source: "" };
  const allow = rules.allow.find((rule) => rule.matches(check, "strict"));
  if (allow) return { verdict: "allow", source: ruleLabel(allow) };
  return fromBaseline(check, mode, baseline);
}

function fromBaseline(check: Check, mode: ApprovalMode, baseline: Baseline): CheckOutcome {
  return {
    verdict: baseline === "allow" ? "allow" : "ask",
    source: `approval mode ${mode}`,
    reason: baseline === "allow" ? undefined : `no allow rule matches "${check.label}" (${check.tool})`,
    byMode: true,
  };
}

function protectedDenial(check: Check): CheckOutcome {
  return {
    verdict: "deny",
    source: `${PROTECTED_SOURCE} (${check.protectedFile})`,
    reason: `"${check.label}" would change ${check.protectedFile}, a file that governs the agent (hooks, settings, agent definitions, or a script a hook runs); the agent may not change it. Ask the user to edit it, or to set "allowAgentConfigEdits": true in ~/.agents/settings.json`,
  };
}

/** The tools whose files a command reads, writes and deletes are judged as. */
const FILE_TOOLS = ["view_file", "write_to_file", "delete_file"];

/**
 * The rule a check known only at run time could slip past: a deny rule with a specifier for its tool,
 * or the protected files for a write that could land on one. A program or script known only when it
 * runs may also read or change any file: a Read or Edit deny rule is one it could slip past too.
 */
function evadableRule(check: Check, rules: RuleSet): { source: string; what: string } | undefined {
  if (check.mayBeProtected) {
    return { source: PROTECTED_SOURCE, what: "a file that governs the agent (hooks, settings)" };
  }
  const runsAnything = check.tool === "run_command";
  const rule = rules.deny.find(
    (candidate) =>
      (candidate.specifier !== undefined && candidate.tools.has(check.tool)) ||
      (runsAnything && FILE_TOOLS.some((tool) => candidate.tools.has(tool))),
  );
  return rule ? { source: ruleLabel(rule), what: `what ${ruleLabel(rule)} forbids` } : undefined;
}

/** A program or path known only when the command runs: asks, and in yolo is denied if it could evade a deny rule. */
function judgeUnknown(check: Check, rules: RuleSet, mode: ApprovalMode, baseline: Baseline): CheckOutcome {
  const evaded = evadableRule(check, rules);
  if (evaded) {
    const reason = `"${check.label}": ${check.unknown}, so it could be ${evaded.what}. ${check.fix ?? "Write it out literally"}`;
    return { verdict: mode === "yolo" ? "deny" : "ask", source: evaded.source, reason };
  }
  const ask = rules.ask.find((rule) => rule.matches(check, "loose"));
  if (ask && mode !== "yolo")
    return { verdict: "ask", source: ruleLabel(ask), reason: `"${check.label}" matches it` };
  // only a rule for every call of the tool (`Bash`) can vouch for what nobody can see yet
  const bare = rules.allow.find((rule) => rule.specifier === undefined && rule.tools.has(check.tool));
  if (bare) return { verdict: "allow", source: ruleLabel(bare) };
  if (baseline === "allow") return { verdict: "allow", source: `approval mode ${mode}` };
  return {
    verdict: "ask",
    source: `approval mode ${mode}`,
    reason: `"${check.label}": ${check.unknown}, so no rule can vouch for it`,
  };
}

/** Inside a script: allowed unless a program known only when it runs could slip past a deny rule. */
function judgeInsideScript(check: Check, rules: RuleSet, mode: ApprovalMode): CheckOutcome {
  const evaded = check.unknown || check.unparseable ? evadableRule(check, rules) : undefined;
  if (!evaded) return { verdict: "allow", source: "" };
  const why = check.unknown ?? "it does not parse as a shell command";
  const reason = `"${check.label}": ${why}, so it could be ${evaded.what}`;
  return { verdict: mode === "yolo" ? "deny" : "ask", source: evaded.source, reason };
}

/** When a task's own command was allowed to run anything, input to it is: deny rules and protected files still hold. */
function carrierSource(carrier: readonly Check[], rules: RuleSet, mode: ApprovalMode): string | undefined {
  const outcomes = carrier.map((check) => judgeCheck(check, rules, mode));
  if (!outcomes.every((outcome) => outcome.verdict === "allow")) return undefined;
  const sources = unique(outcomes.map((outcome) => outcome.source).filter((source) => source !== ""));
  return `the task's own command (${sources.join("; ") || "allowed"})`;
}

function judgeCarried(check: Check, rules: RuleSet, mode: ApprovalMode, source: string): CheckOutcome {
  if (!check.unknown && !check.unparseable) return { verdict: "allow", source };
  const evaded = evadableRule(check, rules);
  if (!evaded) return { verdict: "allow", source };
  const why = check.unknown ?? "it does not parse as a shell command";
  const reason = `"${check.label}": ${why}, so it could be ${evaded.what}`;
  return { verdict: mode === "yolo" ? "deny" : "ask", source: evaded.source, reason };
}

const ORDER = ["deny", "force_ask", "ask", "allow"] as const;

/** The policy's decision on a call: the strictest of its checks, naming the rule or mode that decided. */
export function decideChecks(checks: readonly Check[], rules: RuleSet, mode: ApprovalMode): GateDecision {
  const outcomes = checks.map((check) => judgeCheck(check, rules, mode));
  for (const verdict of ORDER) {
    const hits = outcomes.filter((outcome) => outcome.verdict === verdict);
    const first = hits[0];
    if (!first) continue;
    if (verdict === "allow") {
      const sources = unique(hits.map((hit) => hit.source).filter((source) => source !== ""));
      return { verdict, source: sources.join("; ") || `approval mode ${mode}` };
    }
    const reasons = unique(hits.map((hit) => hit.reason).filter((reason): reason is string => !!reason));
    const decision: GateDecision = { verdict, source: first.source, reason: reasons.join("; ") || undefined };
    if (verdict === "ask" && hits.every((hit) => hit.byMode)) decision.byMode = true;
    return decision;
  }
  return { verdict: "allow", source: `approval mode ${mode}` };
}

/** Without a policy (a library session given no mode and no rules) only the protected files hold. */
export function decideWithoutPolicy(checks: readonly Check[]): GateDecision {
  const hit = checks.find((check) => check.protectedFile);
  if (!hit) return { verdict: "allow", source: "no approval mode (library session without rules)" };
  const denial = protectedDenial(hit);
  return { verdict: "deny", source: denial.source, reason: denial.reason };
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
    const source = coveringSource(check, rules, grants, options);
    if (source === undefined) uncovered.push(check);
    else if (source !== "") sources.push(source);
  }
  return { covered: uncovered.length === 0, source: unique(sources).join("; "), uncovered };
}

/** What covers one check ("" for an implied one, which needs nothing of its own), or undefined. */
function coveringSource(
  check: Check,
  rules: RuleSet,
  grants: readonly Rule[],
  options: { yolo: boolean },
): string | undefined {
  if (check.protectedFile) return undefined;
  if (check.onlyDenials)
    return (check.unknown || check.unparseable) && evadableRule(check, rules) ? undefined : "";
  const opaque = check.unparseable === true || check.unknown !== undefined;
  if (check.carrier && (!opaque || !evadableRule(check, rules))) {
    const carried = coverage(check.carrier, rules, grants, options);
    if (carried.covered) return `the task's own command (${carried.source || "allowed"})`;
  }
  if (opaque) {
    if (check.unparseable || evadableRule(check, rules)) return undefined;
    if (options.yolo) return "approval mode yolo";
    const isBare = (rule: Rule) => rule.specifier === undefined && rule.tools.has(check.tool);
    const grant = grants.find(isBare);
    if (grant) return `grant ${grant.text} (${grant.origin})`;
    const allow = rules.allow.find(isBare);
    return allow ? ruleLabel(allow) : undefined;
  }
  const grant = grants.find((rule) => rule.matches(check, "strict"));
  if (grant) return `grant ${grant.text} (${grant.origin})`;
  const asked = rules.ask.some((rule) => rule.matches(check, "loose"));
  if (options.yolo) return "approval mode yolo";
  if (check.implied && !asked) return "";
  const allow = asked ? undefined : rules.allow.find((rule) => rule.matches(check, "strict"));
  return allow ? ruleLabel(allow) : undefined;
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}
