import type { AgentInbox } from "../agent/inbox.js";
import type { ModelClient } from "../models/client.js";
import { randomUuid } from "../session/random-ids.js";
import { showControls } from "../tools/exec/ansi.js";
import { shellLevel } from "../tools/exec/process-tree.js";
import { fileDigest } from "../trust/digest.js";
import { createBackgroundHandlers } from "./background.js";
import { interpretBody, interpretExit } from "./decide.js";
import type { HandlerVerdict } from "./dialects/dialect.js";
import { createEnvFile, readEnvFile, type SessionVariables } from "./env-file.js";
import {
  agentOf,
  type HookEvent,
  type HookEventName,
  type HookSessionFacts,
  type SessionIdentity,
  type ToolCallFacts,
} from "./events.js";
import { prepareHookRunner } from "./hook-runner.js";
import { hasHandlersFor, type PlannedHandler, planHandlers } from "./plan.js";
import type { HandlerConfig, HookConfig, HookGroup } from "./rules.js";
import { runCommandHook } from "./run-command.js";
import { runFunctionHook } from "./run-function.js";
import { expandHeaderValues, runHttpHook } from "./run-http.js";
import { type AgentJudge, runPromptHook } from "./run-prompt.js";
import { createTranscriptViews } from "./transcripts/views.js";

export interface HookRuntimeOptions {
  config: HookConfig;
  workspaceRoot: string;
  sessionId?: string;
  environmentId?: string;
  transcriptPath?: string;
  /** Read at each event; wins over `sessionId` and `transcriptPath` (see SessionIdentity). */
  identity?: SessionIdentity;
  /** The approval mode hooks are told (`permission_mode`), read at each event; default "default". */
  approvalMode?: () => string | undefined;
  /** Where failures and hooks' messages are reported, one line each; default: stderr, prefixed `gantry: `. */
  log?: (line: string) => void;
  /** The environment hooks run with (header values expand from it too); default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Bytes kept of each hook's stdout, stderr or response body; default 1 MiB. */
  maxOutputBytes?: number;
  killGraceMs?: number;
  /** The model `type: "prompt"` hooks ask: the session's (no `model`), or the one a handler names; a string says why none. */
  judgeModel?: (model: string | undefined) => ModelClient | string;
  /** How `type: "agent"` hooks' judges run with the session's read-only tools; without it they fail (non-blocking). */
  judgeAgent?: AgentJudge;
  /**
   * Whether a tool call matches a handler's `if` (a permission rule), as the policy matches rules; without
   * it a handler with an `if` never runs (nothing can tell that the call matches).
   */
  conditionMatches?: (condition: string, call: ToolCallFacts) => Promise<boolean>;
  /** Where `asyncRewake` hooks' reports go: the agent's next turn starts with them. */
  inbox?: Pick<AgentInbox, "post" | "holdOpen">;
  /** Where SessionStart hooks' CLAUDE_ENV_FILE variables go (the session's commands read them); without it the file is not offered. */
  sessionVariables?: SessionVariables;
}

/** The agent id an agent hook's judge makes its tool calls under; agent hooks do not judge those. */
export const HOOK_AGENT_ID = "hook-agent";

/** The session's hooks snapshot and the one way a handler runs: plan, spawn or POST, interpret. */
export interface HookRuntime {
  readonly config: HookConfig;
  reload(config: HookConfig): void;
  has(event: HookEventName): boolean;
  plan(event: HookEvent): PlannedHandler[];
  session(): HookSessionFacts;
  /** Runs one handler for an event; `notes` are lines for the log (unset header variables). */
  runHandler(
    planned: PlannedHandler,
    event: HookEvent,
    signal: AbortSignal,
  ): Promise<{ verdict: HandlerVerdict; notes: string[] }>;
  log(line: string): void;
  /**
   * Starts an `async` handler without waiting (Claude Code): its decision has no effect, its
   * `systemMessage` reaches the user and its context the agent's next model call.
   */
  background(planned: PlannedHandler, event: HookEvent): void;
  /** The context background handlers left for this agent since the last take. */
  takeContext(agentId: string): string[];
  /** Hooks that fire only for one agent's events, until the returned function takes them away. */
  addAgentGroups(agentId: string, groups: readonly HookGroup[]): () => void;
  /** Whether any handler of the snapshot runs in the background. */
  hasBackground(): boolean;
  /**
   * The session closes: background handlers still running are ended (their processes too) and awaited,
   * and the SessionStart environment file is removed.
   */
  endBackground(): Promise<void>;
}

