import path from "node:path";
import { canonicalEventName, EVENTS_THAT_NEVER_FIRE, type HookEventName } from "./events.js";
import { type CompiledMatcher, compileMatcher, type MatcherStyle } from "./matcher.js";

export type DialectId = MatcherStyle;

/** Fields every handler has; `failClosed`: this handler's failure denies the call (Qwen's `failMode: "closed"`). */
interface HandlerBase {
  name: string;
  timeoutMs: number;
  failClosed?: boolean;
  /**
   * Claude Code's `if`: a permission rule (`Bash(git push:*)`, `Edit(src/**)`) the tool call must match
   * for the handler to run at all; judged by the policy's own matching of the call.
   */
  condition?: string;
}

export type HandlerConfig =
  | (HandlerBase & {
      kind: "command";
      command: string;
      /** Workspace scripts it runs, with the digest trust approved: checked before every run. */
      scripts?: { file: string; digest: string }[];
      /** Set when trust forbids running it: the call it matches is denied with this reason. */
      refusal?: string;
      /** Claude Code's `async: true`: runs in the background; nothing waits for it or obeys its decision. */
      background?: boolean;
      /** Qwen Code's `env`: variables set for this command only. */
      env?: Record<string, string>;
      /** Claude Code's `asyncRewake`: a background hook whose block (exit 2) or context starts the agent's next turn. */
      rewake?: boolean;
    })
  | (HandlerBase & {
      kind: "http";
      url: string;
      headers: Record<string, string>;
      /** Claude Code: only these variables may be expanded in header values; undefined = any. */
      allowedEnvVars?: string[];
    })
  | (HandlerBase & {
      /** Claude Code's `type: "prompt"`: a model judges the event with this prompt (`$ARGUMENTS`: the event JSON). */
      kind: "prompt";
      prompt: string;
      /** `provider:model-id` or a tier (`haiku`, ...); default: the session's model. */
      model?: string;
      /** Claude Code's `type: "agent"`: the judge may first read the workspace (its read-only tools, several turns). */
      agent?: boolean;
    })
  | (HandlerBase & {
      /** A library caller's own function (createAgent `hooks`): the native event in, a decision out. */
      kind: "function";
      run(event: Record<string, unknown>, signal: AbortSignal): unknown;
    });

export interface HookRule {
  event: HookEventName;
  /** The event as the file names it (`PreToolUse`, `BeforeAgent`, `pre_tool_execution`): hooks see this name. */
  key: string;
  matcher: CompiledMatcher;
  /** Claude Code's PostToolUse / PostToolUseFailure split: run only after a success or a failure. */
  only?: "success" | "failure";
  /** Gemini CLI's `sequential: true`: its event's handlers run one after another, each seeing the last's changes. */
  sequential?: boolean;
  handlers: HandlerConfig[];
}

/** Where a hooks file lives: the user's home or the workspace (an untrusted workspace's hooks are ignored). */
export type HookScope = "home" | "workspace";

export interface HookGroup {
  name: string;
  file: string;
  dialect: DialectId;
  scope: HookScope;
  enabled: boolean;
  /** A failing handler denies the call instead of allowing it. */
  failClosed: boolean;
  rules: HookRule[];
  /** Hooks of one subagent's own (its agent file's `hooks`): they fire only for its events. */
  agentId?: string;
}

export interface HookProblem {
  file: string;
  /** Where in the file, e.g. `security-gate.pre_tool_execution[0].matcher`. */
  at: string;
  message: string;
  /** Errors stop a session from starting; warnings are reported by `gantry hooks check`. */
  severity: "error" | "warning";
}

/** One event a file configures, and whether Gantry fires it (for `gantry hooks check`). */
export interface ConfiguredEvent {
  file: string;
  key: string;
  event?: HookEventName;
  fires: boolean;
}

/** The hooks of one session: read once when it starts (a snapshot; edits take effect on reload). */
export interface HookConfig {
  groups: HookGroup[];
  /** The files that were found and read. */
  files: string[];
  /**
   * The bytes each file's hooks were parsed from: trust judges a workspace file on these
   * (src/trust/hooks.ts), not on a second read of a file that may have changed since.
   */
  contents?: Record<string, Buffer>;
  problems: HookProblem[];
  /** Every event key the files name, in file order. */
  events: ConfiguredEvent[];
}

