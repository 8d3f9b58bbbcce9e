import type { AnyTool, ToolResult } from "./contract.js";

/** The decisions of seed 000 and SPEC §4, from most to least strict. */
export const VERDICTS_BY_STRICTNESS = [
  "deny",
  "deny_unless_prior_grant",
  "force_ask",
  "ask",
  "allow",
] as const;
export type Verdict = (typeof VERDICTS_BY_STRICTNESS)[number];

export interface GateDecision {
  verdict: Verdict;
  reason?: string;
  /** Who decided, named for the user and the model: `rule deny Bash(curl:*)`, `hook security-gate`, `approval mode plan`. */
  source: string;
  /** An ask that only the approval mode raises (no ask rule): a hook's explicit allow answers it. */
  byMode?: boolean;
}

/** A call that passed lookup and validation. */
export interface PreparedCall {
  callId: string;
  agentId: string;
  /** The name the caller used (maybe an alias). */
  requestedName: string;
  tool: AnyTool;
  args: Record<string, unknown>;
}

export interface PolicyStep {
  decide(call: PreparedCall, signal: AbortSignal): Promise<GateDecision>;
}

/** What a call's hooks said for the user (`systemMessage`) and whether one ended the agent's run. */
export interface HookCallNotes {
  /** `hook <name>: <text>` lines shown to the user, never to the model. */
  messages: string[];
  /** `continue: false`: the agent's run ends once this call's turn is answered. */
  stop?: { source: string; reason: string };
}

export interface PreHookOutcome {
  decision: GateDecision;
  /**
   * A hook explicitly allowed the call: the approval mode's own question is skipped. Deny and ask rules,
   * the workspace guard and trust still apply.
   */
  hookAllowed?: boolean;
  notes?: HookCallNotes;
  /** Arguments after hook rewrites (applied in declaration order); the pipeline validates them again. */
  args: Record<string, unknown>;
  /** Text hooks add for the model. */
  additionalContext: string[];
  /** Hook failures (fail-open or fail-closed), one line each, named after the hook; kept in metadata.hookWarnings. */
  warnings?: string[];
}

export interface PostHookOutcome {
  additionalContext: string[];
  warnings?: string[];
  notes?: HookCallNotes;
  /** Gemini CLI's AfterTool deny: the model sees this reason instead of the result. */
  replaced?: { source: string; reason: string };
  /** Claude Code's PostToolUse `updatedToolOutput`: the text the model reads instead of the result's. */
  output?: { source: string; text: string };
  /** Gemini CLI's AfterTool `tailToolCallRequest`: this call runs next (through the pipeline) and its result is the model's. */
  tail?: { source: string; name: string; args: Record<string, unknown> };
}

export interface HookStep {
  before(call: PreparedCall, signal: AbortSignal): Promise<PreHookOutcome>;
  after(call: PreparedCall, result: ToolResult, signal: AbortSignal): Promise<PostHookOutcome>;
}

export interface ConsentOutcome {
  allowed: boolean;
  /** Why not, for the model: names the rule, hook or flag that decided and what would allow it. */
  reason?: string;
  source: string;
  /** The refusal also ends the agent's run (a PermissionRequest hook's `interrupt`). */
  interrupt?: boolean;
  /** Allowed with these arguments instead (a PermissionRequest hook's `updatedInput`): judged again. */
  args?: Record<string, unknown>;
  /** Lines for the result's hook warnings (a hook's rule that did not compile). */
  warnings?: string[];
}

/**
 * A call's place in the consent queue, taken as the call arrives: questions reach the user in the order
 * the calls came, not in the order their hooks happened to finish.
 */
export interface ConsentTurn {
  /** Settles once every call that arrived earlier has been answered or has left the pipeline. */
  readonly ready: Promise<void>;
  /** Lets the calls behind this one go on; called once the call needs consent no longer. */
  release(): void;
}

/** Turns ask / force_ask / deny_unless_prior_grant into allow or deny, through grants and the asker. */
export interface ConsentStep {
  /** Reserves a turn for a call that has just arrived (synchronously, so arrival order is kept). */
  enter?(): ConsentTurn;
  resolve(
    call: PreparedCall,
    decision: GateDecision,
    signal: AbortSignal,
    turn?: ConsentTurn,
  ): Promise<ConsentOutcome>;
}

/** Turns that open one after another, in the order they were taken. */
export function createTurnQueue(): { enter(): ConsentTurn } {
  let tail: Promise<void> = Promise.resolve();
  return {
    enter() {
      const ready = tail;
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      tail = ready.then(() => released);
      return { ready, release };
    },
  };
}

export function strictest(decisions: GateDecision[]): GateDecision {
  let winner: GateDecision = { verdict: "allow", source: "default" };
  for (const decision of decisions) {
    if (VERDICTS_BY_STRICTNESS.indexOf(decision.verdict) < VERDICTS_BY_STRICTNESS.indexOf(winner.verdict)) {
      winner = decision;
    }
  }
  return winner;
}

export const allowAllPolicy: PolicyStep = {
  decide: async () => ({ verdict: "allow", source: "no policy" }),
};

export const noHooks: HookStep = {
  before: async (call) => ({
    decision: { verdict: "allow", source: "no hooks" },
    args: call.args,
    additionalContext: [],
  }),
  after: async () => ({ additionalContext: [] }),
};

/** Until a user can be asked, only an explicit allow passes. */
export const denyUnanswerableConsent: ConsentStep = {
  resolve: async (_call, decision) =>
    decision.verdict === "allow"
      ? { allowed: true, source: decision.source }
      : {
          allowed: false,
          source: decision.source,
          reason: decision.reason ?? `${decision.source} asked for approval and nobody can answer here`,
        },
};