const ONE_MIB = 1024 * 1024;

export function createHookRuntime(options: HookRuntimeOptions): HookRuntime {
  let config = options.config;
  if (hasCommandHandler(config)) prepareHookRunner();
  const identity: SessionIdentity = options.identity ?? {
    sessionId: options.sessionId ?? randomUuid(),
    transcriptPath: options.transcriptPath ?? "",
  };
  const environmentId = options.environmentId ?? `env_${randomUuid().slice(0, 8)}`;
  const sink = options.log ?? ((line: string) => void process.stderr.write(`gantry: ${line}\n`));
  // every line carries text a hook wrote (a message, its stderr): the user's terminal must not act on it
  const log = (line: string) => sink(showControls(line));
  const baseEnv = options.env ?? process.env;
  const maxOutputBytes = options.maxOutputBytes ?? ONE_MIB;
  const views = createTranscriptViews({
    sessionId: () => identity.sessionId,
    cwd: options.workspaceRoot,
    log,
  });
  const session = (): HookSessionFacts => ({
    sessionId: identity.sessionId,
    environmentId,
    workspaceRoot: options.workspaceRoot,
    transcriptPath: identity.transcriptPath,
    approvalMode: options.approvalMode?.() ?? "default",
    transcriptFor: views.pathFor,
  });
  const hookEnvFor = sessionEnvironment(baseEnv);

  async function runHandler(planned: PlannedHandler, event: HookEvent, signal: AbortSignal) {
    const { handler } = planned;
    const notes: string[] = [];
    // Claude Code's `if`: a call the rule does not cover does not run the handler at all
    if (handler.condition !== undefined && "call" in event) {
      const matches = (await options.conditionMatches?.(handler.condition, event.call)) ?? false;
      if (!matches) return { verdict: {}, notes };
    }
    const facts = session();
    const payload = JSON.stringify(planned.dialect.encode(event, facts, planned.rule));
    const refused = handler.kind === "command" ? trustRefusal(handler) : undefined;
    if (refused !== undefined) {
      notes.push(`hook ${planned.label}: ${refused}`);
      return { verdict: refusedVerdict(event, `hook ${planned.label}: ${refused}`), notes };
    }
    const fromBody = (outcome: { ok: true; output: string } | { ok: false; failure: string }) =>
      outcome.ok
        ? interpretBody(planned.dialect, event, facts, outcome.output)
        : { failure: outcome.failure };
    switch (handler.kind) {
      case "command": {
        const envFile = event.kind === "session_start" ? sessionEnvFile() : undefined;
        const base = hookEnvFor(facts);
        const env = handler.env ? { ...base, ...handler.env } : base;
        const outcome = await runCommandHook({
          command: handler.command,
          input: payload,
          cwd: facts.workspaceRoot,
          env: envFile ? { ...env, CLAUDE_ENV_FILE: envFile } : env,
          timeoutMs: handler.timeoutMs,
          maxOutputBytes,
          signal,
          killGraceMs: options.killGraceMs,
        });
        const verdict: HandlerVerdict = outcome.ok
          ? interpretExit(planned.dialect, event, facts, outcome.exit)
          : { failure: outcome.failure };
        if (envFile) await takeSessionVariables(envFile, notes);
        return { verdict, notes };
      }
      case "prompt": {
        // a judge's own reads would ask it again, without end
        if (handler.agent && agentOf(event) === HOOK_AGENT_ID) return { verdict: {}, notes };
        const client = options.judgeModel?.(handler.model) ?? "this session has no model for prompt hooks";
        const dialect = planned.dialect.id === "qwen" ? ("qwen" as const) : ("claude" as const);
        const agent = handler.agent
          ? (options.judgeAgent ?? "this session cannot run agent hooks")
          : undefined;
        const request = { client, prompt: handler.prompt, input: payload, event, dialect, signal, agent };
        return {
          verdict: fromBody(await runPromptHook({ ...request, timeoutMs: handler.timeoutMs })),
          notes,
        };
      }
      case "function": {
        const input = JSON.parse(payload) as Record<string, unknown>;
        return { verdict: fromBody(await runFunctionHook(handler, input, signal)), notes };
      }
      case "http": {
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
        return { verdict: fromBody(outcome.ok ? { ok: true, output: outcome.body } : outcome), notes };
      }
    }
  }

  const background = createBackgroundHandlers(runHandler, log, options.inbox);
  // subagents' own hooks (their agent files'), kept apart from the snapshot so a reload keeps them
  let agentGroups: HookGroup[] = [];
  const withAgentGroups = (): HookConfig =>
    agentGroups.length === 0 ? config : { ...config, groups: [...config.groups, ...agentGroups] };
  let envFile: { path: string; remove(): void } | undefined;

  /** Claude Code's CLAUDE_ENV_FILE, made at the first SessionStart command hook of a session that reads it. */
  function sessionEnvFile(): string | undefined {
    if (!options.sessionVariables) return undefined;
    envFile ??= createEnvFile();
    return envFile.path;
  }

  async function takeSessionVariables(file: string, notes: string[]): Promise<void> {
    try {
      options.sessionVariables?.replace(await readEnvFile(file, baseEnv));
    } catch (cause) {
      notes.push(`SessionStart: ${(cause as Error).message}`);
    }
  }

  return {
    get config() {
      return config;
    },
    reload(next) {
      config = next;
      if (hasCommandHandler(config)) prepareHookRunner();
    },
    has: (event) => hasHandlersFor(withAgentGroups(), event),
    plan: (event) => planHandlers(withAgentGroups(), event),
    addAgentGroups(agentId, groups) {
      agentGroups = [
        ...agentGroups.filter((group) => group.agentId !== agentId),
        ...groups.map((group) => ({ ...group, agentId })),
      ];
      return () => {
        agentGroups = agentGroups.filter((group) => group.agentId !== agentId);
      };
    },
    session,
    runHandler,
    log,
    background: background.start,
    takeContext: background.take,
    hasBackground: () => config.groups.some((g) => g.rules.some((r) => r.handlers.some(isBackground))),
    async endBackground() {
      await background.end();
      envFile?.remove();
      envFile = undefined;
    },
  };
}

