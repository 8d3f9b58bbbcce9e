import { randomUUID } from "node:crypto";
import { homedir } from "node:os";
import type { ConfigReport } from "../config/provenance.js";
import type { ToolResult } from "../tools/contract.js";
import type { HookStep, PreHookOutcome, PreparedCall } from "../tools/gates.js";
import { fileDigest } from "../trust/digest.js";
import { applyTrustToHooks } from "../trust/hooks.js";
import type { WorkspaceTrust } from "../trust/workspace-trust.js";
import { fatalProblems, formatProblem, type HookConfig, loadHookConfig } from "./config.js";
import { createVerdictAggregate, interpretBody, interpretExit } from "./decide.js";
import type { HandlerVerdict } from "./dialects/dialect.js";
import type { HookSessionFacts, SessionIdentity, ToolCallFacts, ToolHookEvent } from "./events.js";
import { hasHandlersFor, type PlannedHandler, planHandlers } from "./plan.js";
import type { HandlerConfig } from "./rules.js";
import { runCommandHook } from "./run-command.js";
import { expandHeaderValues, runHttpHook } from "./run-http.js";

export interface HookStepOptions {
  config: HookConfig;
  workspaceRoot: string;
  sessionId?: string;
  environmentId?: string;
  transcriptPath?: string;
  /** Read at each event; wins over `sessionId` and `transcriptPath` (see SessionIdentity). */
  identity?: SessionIdentity;
  /** Where failures are reported, one line each; default: stderr, prefixed `gantry: `. */
  log?: (line: string) => void;
  /** The environment hooks run with (header values expand from it too); default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Bytes kept of each hook's stdout, stderr or response body; default 1 MiB. */
  maxOutputBytes?: number;
  killGraceMs?: number;
}

const ONE_MIB = 1024 * 1024;

/** A hook step whose snapshot the user can replace (`/reload-hooks`); nothing else changes it. */
export interface ReloadableHookStep extends HookStep {
  reload(config: HookConfig): void;
}

