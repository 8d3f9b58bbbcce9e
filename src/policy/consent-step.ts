import path from "node:path";
import {
  type ConsentOutcome,
  type ConsentStep,
  createTurnQueue,
  type GateDecision,
  type PreparedCall,
} from "../tools/gates.js";
import { persistAllowRules } from "./always-answers.js";
import type { PermissionAnswer } from "./asker.js";
import { checksForCall } from "./checks.js";
import { coverage, decideChecks } from "./evaluate.js";
import { grantRuleFor } from "./grants.js";
import { modeThatAllows } from "./modes.js";
import type { SessionPermissions } from "./permissions.js";
import { editPreview } from "./preview.js";
import type { Check } from "./rules.js";

/**
 * Turns ask / force_ask / deny_unless_prior_grant into allow or deny (SPEC §4–5): `ask` passes on a
 * grant or an allow rule (or yolo), else asks; `force_ask` always asks; `deny_unless_prior_grant`
 * never asks, it passes only on a grant or an allow rule.
 */
export function createConsentStep(permissions: SessionPermissions): ConsentStep {
  // Parallel calls (read-only ones run together) take turns here, in the order they arrived at the
  // pipeline: one question on screen at a time, and an answer "for this session" to the first covers the
  // ones waiting behind it.
  const queue = createTurnQueue();
  return {
    enter: () => queue.enter(),
    async resolve(call, decision, signal, turn): Promise<ConsentOutcome> {
      if (decision.verdict === "allow") return { allowed: true, source: decision.source };
      if (decision.verdict === "deny")
        return { allowed: false, source: decision.source, reason: decision.reason };
      const own = turn ?? queue.enter();
      try {
        await own.ready;
        return await resolveInTurn(permissions, call, decision, signal);
      } finally {
        own.release();
      }
    },
  };
}

async function resolveInTurn(
  permissions: SessionPermissions,
  call: PreparedCall,
  decision: GateDecision,
  signal: AbortSignal,
): Promise<ConsentOutcome> {
  const checks = await checksForCall(call, permissions.checkContext());
  const rules = permissions.rules();
  // hooks may have rewritten the arguments: a deny rule still holds for what will really run
  const mode = permissions.modeFor(call.agentId);
  if (mode) {
    const again = decideChecks(checks, rules, mode);
    if (again.verdict === "deny") return { allowed: false, source: again.source, reason: again.reason };
  }
  let uncovered: Check[] = checks;
  if (decision.verdict !== "force_ask") {
    const yolo = mode === "yolo" && decision.verdict === "ask";
    const covered = coverage(checks, rules, permissions.grants.rules(), { yolo });
    if (covered.covered) return { allowed: true, source: covered.source };
    uncovered = covered.uncovered;
    if (decision.verdict === "deny_unless_prior_grant") {
      return {
        allowed: false,
        source: decision.source,
        reason: noPriorGrant(decision, uncovered, permissions),
      };
    }
  }
  return askUser(call, decision, uncovered, permissions, signal);
}

async function askUser(
  call: PreparedCall,
  decision: GateDecision,
  uncovered: Check[],
  permissions: SessionPermissions,
  signal: AbortSignal,
): Promise<ConsentOutcome> {
  const root = permissions.workspace.root;
  const forced = decision.verdict === "force_ask";
  const grantRules = uncovered.map((check) => grantRuleFor(check, root));
  const recordable = grantRules.every((rule) => rule !== undefined);
  const name = call.tool.spec.name;
  // SPEC §6: subagents never ask the user; the denial tells them what to report to their parent
  if (call.agentId !== "main") {
    return {
      allowed: false,
      source: decision.source,
      reason: headlessReason(decision, uncovered, grantRules, permissions, "subagent"),
    };
  }
  let answer: PermissionAnswer;
  try {
    answer = await permissions.asker.askPermission(
      {
        tool: name,
        callId: call.callId,
        args: call.args,
        // one line per thing asked about: a path judged in two folders (the task's and its shell's) is one subject
        subjects: [...new Set(uncovered.map((check) => check.label))],
        decision,
        forced,
        preview: await editPreview(name, call.args, permissions.workspace),
        grantRules: recordable ? (grantRules as string[]) : [],
      },
      signal,
    );
  } catch (cause) {
    if (signal.aborted) return { allowed: false, source: "user", reason: "the question was aborted" };
    throw cause;
  }
  // a PermissionRequest hook answered for the user: it decides, and is named as the one who did
  if (answer.answeredBy !== undefined) {
    if (answer.choice !== "deny") return hookAllowed(permissions, answer, answer.answeredBy);
    return {
      allowed: false,
      source: answer.answeredBy,
      reason: answer.message ?? "denied",
      ...(answer.interrupt ? { interrupt: true } : {}),
    };
  }
  if (answer.choice === "deny") {
    const reason =
      permissions.asker.kind === "headless" || answer.unanswerable
        ? headlessReason(decision, uncovered, grantRules, permissions, answer.unanswerable ?? "headless")
        : `the user said no${answer.message ? `: ${answer.message}` : ""}`;
    return { allowed: false, source: decision.source, reason };
  }
  if (answer.choice === "once" || forced || !recordable) return { allowed: true, source: "user (yes, once)" };
  const texts = grantRules as string[];
  const source = answer.choice === "always" ? "answer: always" : "answer: always for this session";
  for (const text of texts) permissions.grants.add(text, source);
  if (answer.choice === "session") return { allowed: true, source: `user (${source})` };
  try {
    const { home, root: folder, shown } = permissions.alwaysAnswers;
    await persistAllowRules(home, folder, texts);
    return { allowed: true, source: `user (always, saved to ${shown})` };
  } catch (cause) {
    return { allowed: true, source: `user (always; not saved: ${(cause as Error).message})` };
  }
}