/**
 * The environment command hooks run with, built at the first hook and again only when the session's id
 * changes (resume, new): copying process.env reads every variable through a lookup of its own, which cost
 * more than the rest of a hook's own work together. Like run_command's, it is the environment as it was
 * then; later changes to process.env do not reach hooks.
 */
function sessionEnvironment(baseEnv: NodeJS.ProcessEnv): (facts: HookSessionFacts) => NodeJS.ProcessEnv {
  let built: { sessionId: string; workspaceRoot: string; env: NodeJS.ProcessEnv } | undefined;
  return (facts) => {
    if (built?.sessionId !== facts.sessionId || built.workspaceRoot !== facts.workspaceRoot) {
      const env = Object.freeze({
        ...baseEnv,
        // a `bash -c` inside a hook reads no ~/.bashrc either (shellLevel, run-command.ts)
        SHLVL: shellLevel(baseEnv.SHLVL),
        GANTRY_PROJECT_DIR: facts.workspaceRoot,
        CLAUDE_PROJECT_DIR: facts.workspaceRoot,
        GEMINI_PROJECT_DIR: facts.workspaceRoot,
        QWEN_PROJECT_DIR: facts.workspaceRoot,
        GEMINI_CWD: facts.workspaceRoot,
        GEMINI_SESSION_ID: facts.sessionId,
      });
      built = { sessionId: facts.sessionId, workspaceRoot: facts.workspaceRoot, env };
    }
    return built.env;
  };
}

function isBackground(handler: HandlerConfig): boolean {
  return handler.kind === "command" && handler.background === true;
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

/**
 * A gate trust will not run fails closed whatever its group says, so nothing passes it: the call, the
 * permission question or the prompt is refused. Where nothing would pass (context, a stop) it only fails.
 */
function refusedVerdict(event: HookEvent, reason: string): HandlerVerdict {
  switch (event.kind) {
    case "pre_tool_execution":
      return { verdict: "deny", reason };
    case "permission_request":
      return { permission: { behavior: "deny", message: reason } };
    case "user_prompt_submit":
    case "before_model":
      return { block: reason };
    default:
      return { failure: reason, loud: true };
  }
}

function hasCommandHandler(config: HookConfig): boolean {
  return config.groups.some((group) =>
    group.rules.some((rule) => rule.handlers.some((handler) => handler.kind === "command")),
  );
}
