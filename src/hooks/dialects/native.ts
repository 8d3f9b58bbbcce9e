import { VERDICTS_BY_STRICTNESS, type Verdict } from "../../tools/gates.js";
import type { HandlerVerdict, HookDialect } from "./dialect.js";
import { stringOrUndefined } from "./dialect.js";

/**
 * Gantry's own contract (seed 002): `{ tool_call: { name, args }, environment_id }` in, `{ decision,
 * reason }` out. Additions: `hook_event_name`, `agent_id` (subagent calls are hooked too) and, after a
 * failed call, `error`. Exit codes other than 0 are failures (fail-open unless the group is failClosed).
 */
export const nativeDialect: HookDialect = {
  id: "native",
  exitTwoBlocks: false,
  plainTextIsFailure: true,
  matchNames: (call) => ({ gantryNames: [call.name, ...call.aliases] }),
  encode(event, session) {
    const payload: Record<string, unknown> = {
      hook_event_name: event.kind,
      tool_call: { name: event.call.name, args: event.call.args },
      environment_id: session.environmentId,
      agent_id: event.call.agentId,
    };
    if (event.kind === "post_tool_execution" && event.result.error) payload.error = event.result.text;
    return payload;
  },
  decode(output) {
    const verdict: HandlerVerdict = {};
    const context = stringOrUndefined(output.additionalContext);
    if (context) verdict.additionalContext = [context];
    if (output.decision === undefined) return verdict;
    if (!VERDICTS_BY_STRICTNESS.includes(output.decision as Verdict)) {
      return { failure: `unrecognised decision ${JSON.stringify(output.decision)}` };
    }
    return { ...verdict, verdict: output.decision as Verdict, reason: stringOrUndefined(output.reason) };
  },
  blockedBy: () => ({}),
};
