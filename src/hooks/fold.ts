import { describeFailure, failClosedFor, type HookNotes, noteFor } from "./decide.js";
import type { HandlerVerdict, PermissionVerdict } from "./dialects/dialect.js";
import type { LlmRequestEdit } from "./llm-request.js";
import type { PlannedHandler } from "./plan.js";

/** What the hooks of one lifecycle event said, folded (first block, first stop, all context, in order). */
export interface EventOutcome extends HookNotes {
  /** Gemini's AfterAgent `clearContext` (any hook's): the conversation is dropped with the block or stop. */
  clearContext?: boolean;
  /** The first block: the prompt refused, the agent sent on, the compaction or model turn stopped. */
  block?: { source: string; reason: string };
  context: string[];
  /** permission_request: a deny anywhere wins over an allow. */
  permission?: PermissionVerdict & { source: string };
  /** before_model: Gemini's `llm_request` (the last hook's, as Gemini merges them). */
  request?: LlmRequestEdit;
  /** before_model / after_model: the first hook's reply text. */
  response?: string;
  /** before_tool_selection: NONE wins; allowed names (Gantry's) are the union of every hook's. */
  toolConfig?: { none: boolean; allowed?: string[] };
  /** Failures, one line each, named after the hook (logged). */
  warnings: string[];
}

export function emptyOutcome(): EventOutcome {
  return { messages: [], context: [], warnings: [] };
}

/** Folds one handler's verdict into the event's outcome; handlers fold in declaration order. */
export function foldVerdict(outcome: EventOutcome, planned: PlannedHandler, verdict: HandlerVerdict): void {
  const source = `hook ${planned.label}`;
  if (verdict.failure !== undefined) {
    const closed = failClosedFor(planned);
    const report = { source, failure: verdict.failure, loud: verdict.loud === true, closed: false };
    outcome.warnings.push(describeFailure(report, "event"));
    // a strict gate on a permission question answers no rather than nothing
    if (closed && planned.rule.event === "permission_request" && outcome.permission?.behavior !== "deny")
      outcome.permission = { behavior: "deny", source, message: `the hook failed: ${verdict.failure}` };
    return;
  }
  noteFor(outcome, source, verdict);
  outcome.context.push(...(verdict.additionalContext ?? []));
  if (verdict.block !== undefined && !outcome.block) outcome.block = { source, reason: verdict.block };
  if (verdict.clearContext) outcome.clearContext = true;
  if (verdict.request) outcome.request = verdict.request;
  if (verdict.permission && outcome.permission?.behavior !== "deny")
    outcome.permission = { ...verdict.permission, source };
  for (const ignored of verdict.permission?.ignored ?? []) outcome.warnings.push(`${source}: ${ignored}`);
  for (const notice of verdict.notices ?? []) outcome.warnings.push(`${source}: ${notice}`);
  if (verdict.response !== undefined && outcome.response === undefined) outcome.response = verdict.response;
  if (verdict.toolConfig) foldToolConfig(outcome, verdict.toolConfig);
}

function foldToolConfig(outcome: EventOutcome, config: NonNullable<HandlerVerdict["toolConfig"]>): void {
  const current = outcome.toolConfig ?? { none: false };
  if (config.mode === "NONE") current.none = true;
  if (config.allowed) current.allowed = [...new Set([...(current.allowed ?? []), ...config.allowed])];
  outcome.toolConfig = current;
}