/** Shared by every dialect's parser: where problems go and how timeouts and matchers are read. */
export interface ParseContext {
  file: string;
  dialect: DialectId;
  workspaceRoot: string;
  problems: HookProblem[];
  /** Where configured events are recorded. */
  events: ConfiguredEvent[];
  /** Milliseconds per unit of the file's `timeout` (1000 for seconds, 1 for Gemini's milliseconds). */
  timeoutUnitMs: number;
  defaultTimeoutMs: number;
  /** Qwen Code: HTTP handlers count their timeout in seconds while commands count milliseconds. */
  httpTimeout?: { unitMs: number; defaultMs: number };
  /** Handler fields the dialect knows besides type/command/url/headers/timeout (kept quiet, not flagged). */
  extraHandlerFields: readonly string[];
}

/** Harnesses whose command hooks may say `async: true` (Claude Code; Qwen Code follows it). */
const ASYNC_DIALECTS = new Set<DialectId>(["claude", "qwen"]);
const RULE_FIELDS = new Set(["matcher", "hooks", "description"]);
const COMMAND_FIELDS = ["type", "command", "timeout", "name", "description"];
const HTTP_FIELDS = ["type", "url", "headers", "timeout", "name", "description"];
const PROMPT_FIELDS = ["type", "prompt", "model", "timeout", "name", "description"];
/** Harnesses with `type: "prompt"` handlers (Claude Code, Qwen Code), timed in seconds, default 30. */
const PROMPT_DIALECTS = new Set<DialectId>(["claude", "qwen"]);
const PROMPT_TIMEOUT_MS = 30_000;
/** Claude Code's `type: "agent"` handlers, default 60 s. */
const AGENT_TIMEOUT_MS = 60_000;

/** Maps a configured event key to a firing event, or reports why it is ignored. */
export function eventFor(ctx: ParseContext, key: string, at: string): HookEventName | undefined {
  const event = canonicalEventName(key);
  if (event) {
    ctx.events.push({ file: ctx.file, key, event, fires: true });
    return event;
  }
  if (EVENTS_THAT_NEVER_FIRE.has(key)) {
    ctx.events.push({ file: ctx.file, key, fires: false });
    ctx.problems.push(
      warning(
        ctx.file,
        at,
        `event "${key}" does not fire in Gantry (it has no such moment); its hooks are ignored`,
      ),
    );
    return undefined;
  }
  ctx.problems.push(warning(ctx.file, at, `unknown field or event "${key}"`));
  return undefined;
}

/** A list of `{ matcher, hooks: [handler...] }`, the shape all three dialects share. */
export function parseRules(
  ctx: ParseContext,
  value: unknown,
  at: string,
  event: HookEventName,
  extra: { key?: string; only?: HookRule["only"]; ruleFields?: readonly string[] } = {},
): HookRule[] {
  if (!Array.isArray(value)) {
    ctx.problems.push(error(ctx.file, at, "must be a list of { matcher, hooks } rules"));
    return [];
  }
  const rules: HookRule[] = [];
  value.forEach((item, index) => {
    const ruleAt = `${at}[${index}]`;
    if (!isRecord(item)) {
      ctx.problems.push(error(ctx.file, ruleAt, "a rule must be an object { matcher, hooks }"));
      return;
    }
    flagUnknown(ctx, item, ruleAt, [...RULE_FIELDS, ...(extra.ruleFields ?? [])]);
    if (item.matcher !== undefined && typeof item.matcher !== "string") {
      ctx.problems.push(error(ctx.file, `${ruleAt}.matcher`, "must be a string"));
      return;
    }
    const matcher = compileMatcher(item.matcher as string | undefined, ctx.dialect);
    if (matcher.problem) ctx.problems.push(warning(ctx.file, `${ruleAt}.matcher`, matcher.problem));
    if (!Array.isArray(item.hooks)) {
      ctx.problems.push(error(ctx.file, `${ruleAt}.hooks`, "must be a list of handlers"));
      return;
    }
    const handlers = item.hooks.flatMap((handler, i) => parseHandler(ctx, handler, `${ruleAt}.hooks[${i}]`));
    const sequential = item.sequential === true ? { sequential: true } : {};
    rules.push({ event, key: extra.key ?? event, matcher, only: extra.only, ...sequential, handlers });
  });
  return rules;
}

