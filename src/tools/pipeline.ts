import { randomUuid } from "../session/random-ids.js";
import type { ToolResult } from "./contract.js";
import { errorResult } from "./contract.js";
import {
  allowAllPolicy,
  type ConsentStep,
  type ConsentTurn,
  denyUnanswerableConsent,
  type HookCallNotes,
  type HookStep,
  noHooks,
  type PolicyStep,
  type PreHookOutcome,
  type PreparedCall,
  strictest,
} from "./gates.js";
import type { ToolRegistry } from "./registry.js";
import { truncateText, truncationNotice } from "./truncate.js";
import {
  describeValidationError,
  oversizedArgumentBytes,
  oversizedArgumentsMessage,
  parseArgsObject,
} from "./validation.js";

export interface ToolCallRequest {
  name: string;
  /** An object, or a JSON string as providers send it. */
  args: unknown;
  callId?: string;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** "main" unless a subagent makes the call. */
  agentId?: string;
  onUpdate?: (partial: string) => void;
  /** Called once the call has passed the policy, the hooks and consent; the call runs when it settles. */
  onStart?: () => void | Promise<void>;
  /** Narrows the tools this caller may use (a subagent's tool list); others fail before anything runs. */
  allowTool?: (canonicalName: string) => boolean;
}

export interface PipelineDeps {
  registry: ToolRegistry;
  maxOutputChars: number;
  policy?: PolicyStep;
  hooks?: HookStep;
  consent?: ConsentStep;
}

export interface ToolPipeline {
  readonly registry: ToolRegistry;
  run(request: ToolCallRequest, options?: RunOptions): Promise<ToolResult>;
}

/**
 * The one way a tool runs (SPEC §1): lookup → validation → policy → pre-hooks → consent →
 * execute → output limit → post-hooks. Read `run` top to bottom to follow a call; `admit` holds steps 3–5.
 */
