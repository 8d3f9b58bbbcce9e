import { VERDICTS_BY_STRICTNESS, type Verdict } from "../../tools/gates.js";
import type { HookEvent, HookSessionFacts, ModelToolFacts } from "../events.js";
import {
  commonFields,
  type HandlerVerdict,
  type HookDialect,
  lifecycleFields,
  stringOrUndefined,
  textOfLlmResponse,
  unrecognisedOutput,
  withContext,
} from "./dialect.js";
import { argsToDialect } from "./tool-map.js";
import { toolSelectionOf } from "./tool-selection.js";
import { GEMINI_TOOLS, NATIVE_CONTAINER_FIELDS, QWEN_TOOLS } from "./tool-tables.js";

/** Lifecycle events a native hook may block with `{"decision": "deny" | "block", "reason"}`. */
const BLOCKABLE = new Set<HookEvent["kind"]>([
  "user_prompt_submit",
  "stop",
  "subagent_stop",
  "pre_compact",
  "before_model",
  "after_model",
]);

/**
 * Gantry's own contract (seed 002): `{ tool_call: { name, args }, environment_id }` in, `{ decision,
 * reason }` out. The args carry Gantry's names and, beside them, seed 002's container shapes (`path`,
 * `content`, `code`, `language`). Additions: `hook_event_name`, `agent_id` (subagent calls are hooked
 * too), `session_id`, after a failed call `error`, and the lifecycle events with their own fields.
 * Exit codes other than 0 are failures (fail-open unless the group is failClosed).
 */
export const nativeDialect: HookDialect = {
  id: "native",
  exitTwoBlocks: false,
  matchNames: (call) => ({ gantryNames: [call.name, ...call.aliases] }),
  accepts: (rule, event) =>
    rule.only === undefined ||
    event.kind !== "post_tool_execution" ||
    rule.only === (event.result.error ? "failure" : "success"),
  encode(event, session) {
    const payload: Record<string, unknown> = {
      hook_event_name: event.kind,
      ...eventFields(event, session),
      environment_id: session.environmentId,
      agent_id: "call" in event ? event.call.agentId : event.agentId,
      // seed 002's tool events stay as the seed shapes them; lifecycle events say which session
      ...("call" in event ? {} : { session_id: session.sessionId }),
    };
    if (event.kind === "post_tool_execution" && event.result.error) payload.error = event.result.text;
    return payload;
  },
  decode(output, event) {
    const common = commonFields(output, stringOrUndefined(output.reason));
    const verdict: HandlerVerdict = withContext(common, [stringOrUndefined(output.additionalContext)]);
    if (event.kind === "pre_tool_execution" && common.stop)
      return { ...verdict, verdict: "deny", reason: common.stop };
    if (event.kind === "before_tool_selection")
      return { ...verdict, ...toolSelectionOf(output.toolConfig, event.request.tools, otherHarnessNames) };
    if (output.decision === undefined) return withResponse(verdict, output, event);
    if (event.kind === "pre_tool_execution") {
      if (!VERDICTS_BY_STRICTNESS.includes(output.decision as Verdict))
        return { failure: `unrecognised decision ${JSON.stringify(output.decision)}` };
      return { ...verdict, verdict: output.decision as Verdict, reason: stringOrUndefined(output.reason) };
    }
    if (event.kind === "permission_request") {
      if (output.decision !== "allow" && output.decision !== "deny") return verdict;
      const message = stringOrUndefined(output.reason);
      return { ...verdict, permission: { behavior: output.decision, ...(message ? { message } : {}) } };
    }
    const blocks = output.decision === "deny" || output.decision === "block";
    if (blocks && BLOCKABLE.has(event.kind))
      return { ...verdict, block: stringOrUndefined(output.reason) ?? "blocked by a hook" };
    // seed 002: decisions after a call (and on events that cannot be blocked) are ignored
    return withResponse(verdict, output, event);
  },
  blockedBy: () => ({}),
  plainText: unrecognisedOutput,
};

function withResponse(
  verdict: HandlerVerdict,
  output: Record<string, unknown>,
  event: HookEvent,
): HandlerVerdict {
  if (event.kind !== "before_model" && event.kind !== "after_model") return verdict;
  const response = textOfLlmResponse(output.llm_response);
  return response === undefined ? verdict : { ...verdict, response };
}

function eventFields(event: HookEvent, session: HookSessionFacts): Record<string, unknown> {
  switch (event.kind) {
    case "pre_tool_execution":
    case "post_tool_execution":
    case "permission_request": {
      const { call } = event;
      const container = argsToDialect(
        NATIVE_CONTAINER_FIELDS[call.name] ?? { name: call.name, fields: [] },
        call.args,
        session.workspaceRoot,
      );
      return { tool_call: { name: call.name, args: { ...call.args, ...container } } };
    }
    default:
      return lifecycleFields(event);
  }
}

/** A native hook may name a tool as Gemini CLI or Qwen Code do, too (`read_file`, `glob`, `Shell`). */
function otherHarnessNames(tool: ModelToolFacts): string[] {
  const names = [tool.name];
  const gemini = GEMINI_TOOLS[tool.name];
  const qwen = QWEN_TOOLS[tool.name];
  if (gemini) names.push(gemini.name, ...(gemini.aliases ?? []));
  if (qwen) names.push(qwen.name, ...(qwen.aliases ?? []));
  return names;
}