function parseHandler(ctx: ParseContext, raw: unknown, at: string): HandlerConfig[] {
  if (!isRecord(raw)) {
    ctx.problems.push(error(ctx.file, at, "a handler must be an object"));
    return [];
  }
  const name = typeof raw.name === "string" && raw.name ? raw.name : at;
  const http = raw.type === "http" ? ctx.httpTimeout : undefined;
  const timeoutMs = readTimeout(ctx, raw.timeout, `${at}.timeout`, http);
  const base: HandlerBase = {
    name,
    timeoutMs,
    ...(raw.failMode === "closed" ? { failClosed: true } : {}),
    ...conditionOf(ctx, raw.if, `${at}.if`),
  };
  if (raw.type === "command") {
    flagUnknown(ctx, raw, at, [...COMMAND_FIELDS, ...ctx.extraHandlerFields]);
    if (typeof raw.command !== "string" || raw.command.trim() === "") {
      ctx.problems.push(error(ctx.file, `${at}.command`, "must be a non-empty string"));
      return [];
    }
    const async = (raw.async === true || raw.asyncRewake === true) && ASYNC_DIALECTS.has(ctx.dialect);
    const background = async
      ? { background: true, ...(raw.asyncRewake === true ? { rewake: true } : {}) }
      : {};
    const env = raw.env === undefined ? {} : handlerEnv(ctx, raw.env, `${at}.env`);
    return [{ ...base, kind: "command", command: raw.command, ...background, ...env }];
  }
  if (raw.type === "http") {
    flagUnknown(ctx, raw, at, [...HTTP_FIELDS, ...ctx.extraHandlerFields]);
    if (typeof raw.url !== "string" || !/^https?:\/\//.test(raw.url)) {
      ctx.problems.push(error(ctx.file, `${at}.url`, "must be an http:// or https:// URL"));
      return [];
    }
    const headers = readHeaders(ctx, raw.headers, `${at}.headers`);
    const allowed = Array.isArray(raw.allowedEnvVars) ? raw.allowedEnvVars.map(String) : undefined;
    if (raw.async === true)
      ctx.problems.push(
        warning(ctx.file, `${at}.async`, "only command hooks run in the background; this one is waited for"),
      );
    return [{ ...base, kind: "http", url: raw.url, headers, allowedEnvVars: allowed }];
  }
  if (raw.type === "prompt" && PROMPT_DIALECTS.has(ctx.dialect))
    return parsePromptHandler(ctx, raw, at, name);
  if (raw.type === "agent" && ctx.dialect === "claude") return parsePromptHandler(ctx, raw, at, name, true);
  const type = JSON.stringify(raw.type);
  // Other harnesses have prompt/agent handlers; skipping them must not stop the session.
  const severity = ctx.dialect === "native" ? "error" : "warning";
  ctx.problems.push({
    file: ctx.file,
    at: `${at}.type`,
    severity,
    message: `unsupported handler type ${type}; skipped`,
  });
  return [];
}

function parsePromptHandler(
  ctx: ParseContext,
  raw: Record<string, unknown>,
  at: string,
  name: string,
  agent = false,
): HandlerConfig[] {
  flagUnknown(ctx, raw, at, [...PROMPT_FIELDS, ...ctx.extraHandlerFields]);
  if (typeof raw.prompt !== "string" || raw.prompt.trim() === "") {
    ctx.problems.push(error(ctx.file, `${at}.prompt`, "must be a non-empty string"));
    return [];
  }
  const timeoutMs = readTimeout(ctx, raw.timeout, `${at}.timeout`, {
    unitMs: 1000,
    defaultMs: agent ? AGENT_TIMEOUT_MS : PROMPT_TIMEOUT_MS,
  });
  const model = typeof raw.model === "string" && raw.model !== "" ? { model: raw.model } : {};
  return [{ name, timeoutMs, kind: "prompt", prompt: raw.prompt, ...model, ...(agent ? { agent } : {}) }];
}

