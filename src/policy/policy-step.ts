import type { GateDecision, PolicyStep, PreparedCall } from "../tools/gates.js";
import { checksForCall } from "./checks.js";
import { decideChecks, decideWithoutPolicy } from "./evaluate.js";
import type { SessionPermissions } from "./permissions.js";

/**
 * The pipeline's policy step: rules in, a decision out, the deciding rule or mode named in `source`
 * (STYLE rule 8). Grants are the consent step's business: the policy only reads rules and the mode.
 */
export function createPolicyStep(permissions: SessionPermissions): PolicyStep {
  return {
    async decide(call: PreparedCall): Promise<GateDecision> {
      const checks = await checksForCall(call, permissions.checkContext());
      // a subagent's own permissionMode may narrow the session's
      const mode = permissions.modeFor(call.agentId);
      if (!mode) return decideWithoutPolicy(checks);
      return decideChecks(checks, permissions.rules(), mode);
    },
  };
}