/** The pipeline's hook step: plan the matching handlers, run them all in order, aggregate their verdicts. */
export function createHookStep(options: HookStepOptions): ReloadableHookStep {
  let config = options.config;
  const identity: SessionIdentity = options.identity ?? {
    sessionId: options.sessionId ?? randomUUID(),
    transcriptPath: options.transcriptPath ?? "",
  };
  const environmentId = options.environmentId ?? `env_${randomUUID().slice(0, 8)}`;
  const sessionFacts = (): HookSessionFacts => ({
    sessionId: identity.sessionId,
    environmentId,
    workspaceRoot: options.workspaceRoot,
    transcriptPath: identity.transcriptPath,
  });
  const log = options.log ?? ((line: string) => void process.stderr.write(`gantry: ${line}\n`));
  const baseEnv = options.env ?? process.env;
  const hookEnvFor = (session: HookSessionFacts): NodeJS.ProcessEnv => ({
    ...baseEnv,
    GANTRY_PROJECT_DIR: session.workspaceRoot,
    CLAUDE_PROJECT_DIR: session.workspaceRoot,
    GEMINI_PROJECT_DIR: session.workspaceRoot,
    GEMINI_CWD: session.workspaceRoot,
    GEMINI_SESSION_ID: session.sessionId,
  });
  const maxOutputBytes = options.maxOutputBytes ?? ONE_MIB;

  async function runHandler(
    planned: PlannedHandler,
    event: ToolHookEvent,
    session: HookSessionFacts,
    signal: AbortSignal,
  ) {
    const payload = JSON.stringify(planned.dialect.encode(event, session));
    const { handler } = planned;
    const notes: string[] = [];
    let verdict: HandlerVerdict;
    const refused = handler.kind === "command" ? trustRefusal(handler) : undefined;
    if (refused !== undefined) {
      // fail closed whatever the group says: the approved gate cannot run, so nothing passes it
      notes.push(`hook ${planned.label}: ${refused}`);
      verdict = { verdict: "deny", reason: `hook ${planned.label}: ${refused}` };
    } else if (handler.kind === "command") {
      const outcome = await runCommandHook({
        command: handler.command,
        input: payload,
        cwd: session.workspaceRoot,
        env: hookEnvFor(session),
        timeoutMs: handler.timeoutMs,
        maxOutputBytes,
        signal,
        killGraceMs: options.killGraceMs,
      });
      verdict = outcome.ok
        ? interpretExit(planned.dialect, event, session, outcome.exit)
        : { failure: outcome.failure };
    } else {
      const { headers, missing } = expandHeaderValues(handler.headers, baseEnv, handler.allowedEnvVars);
      const why = handler.allowedEnvVars ? "unset or not in allowedEnvVars" : "unset";
      for (const name of missing)
        notes.push(`hook ${planned.label}: header references ${name}, which is ${why}`);
      const outcome = await runHttpHook({
        url: handler.url,
        headers,
        body: payload,
        timeoutMs: handler.timeoutMs,
        maxBodyBytes: maxOutputBytes,
        signal,
      });
      verdict = outcome.ok
        ? interpretBody(planned.dialect, event, session, outcome.body)
        : { failure: outcome.failure };
    }
    return { verdict, notes };
  }

  async function runEvent(event: ToolHookEvent, signal: AbortSignal) {
    const phase = event.kind === "pre_tool_execution" ? "before" : "after";
    const aggregate = createVerdictAggregate(event.call.args, phase);
    const session = sessionFacts();
    for (const planned of planHandlers(config, event)) {
      // a cancelled call will not run: the hooks still to come are not started only to be stopped
      if (signal.aborted) break;
      const current = { ...event, call: { ...event.call, args: aggregate.args } };
      const { verdict, notes } = await runHandler(planned, current, session, signal);
      for (const note of notes) aggregate.warn(note);
      // no early exit on a deny: every matching handler runs (SPEC §4), so audit hooks see denied calls too
      aggregate.add(planned, verdict);
    }
    const result = aggregate.result();
    for (const line of result.warnings) log(line);
    return result;
  }

  return {
    reload(next) {
      config = next;
    },
    async before(call, signal): Promise<PreHookOutcome> {
      if (!hasHandlersFor(config, "pre_tool_execution")) {
        return { decision: { verdict: "allow", source: "no hooks" }, args: call.args, additionalContext: [] };
      }
      return runEvent({ kind: "pre_tool_execution", call: callFacts(call) }, signal);
    },
    async after(call, result: ToolResult, signal) {
      if (!hasHandlersFor(config, "post_tool_execution")) return { additionalContext: [] };
      const outcome = await runEvent({ kind: "post_tool_execution", call: callFacts(call), result }, signal);
      return { additionalContext: outcome.additionalContext, warnings: outcome.warnings };
    },
  };
}

/**
 * Loads `.agents/hooks.json` (home, workspace) and the Claude/Gemini settings once, for one session,
 * keeping what trust allows (src/trust/hooks.ts); a structural mistake in a file that counts stops the
 * session rather than silently dropping a guard.
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

/** Why trust forbids running this handler now: refused when loaded, or a script changed since. */
function trustRefusal(handler: Extract<HandlerConfig, { kind: "command" }>): string | undefined {
  if (handler.refusal !== undefined) return handler.refusal;
  for (const script of handler.scripts ?? []) {
    if (fileDigest(script.file) !== script.digest) {
      return `the hook was not run: its script ${script.file} changed after this session trusted it; the call is denied (review the script, then run "gantry trust" and start a new session)`;
    }
  }
  return undefined;
}

function callFacts(call: PreparedCall): ToolCallFacts {
  return {
    callId: call.callId,
    agentId: call.agentId,
    name: call.tool.spec.name,
    requestedName: call.requestedName,
    aliases: call.tool.spec.aliases ?? [],
    args: call.args,
  };
}