function readTimeout(
  ctx: ParseContext,
  value: unknown,
  at: string,
  units = { unitMs: ctx.timeoutUnitMs, defaultMs: ctx.defaultTimeoutMs },
): number {
  if (value === undefined) return units.defaultMs;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    ctx.problems.push(warning(ctx.file, at, `must be a positive number; using the default`));
    return units.defaultMs;
  }
  return value * units.unitMs;
}

function readHeaders(ctx: ParseContext, value: unknown, at: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value) || Object.values(value).some((v) => typeof v !== "string")) {
    ctx.problems.push(error(ctx.file, at, "must be an object of string values"));
    return {};
  }
  return value as Record<string, string>;
}

export function readBoolean(ctx: ParseContext, body: Record<string, unknown>, at: string, key: string) {
  const value = body[key];
  if (value === undefined || typeof value === "boolean") return value;
  ctx.problems.push(error(ctx.file, at, "must be true or false"));
  return undefined;
}

export function flagUnknown(
  ctx: ParseContext,
  body: Record<string, unknown>,
  at: string,
  known: Iterable<string>,
) {
  const knownSet = new Set(known);
  for (const key of Object.keys(body)) {
    if (!knownSet.has(key)) ctx.problems.push(warning(ctx.file, `${at}.${key}`, `unknown field "${key}"`));
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function error(file: string, at: string, message: string): HookProblem {
  return { file, at, message, severity: "error" };
}

export function warning(file: string, at: string, message: string): HookProblem {
  return { file, at, message, severity: "warning" };
}

/** One file hooks are read from: its dialect, and whether it lies in the user's home or the workspace. */
export interface HookSource {
  file: string;
  dialect: DialectId;
  scope: HookScope;
}

/** What a dialect's parser needs besides the file's JSON. */
export interface SourceContext {
  source: HookSource;
  workspaceRoot: string;
  home: string;
  problems: HookProblem[];
  events: ConfiguredEvent[];
}

/** How a settings file's group is named in logs and denials: `claude:.claude/settings.json`, `qwen:~/.qwen/settings.json`. */
export function groupLabel(ctx: SourceContext): string {
  const { file, dialect, scope } = ctx.source;
  const shown =
    scope === "home" ? `~/${path.relative(ctx.home, file)}` : path.relative(ctx.workspaceRoot, file);
  return `${dialect}:${shown}`;
}

/** A rule as permissions write one: a tool name, maybe with a specifier in parentheses. */
const RULE_SHAPE = /^[A-Za-z_][\w-]*(\(.+\))?$/s;

/**
 * `if` on a handler. One that cannot be read stops the session (an error, as for a handler without its
 * command): run anyway, an allowing hook meant for `Bash(npm test:*)` would allow every command; skipped,
 * a blocking one would block nothing.
 */
function conditionOf(ctx: ParseContext, value: unknown, at: string): { condition?: string } {
  if (value === undefined) return {};
  if (typeof value !== "string" || !RULE_SHAPE.test(value.trim())) {
    ctx.problems.push(
      error(ctx.file, at, 'must be a permission rule such as "Bash(git push:*)" or "Edit(src/**)"'),
    );
    return { condition: "\0 unreadable" };
  }
  return { condition: value.trim() };
}

/** Qwen Code's `env` on a command handler: names to strings, nothing else (a hook would run without them). */
function handlerEnv(ctx: ParseContext, value: unknown, at: string): { env?: Record<string, string> } {
  const entries = isRecord(value) ? Object.entries(value) : undefined;
  if (!entries || entries.some(([name, text]) => typeof text !== "string" || !/^[A-Za-z_]\w*$/.test(name))) {
    ctx.problems.push(error(ctx.file, at, 'must map variable names to strings ({"STRICT": "1"})'));
    return {};
  }
  return { env: Object.fromEntries(entries) as Record<string, string> };
}
