import { homedir } from "node:os";
import type { ConfigReport } from "../config/provenance.js";
import type { ToolResult } from "../tools/contract.js";
import type { HookStep, PostHookOutcome, PreHookOutcome, PreparedCall } from "../tools/gates.js";
import { applyTrustToHooks } from "../trust/hooks.js";
import type { WorkspaceTrust } from "../trust/workspace-trust.js";
import { fatalProblems, formatProblem, type HookConfig, loadHookConfig } from "./config.js";
import { createVerdictAggregate } from "./decide.js";
import type { ToolCallFacts, ToolHookEvent } from "./events.js";
import { createHookRuntime, type HookRuntime, type HookRuntimeOptions } from "./runtime.js";
import { runPlanned } from "./schedule.js";

export type HookStepOptions = HookRuntimeOptions & {
  /** A runtime shared with the session's lifecycle hooks; else one is made from the options. */
  runtime?: HookRuntime;
};

/** A hook step whose snapshot the user can replace (`/reload-hooks`); nothing else changes it. */
export interface ReloadableHookStep extends HookStep {
  reload(config: HookConfig): void;
}

/** The pipeline's hook step: plan the matching handlers, run them all (src/hooks/schedule.ts), aggregate their verdicts. */
export function createHookStep(options: HookStepOptions): ReloadableHookStep {
  const runtime = options.runtime ?? createHookRuntime(options);

  async function runEvent(event: ToolHookEvent, signal: AbortSignal) {
    const phase = event.kind === "pre_tool_execution" ? "before" : "after";
    const aggregate = createVerdictAggregate(event.call.args, phase);
    // no early exit on a deny: every matching handler runs (SPEC §4), so audit hooks see denied calls too
    await runPlanned(runtime, runtime.plan(event), event, signal, {
      current: () => ({ ...event, call: { ...event.call, args: aggregate.args } }),
      take(planned, verdict, notes) {
        for (const note of notes) aggregate.warn(note);
        aggregate.add(planned, verdict);
      },
    });
    const result = aggregate.result();
    for (const line of [...result.warnings, ...result.notes.messages]) runtime.log(line);
    if (result.notes.stop)
      runtime.log(`${result.notes.stop.source} stopped the agent: ${result.notes.stop.reason}`);
    return result;
  }

  return {
    reload: (next) => runtime.reload(next),
    async before(call, signal): Promise<PreHookOutcome> {
      if (!runtime.has("pre_tool_execution")) {
        return { decision: { verdict: "allow", source: "no hooks" }, args: call.args, additionalContext: [] };
      }
      const outcome = await runEvent({ kind: "pre_tool_execution", call: callFacts(call) }, signal);
      return {
        decision: outcome.decision,
        hookAllowed: outcome.hookAllowed,
        args: outcome.args,
        additionalContext: outcome.additionalContext,
        warnings: outcome.warnings,
        notes: outcome.notes,
      };
    },
    async after(call, result: ToolResult, signal): Promise<PostHookOutcome> {
      if (!runtime.has("post_tool_execution")) return { additionalContext: [] };
      const outcome = await runEvent({ kind: "post_tool_execution", call: callFacts(call), result }, signal);
      return {
        additionalContext: outcome.additionalContext,
        warnings: outcome.warnings,
        notes: outcome.notes,
        ...(outcome.replaced ? { replaced: outcome.replaced } : {}),
        ...(outcome.output ? { output: outcome.output } : {}),
        ...(outcome.tail ? { tail: outcome.tail } : {}),
      };
    },
  };
}

/**
 * Loads every hooks source (`.agents/hooks.json`, the Claude, Gemini and Qwen settings, home and workspace)
 * once, for one session, keeping what trust allows (src/trust/hooks.ts); a structural mistake in a file
 * that counts stops the session rather than silently dropping a guard.
 */
export function loadSessionHookConfig(
  workspaceRoot: string,
  trusted: { trust: WorkspaceTrust; report: ConfigReport; home?: string; loaded?: HookConfig },
): HookConfig {
  const home = trusted.home ?? homedir();
  const all = trusted.loaded ?? loadHookConfig(workspaceRoot, home);
  const config = applyTrustToHooks(all, trusted.trust, home, trusted.report);
  const fatal = fatalProblems(config);
  if (fatal.length > 0) {
    throw new Error(
      `invalid hooks configuration:\n  ${fatal.map(formatProblem).join("\n  ")}\n(run "gantry hooks check")`,
    );
  }
  return config;
}

export function callFacts(
  call: Pick<PreparedCall, "callId" | "agentId" | "requestedName" | "tool" | "args">,
): ToolCallFacts {
  return {
    callId: call.callId,
    agentId: call.agentId,
    name: call.tool.spec.name,
    requestedName: call.requestedName,
    aliases: call.tool.spec.aliases ?? [],
    args: call.args,
    ...(call.tool.spec.mcp ? { mcp: call.tool.spec.mcp } : {}),
  };
}
