import { showControls } from "../tools/exec/ansi.js";
import { type GateDecision, strictest } from "../tools/gates.js";
import type { HandlerVerdict, HookDialect } from "./dialects/dialect.js";
import type { HookEvent, HookSessionFacts } from "./events.js";
import type { PlannedHandler } from "./plan.js";
import type { CommandHookExit } from "./run-command.js";

/** A command's exit → a verdict, by the dialect's exit-code rules. */
export function interpretExit(
  dialect: HookDialect,
  event: HookEvent,
  session: HookSessionFacts,
  exit: CommandHookExit,
): HandlerVerdict {
  const stderr = exit.stderr.trim();
  const own = exit.stdoutOverflow ? undefined : dialect.failedExit?.(exit, event, session);
  if (own) return own;
  if (exit.exitCode === 2 && dialect.exitTwoBlocks) return dialect.blockedBy(exit.stderr, event);
  if (exit.exitCode === 127 || exit.exitCode === 126) {
    const what = exit.exitCode === 127 ? "command not found" : "command not executable";
    return {
      failure: `${what} (exit ${exit.exitCode})${stderr ? `: ${stderr}` : ""}`,
      loud: true,
    };
  }
  if (exit.exitCode !== 0) {
    const how = exit.exitCode === null ? `killed by ${exit.exitSignal}` : `exited with ${exit.exitCode}`;
    return { failure: `${how}${stderr ? `: ${stderr.split("\n", 1)[0]}` : ""}` };
  }
  if (exit.stdoutOverflow) return { failure: "stdout over the size limit; output ignored" };
  return interpretBody(dialect, event, session, exit.stdout);
}

/** Stdout of a hook that exited 0, or the body of a 2xx HTTP response → a verdict. */
export function interpretBody(
  dialect: HookDialect,
  event: HookEvent,
  session: HookSessionFacts,
  text: string,
): HandlerVerdict {
  const trimmed = text.trim();
  if (trimmed === "") return {};
  if (!trimmed.startsWith("{")) return dialect.plainText(trimmed, event);
  let output: unknown;
  try {
    output = JSON.parse(trimmed);
  } catch {
    return { failure: `unrecognised output (not JSON): ${preview(trimmed)}` };
  }
  if (typeof output !== "object" || output === null || Array.isArray(output))
    return { failure: `unrecognised output (not a JSON object): ${preview(trimmed)}` };
  return dialect.decode(output as Record<string, unknown>, event, session);
}

/** Marks the log line of a hook that cannot run at all (exit 127/126): it silently disables a guard. */
export const BROKEN_HOOK_PREFIX = "HOOK BROKEN: ";

interface HookFailure {
  source: string;
  failure: string;
  loud: boolean;
  /** failClosed before the call: this failure denies it. */
  closed: boolean;
}

/** What a hook said that is for the user (`systemMessage`, a stop's reason) or for the transcript. */
export interface HookNotes {
  /** `hook <name>: <text>` lines the user sees (stderr, metadata.hookMessages). */
  messages: string[];
  /** The first `continue: false`: the run ends after this call. */
  stop?: { source: string; reason: string };
}

export function failClosedFor(planned: PlannedHandler): boolean {
  return planned.group.failClosed || planned.handler.failClosed === true;
}

/**
 * Folds the verdicts of a tool event's handlers in declaration order: the strictest decision wins (the
 * first of equals, so the first deny's reason is the one the model reads), rewrites apply in order (a
 * later one sees the earlier ones' arguments), and a failure allows unless the group is failClosed.
 * Every handler is folded, even after a deny: audit hooks see every call.
 */
export function createVerdictAggregate(args: Record<string, unknown>, phase: "before" | "after") {
  const decisions: GateDecision[] = [];
  const additionalContext: string[] = [];
  // notes and failures, in order; a failure's wording waits for the final decision
  const reports: (string | HookFailure)[] = [];
  const notes: HookNotes = { messages: [] };
  let replaced: { source: string; reason: string } | undefined;
  let tail: { source: string; name: string; args: Record<string, unknown> } | undefined;
  let output: { source: string; text: string } | undefined;
  let current = args;
  return {
    get args() {
      return current;
    },
    add(planned: PlannedHandler, verdict: HandlerVerdict) {
      const source = `hook ${planned.label}`;
      if (verdict.failure !== undefined) {
        // After the call nothing can be undone, so failClosed has nothing to deny.
        const closed = failClosedFor(planned) && phase === "before";
        reports.push({ source, failure: verdict.failure, loud: verdict.loud === true, closed });
        if (closed)
          decisions.push({ verdict: "deny", source, reason: `the hook failed: ${verdict.failure}` });
        return;
      }
      noteFor(notes, source, verdict);
      for (const notice of verdict.notices ?? []) reports.push(`${source}: ${notice}`);
      additionalContext.push(...(verdict.additionalContext ?? []));
      if (phase === "after") {
        // seed 002: decisions after the call are ignored; Gemini CLI's AfterTool deny hides the result
        if (verdict.block !== undefined && !replaced) replaced = { source, reason: verdict.block };
        // Claude's updatedToolOutput: the first hook's replacement is the text the model reads
        if (verdict.output !== undefined && !output) output = { source, text: verdict.output };
        // Gemini merges its hooks' outputs field by field: the last tail call asked for is the one
        if (verdict.tail) tail = { source, ...verdict.tail };
        return;
      }
      if (verdict.verdict) decisions.push({ verdict: verdict.verdict, source, reason: verdict.reason });
      if (verdict.args) current = verdict.args;
    },
    warn(message: string) {
      reports.push(message);
    },
    result() {
      const decision = firstStrictest(decisions) ?? { verdict: "allow" as const, source: "hooks" };
      const warnings = reports.map((report) =>
        typeof report === "string" ? report : describeFailure(report, phase, decision),
      );
      const hookAllowed = decision.verdict === "allow" && decisions.length > 0;
      const tailCall = replaced || notes.stop ? undefined : tail;
      return {
        decision,
        hookAllowed,
        args: current,
        additionalContext,
        warnings,
        notes,
        replaced,
        output: replaced ? undefined : output,
        tail: tailCall,
      };
    },
  };
}

/** Records a verdict's user-facing parts: its systemMessage, and the first stop. */
export function noteFor(notes: HookNotes, source: string, verdict: HandlerVerdict): void {
  // shown to the user (stderr, the terminal UI): escapes as text, never acted on
  if (verdict.systemMessage) notes.messages.push(`${source}: ${showControls(verdict.systemMessage)}`);
  if (verdict.stop !== undefined && !notes.stop) notes.stop = { source, reason: showControls(verdict.stop) };
}

/** The first decision with the strictest verdict, so an allow still names the hook that gave it. */
function firstStrictest(decisions: GateDecision[]): GateDecision | undefined {
  if (decisions.length === 0) return undefined;
  const { verdict } = strictest(decisions);
  return decisions.find((decision) => decision.verdict === verdict);
}

export function describeFailure(
  report: HookFailure,
  phase: "before" | "after" | "event",
  decision?: GateDecision,
): string {
  const outcome =
    phase === "after"
      ? "the call already ran"
      : report.closed
        ? "failClosed: the call is denied"
        : decision?.verdict === "deny"
          ? `fail-open; the call is denied anyway by ${decision.source}`
          : report.loud
            ? "fail-open: allowed, so this hook is NOT guarding anything"
            : phase === "event"
              ? "fail-open: ignored"
              : "fail-open: allowed";
  return `${report.loud ? BROKEN_HOOK_PREFIX : ""}${report.source}: ${report.failure} (${outcome})`;
}

function preview(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