export function createToolPipeline(deps: PipelineDeps): ToolPipeline {
  const policy = deps.policy ?? allowAllPolicy;
  const hooks = deps.hooks ?? noHooks;
  const consent = deps.consent ?? denyUnanswerableConsent;

  function run(request: ToolCallRequest, options: RunOptions = {}): Promise<ToolResult> {
    return runCall(request, options, 0);
  }

  async function runCall(request: ToolCallRequest, options: RunOptions, tails: number): Promise<ToolResult> {
    const signal = options.signal ?? new AbortController().signal;
    const callId = request.callId ?? randomUuid();
    const agentId = options.agentId ?? "main";

    // 1. lookup
    const tool = deps.registry.lookup(request.name);
    if (!tool) {
      const closest = deps.registry.closestNames(request.name);
      return errorResult(
        "unknown_tool",
        `Unknown tool "${request.name}". Closest tools: ${closest.join(", ")}.`,
      );
    }
    const name = tool.spec.name;
    if (!deps.registry.isEnabled(name)) return errorResult("disabled_tool", `Tool "${name}" is disabled.`);
    if (options.allowTool && !options.allowTool(name)) {
      return errorResult("denied", `Tool "${name}" is not in this agent's tool list.`);
    }
    if (tool.spec.audience === "subagents" && agentId === "main") {
      return errorResult(
        "denied",
        `Tool "${name}" is for subagents only: start a subagent that names it (agent with fork_tools, or a type whose tools list it).`,
      );
    }

    // 2. validation
    const oversized = oversizedArgumentBytes(request.args);
    if (oversized !== undefined)
      return errorResult(
        "too_large",
        oversizedArgumentsMessage(`This ${name} call's arguments are ${oversized} bytes`),
        {
          argumentBytes: oversized,
        },
      );
    const parsedJson = parseArgsObject(request.args);
    if (!parsedJson.ok)
      return errorResult("invalid_arguments", `Invalid arguments for ${name}: ${parsedJson.message}`);
    const validated = validate(tool.spec.parameters, name, parsedJson.value);
    if (!validated.ok) return validated.result;
    const prepared: PreparedCall = {
      callId,
      agentId,
      requestedName: request.name,
      tool,
      args: validated.args,
    };

    // steps 3–5 hold a place in the consent queue, taken now, while calls are still in arrival order
    const turn = consent.enter?.();
    let admitted: Admitted;
    try {
      admitted = await admit(prepared, signal, turn);
    } finally {
      turn?.release();
    }
    if ("denied" in admitted) return admitted.denied;
    const { call, pre } = admitted;

    // 6. execute
    await options.onStart?.();
    // not the global `performance`: its first use loads perf_hooks, a few ms of a one-call start-up
    const started = process.hrtime.bigint();
    let result = await execute(call, signal, options.onUpdate);
    result = {
      ...result,
      metadata: { ...result.metadata, durationMs: Number((process.hrtime.bigint() - started) / 1_000_000n) },
    };

    // 7. output limit
    result = limitOutput(result, call);

    // 8. post-tool hooks: they cannot undo anything; they add context, or hide the result (Gemini's AfterTool deny)
    const post = await hooks.after(call, result, signal);
    if (post.replaced) result = withheldResult(result, post.replaced);
    else if (post.output) result = replacedResult(result, post.output);
    const context = [...pre.additionalContext, ...post.additionalContext];
    if (context.length > 0) result = { ...result, text: `${result.text}\n\n${context.join("\n")}` };
    result = withHookNotes(result, [pre.notes, post.notes]);
    result = withHookWarnings(result, [...(pre.warnings ?? []), ...(post.warnings ?? [])]);
    if (!post.tail) return result;
    // Gemini's tail call: the same call id, every step again (rules, hooks, consent); its result is the model's
    if (tails >= MAX_TAIL_CALLS)
      return withHookWarnings(result, [`${post.tail.source}: tail call not run: ${MAX_TAIL_CALLS} in a row`]);
    const tail = await runCall({ name: post.tail.name, args: post.tail.args, callId }, options, tails + 1);
    return { ...tail, metadata: { ...tail.metadata, tailOf: { tool: name, source: post.tail.source } } };
  }

  async function admit(
    prepared: PreparedCall,
    signal: AbortSignal,
    turn: ConsentTurn | undefined,
  ): Promise<Admitted> {
    let call = prepared;
    const name = call.tool.spec.name;
    // 3. permission policy: a deny ends the call before any hook runs
    let policyDecision = await policy.decide(call, signal);
    if (policyDecision.verdict === "deny")
      return { denied: deniedResult(policyDecision.source, policyDecision.reason) };

    // 4. pre-tool hooks (may rewrite the arguments; the rewrite is validated like the original)
    const pre = await hooks.before(call, signal);
    if (pre.decision.verdict === "deny")
      return {
        denied: withHookWarnings(
          withHookNotes(deniedResult(pre.decision.source, pre.decision.reason), [pre.notes]),
          pre.warnings,
        ),
      };
    if (pre.args !== call.args) {
      const revalidated = validate(call.tool.spec.parameters, name, pre.args);
      if (!revalidated.ok) return { denied: withHookWarnings(revalidated.result, pre.warnings) };
      call = { ...call, args: revalidated.args };
      // the rules judge what will actually run: a rewrite cannot slip past a deny rule
      policyDecision = await policy.decide(call, signal);
      if (policyDecision.verdict === "deny") {
        return {
          denied: withHookWarnings(deniedResult(policyDecision.source, policyDecision.reason), pre.warnings),
        };
      }
    }

    // 5. consent: ask / force_ask / deny_unless_prior_grant go through grants and the asker; a hook's
    // explicit allow answers the approval mode's own question (seed 000), never an ask rule's
    const policyAfterHooks =
      pre.hookAllowed && policyDecision.verdict === "ask" && policyDecision.byMode
        ? { verdict: "allow" as const, source: `${pre.decision.source} (over ${policyDecision.source})` }
        : policyDecision;
    const decision = strictest([policyAfterHooks, pre.decision]);
    if (decision.verdict !== "allow") {
      const outcome = await consent.resolve(call, decision, signal, turn);
      if (!outcome.allowed) {
        const stop = outcome.interrupt
          ? { stop: { source: outcome.source, reason: outcome.reason ?? "" } }
          : {};
        const denied = withHookNotes(deniedResult(outcome.source, outcome.reason), [
          pre.notes,
          { messages: [], ...stop },
        ]);
        return { denied: withHookWarnings(denied, pre.warnings) };
      }
      const warned = { ...pre, warnings: [...(pre.warnings ?? []), ...(outcome.warnings ?? [])] };
      if (outcome.args) return admitChanged({ ...call, args: outcome.args }, outcome.source, warned, signal);
      return { call, pre: warned };
    }
    return { call, pre };
  }

  /**
   * A PermissionRequest hook allowed the call with changed input: it is validated and judged by the
   * rules again, as if the model had asked for it. The hook's allow answers the approval mode's question;
   * a rule that asks asks again (and that answer may not change the input once more).
   */
  async function admitChanged(
    changed: PreparedCall,
    hook: string,
    pre: PreHookOutcome,
    signal: AbortSignal,
  ): Promise<Admitted> {
    const revalidated = validate(changed.tool.spec.parameters, changed.tool.spec.name, changed.args);
    if (!revalidated.ok) return { denied: withHookWarnings(revalidated.result, pre.warnings) };
    const call = { ...changed, args: revalidated.args };
    const decision = await policy.decide(call, signal);
    if (decision.verdict === "allow" || (decision.verdict === "ask" && decision.byMode)) return { call, pre };
    const outcome = await consent.resolve(call, decision, signal);
    const again = outcome.args && JSON.stringify(outcome.args) !== JSON.stringify(call.args);
    if (outcome.allowed && !again) return { call, pre };
    const reason = again ? `${hook} changed the input again: the call is not run` : outcome.reason;
    return { denied: withHookWarnings(deniedResult(outcome.source, reason), pre.warnings) };
  }

  async function execute(
    call: PreparedCall,
    signal: AbortSignal,
    onUpdate: RunOptions["onUpdate"],
  ): Promise<ToolResult> {
    if (signal.aborted)
      return errorResult("aborted", `${call.tool.spec.name} was aborted before it started.`);
    try {
      return await call.tool.execute(call.args, {
        signal,
        callId: call.callId,
        agentId: call.agentId,
        onUpdate,
      });
    } catch (cause) {
      if (signal.aborted) return errorResult("aborted", `${call.tool.spec.name} was aborted.`);
      const message = cause instanceof Error ? cause.message : String(cause);
      return errorResult("execution_failed", `${call.tool.spec.name} failed: ${message}`);
    }
  }

  function limitOutput(result: ToolResult, call: PreparedCall): ToolResult {
    const output = call.tool.spec.output ?? {};
    if (output.maxChars === false) return result;
    const maxChars = Math.min(output.maxChars ?? deps.maxOutputChars, deps.maxOutputChars);
    if (result.text.length <= maxChars) return result;
    // the closing notice counts against the limit too: cut the text short enough to leave room for it
    const cut = truncateText(
      result.text,
      maxChars - Math.min(NOTICE_ROOM, Math.floor(maxChars / 4)),
      output.keep,
    );
    const nextStep = output.continuation?.(call.args, cut.shownChars);
    return {
      ...result,
      text: `${cut.text}\n${truncationNotice(cut, nextStep)}`,
      metadata: {
        ...result.metadata,
        truncated: true,
        totalChars: cut.totalChars,
        omittedChars: cut.omittedChars,
      },
    };
  }

  return { registry: deps.registry, run };
}