/** Says which flag or rule would have let the call run, for a run where nobody can answer. */
function headlessReason(
  decision: GateDecision,
  uncovered: Check[],
  grantRules: (string | undefined)[],
  permissions: SessionPermissions,
  /** `headless`, `subagent`, or why else nobody can answer (`The MCP client cannot …`). */
  who: string,
): string {
  const why = decision.reason ? `${decision.reason}. ` : "";
  const nobody =
    who === "subagent"
      ? "A subagent cannot ask the user: report to your parent agent that this needs approval"
      : who === "headless"
        ? "Nobody can answer a permission question here (not an interactive terminal)"
        : who;
  const prefix = `${why}${nobody}`;
  if (decision.verdict === "force_ask") {
    return `${prefix}, and ${decision.source} wants a person to confirm every time: run it in an interactive terminal.`;
  }
  const askRule = /^rule ask (.*) \((.*)\)$/.exec(decision.source);
  if (askRule) {
    return `${prefix}: run with --approval-mode yolo, or remove "${askRule[1]}" from permissions.ask in ${askRule[2]}.`;
  }
  const rules = [...new Set(grantRules.filter((rule): rule is string => rule !== undefined))];
  const flag = decision.source.startsWith("approval mode")
    ? strongestMode(uncovered, permissions.mode === "auto-edit")
    : "yolo";
  const ruleHint =
    rules.length > 0
      ? ` or add ${rules.map((rule) => JSON.stringify(rule)).join(", ")} to permissions.allow in ~/.agents/settings.json`
      : "";
  return `${prefix}: run with --approval-mode ${flag}${ruleHint}.`;
}

function strongestMode(uncovered: Check[], alreadyAutoEdit: boolean): string {
  const modes = uncovered.map((check) => modeThatAllows(check.safety));
  return modes.includes("yolo") || alreadyAutoEdit ? "yolo" : "auto-edit";
}

function noPriorGrant(decision: GateDecision, uncovered: Check[], permissions: SessionPermissions): string {
  const root = permissions.workspace.root;
  const rules = uncovered.map((check) => grantRuleFor(check, root)).filter((rule): rule is string => !!rule);
  const what = uncovered.map((check) => `"${check.label}"`).join(", ");
  const hint =
    rules.length > 0
      ? ` Add ${rules.map((rule) => JSON.stringify(rule)).join(", ")} to permissions.allow in ~/.agents/settings.json, or ask the user with ask_permission first.`
      : "";
  return `${decision.reason ? `${decision.reason}. ` : ""}No earlier grant or allow rule covers ${what}.${hint}`;
}

/**
 * A PermissionRequest hook's allow: the session allow rules it gave are granted (a workspace's hook runs
 * only in a folder you trust, so trust stands behind them), and changed input goes back to the pipeline,
 * which judges it again.
 */
function hookAllowed(
  permissions: SessionPermissions,
  answer: PermissionAnswer,
  source: string,
): ConsentOutcome {
  const warnings: string[] = [];
  for (const rule of answer.sessionRules ?? []) {
    const added = permissions.grants.add(rule, `${source} (updatedPermissions, this session)`);
    if (!added.ok) warnings.push(`${source}: updatedPermissions rule ${rule} not added: ${added.error}`);
  }
  return {
    allowed: true,
    source,
    ...(answer.args ? { args: answer.args } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}
