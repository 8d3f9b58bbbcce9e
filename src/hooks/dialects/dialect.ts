import type { Verdict } from "../../tools/gates.js";
import type { HookSessionFacts, ToolCallFacts, ToolHookEvent } from "../events.js";
import type { MatchNames } from "../matcher.js";

/** What one handler said, in Gantry's terms; failures (timeouts, crashes, odd output) carry `failure`. */
export interface HandlerVerdict {
  verdict?: Verdict;
  reason?: string;
  /** The complete new arguments, in Gantry's names (a rewrite). */
  args?: Record<string, unknown>;
  additionalContext?: string[];
  failure?: string;
  /** A failure that silently disables a guard (exit 127): reported every time, loudly. */
  loud?: boolean;
}

/**
 * One harness's hook contract (STYLE rule 9: dialects only translate). Each turns Gantry's event into
 * the JSON its scripts expect, and the JSON they print back into a verdict.
 */
export interface HookDialect {
  id: "native" | "claude" | "gemini";
  /** Exit code 2 blocks, with stderr as the reason (Claude Code, Gemini CLI). */
  exitTwoBlocks: boolean;
  /** Non-JSON stdout on exit 0 is a failure (logged) rather than "no opinion". */
  plainTextIsFailure: boolean;
  matchNames(call: ToolCallFacts): MatchNames;
  /** The JSON written to a command's stdin or POSTed to a URL. */
  encode(event: ToolHookEvent, session: HookSessionFacts): Record<string, unknown>;
  /** Reads the JSON a handler printed; `event.call.args` are the arguments as rewritten so far. */
  decode(output: Record<string, unknown>, event: ToolHookEvent, session: HookSessionFacts): HandlerVerdict;
  /** What exit code 2's stderr means for this event (a deny before, context for the model after). */
  blockedBy(stderr: string, event: ToolHookEvent): HandlerVerdict;
}

export function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