/** What steps 3–5 let through: the call as it will run and what the pre-hooks said, or the denial. */
/** How many tail calls (Gemini's AfterTool `tailToolCallRequest`) may follow one another. */
const MAX_TAIL_CALLS = 8;

type Admitted = { call: PreparedCall; pre: PreHookOutcome } | { denied: ToolResult };

/** Characters kept free for the truncation notice and its next-step hint. */
const NOTICE_ROOM = 300;

function validate(
  schema: PreparedCall["tool"]["spec"]["parameters"],
  name: string,
  value: unknown,
): { ok: true; args: Record<string, unknown> } | { ok: false; result: ToolResult } {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    return {
      ok: false,
      result: errorResult("invalid_arguments", describeValidationError(name, parsed.error)),
    };
  }
  return { ok: true, args: parsed.data as Record<string, unknown> };
}

/** Gemini CLI's AfterTool deny: the call ran, but the model reads the hook's reason instead of its result. */
function withheldResult(result: ToolResult, by: { source: string; reason: string }): ToolResult {
  return {
    text: `Tool result blocked by ${by.source}: ${by.reason}`,
    error: true,
    errorCode: "denied",
    metadata: { ...result.metadata, resultWithheldBy: by.source },
  };
}

/** A hook's replacement output (Claude's `updatedToolOutput`): the model reads it, and none of the original (images too). */
function replacedResult(result: ToolResult, by: { source: string; text: string }): ToolResult {
  const { images: _images, ...rest } = result;
  return { ...rest, text: by.text, metadata: { ...result.metadata, outputReplacedBy: by.source } };
}

/** Hooks' messages for the user (metadata.hookMessages) and a `continue: false` (metadata.stopRun). */
function withHookNotes(result: ToolResult, notes: (HookCallNotes | undefined)[]): ToolResult {
  const messages = notes.flatMap((note) => note?.messages ?? []);
  const stop = notes.find((note) => note?.stop)?.stop;
  if (messages.length === 0 && !stop) return result;
  const metadata: Record<string, unknown> = { ...result.metadata };
  if (messages.length > 0) metadata.hookMessages = messages;
  if (stop) metadata.stopRun = stop;
  return { ...result, metadata };
}

function withHookWarnings(result: ToolResult, warnings: string[] | undefined): ToolResult {
  if (!warnings || warnings.length === 0) return result;
  return { ...result, metadata: { ...result.metadata, hookWarnings: warnings } };
}

function deniedResult(source: string, reason: string | undefined): ToolResult {
  const text = reason ? `Denied by ${source}: ${reason}` : `Denied by ${source}.`;
  return errorResult("denied", text, { deniedBy: source });
}
