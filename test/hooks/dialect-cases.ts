import { readFileSync } from "node:fs";
import path from "node:path";
import { runGantry } from "../support/cli.js";
import type { ModelServer, ScriptedTurn } from "../support/model-server.js";
import { startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

/** Gantry's lifecycle events, by native name. */
export type EventName =
  | "pre_tool_execution"
  | "post_tool_execution"
  | "session_start"
  | "session_end"
  | "user_prompt_submit"
  | "stop"
  | "subagent_start"
  | "subagent_stop"
  | "pre_compact"
  | "post_compact"
  | "notification"
  | "permission_request"
  | "before_model"
  | "after_model"
  | "before_tool_selection";

export type DialectId = "claude" | "gemini" | "qwen" | "native";

export interface HookRule {
  matcher?: string;
  /** The JSON the hook prints (after recording its stdin), or an exit-2 stderr. */
  answer: unknown;
  /** Answer only while stop_hook_active is false (a Stop hook that sends the agent on once). */
  once?: boolean;
}

/** One harness's file, event names and words for "block", "add context" and "stop", as its docs have them. */
export interface DialectCase {
  id: DialectId;
  file: string;
  /** The event's name in this harness's file; undefined where the harness has no such event. */
  key: Partial<Record<EventName, string>>;
  block(event: EventName, reason: string): unknown;
  context(event: EventName, text: string): unknown;
  stop(reason: string): unknown;
  allow(event: EventName): unknown;
  configure(rules: Partial<Record<EventName, HookRule[]>>, script: string): string;
}

const CLAUDE_KEYS: Partial<Record<EventName, string>> = {
  pre_tool_execution: "PreToolUse",
  post_tool_execution: "PostToolUse",
  session_start: "SessionStart",
  session_end: "SessionEnd",
  user_prompt_submit: "UserPromptSubmit",
  stop: "Stop",
  subagent_start: "SubagentStart",
  subagent_stop: "SubagentStop",
  pre_compact: "PreCompact",
  post_compact: "PostCompact",
  notification: "Notification",
  permission_request: "PermissionRequest",
};

const specific = (event: EventName, fields: Record<string, unknown>, keys = CLAUDE_KEYS) => ({
  hookSpecificOutput: { hookEventName: keys[event], ...fields },
});

function claudeStyle(id: "claude" | "qwen", file: string): DialectCase {
  return {
    id,
    file,
    key: CLAUDE_KEYS,
    block: (event, reason) =>
      event === "pre_tool_execution"
        ? specific(event, { permissionDecision: "deny", permissionDecisionReason: reason })
        : event === "permission_request"
          ? specific(event, { decision: { behavior: "deny", message: reason } })
          : { decision: "block", reason },
    context: (event, text) => specific(event, { additionalContext: text }),
    stop: (reason) => ({ continue: false, stopReason: reason }),
    allow: (event) =>
      event === "permission_request"
        ? specific(event, { decision: { behavior: "allow" } })
        : specific(event, { permissionDecision: "allow" }),
    configure(rules, script) {
      const hooks: Record<string, unknown> = {};
      for (const [event, list] of Object.entries(rules)) {
        hooks[CLAUDE_KEYS[event as EventName] as string] = list.map((rule) => ({
          ...(rule.matcher !== undefined ? { matcher: rule.matcher } : {}),
          hooks: [{ type: "command", command: commandFor(script, rule) }],
        }));
      }
      return JSON.stringify({ hooks });
    },
  };
}

const GEMINI_KEYS: Partial<Record<EventName, string>> = {
  pre_tool_execution: "BeforeTool",
  post_tool_execution: "AfterTool",
  session_start: "SessionStart",
  session_end: "SessionEnd",
  user_prompt_submit: "BeforeAgent",
  stop: "AfterAgent",
  pre_compact: "PreCompress",
  notification: "Notification",
  before_model: "BeforeModel",
  after_model: "AfterModel",
  before_tool_selection: "BeforeToolSelection",
};

const gemini: DialectCase = {
  id: "gemini",
  file: ".gemini/settings.json",
  key: GEMINI_KEYS,
  block: (_event, reason) => ({ decision: "deny", reason }),
  context: (event, text) => specific(event, { additionalContext: text }, GEMINI_KEYS),
  stop: (reason) => ({ continue: false, stopReason: reason }),
  allow: () => ({ decision: "allow" }),
  configure(rules, script) {
    const hooks: Record<string, unknown> = {};
    for (const [event, list] of Object.entries(rules)) {
      hooks[GEMINI_KEYS[event as EventName] as string] = list.map((rule) => ({
        ...(rule.matcher !== undefined ? { matcher: rule.matcher } : {}),
        hooks: [{ type: "command", command: commandFor(script, rule) }],
      }));
    }
    return JSON.stringify({ hooks });
  },
};

const native: DialectCase = {
  id: "native",
  file: ".agents/hooks.json",
  key: Object.fromEntries(
    [...Object.keys(CLAUDE_KEYS), "before_model", "after_model", "before_tool_selection"].map((k) => [k, k]),
  ),
  block: (event, reason) => ({ decision: event === "stop" ? "block" : "deny", reason }),
  context: (_event, text) => ({ additionalContext: text }),
  stop: (reason) => ({ continue: false, stopReason: reason }),
  allow: () => ({ decision: "allow" }),
  configure(rules, script) {
    const group: Record<string, unknown> = {};
    for (const [event, list] of Object.entries(rules)) {
      group[event] = list.map((rule) => ({
        matcher: rule.matcher ?? "",
        hooks: [{ type: "command", command: commandFor(script, rule) }],
      }));
    }
    return JSON.stringify({ gate: group });
  },
};

export const DIALECT_CASES: DialectCase[] = [
  claudeStyle("claude", ".claude/settings.json"),
  gemini,
  claudeStyle("qwen", ".qwen/settings.json"),
  native,
];

/**
 * A hook script that appends its stdin to events.jsonl and prints its answer (argv 1); with "once" it
 * answers only while stop_hook_active is false. Exit 2 with stderr when the answer is {"exit2": "..."}.
 */
export const ANSWER_PY = `import json, os, sys
data = json.load(sys.stdin)
with open(os.path.join(os.environ["GANTRY_PROJECT_DIR"], "events.jsonl"), "a") as log:
    log.write(json.dumps(data) + "\\n")
answer = json.loads(sys.argv[1])
if len(sys.argv) > 2 and sys.argv[2] == "once" and data.get("stop_hook_active"):
    answer = {}
if isinstance(answer, dict) and "exit2" in answer:
    sys.stderr.write(answer["exit2"])
    sys.exit(2)
if answer is not None:
    print(json.dumps(answer) if not isinstance(answer, str) else answer)
`;

function commandFor(script: string, rule: HookRule): string {
  const answer = JSON.stringify(rule.answer ?? null).replaceAll("'", "'\\''");
  return `python3 "$GANTRY_PROJECT_DIR/${script}" '${answer}'${rule.once ? " once" : ""}`;
}

export interface HookRun {
  ws: TempWorkspace;
  server: ModelServer;
  code: number | null;
  stdout: string;
  stderr: string;
  /** Every hook's stdin, in order. */
  events(): Record<string, unknown>[];
  /** The model requests' text (what reached the model). */
  requests(): string[];
  result(): Record<string, unknown>;
}

export interface HookRunOptions {
  dialect: DialectCase;
  rules: Partial<Record<EventName, HookRule[]>>;
  turns: ScriptedTurn[];
  prompt?: string;
  files?: Record<string, string>;
  extra?: string[];
}

const SCRIPT = ".agents/hooks-scripts/answer.py";

/** Starts a scripted model server and runs `gantry -p` in a workspace holding the dialect's hooks. */
export async function runWithHooks(options: HookRunOptions): Promise<HookRun> {
  const { dialect } = options;
  const ws = await createTempWorkspace({
    [SCRIPT]: ANSWER_PY,
    [dialect.file]: dialect.configure(options.rules, SCRIPT),
    ...options.files,
  });
  const server = await startModelServer(options.turns);
  const run = await runGantry(
    [
      "-p",
      options.prompt ?? "Do the task",
      "--model",
      "openai:test-model",
      "--base-url",
      server.baseUrl("openai"),
      "--workspace",
      ws.root,
      "--output-format",
      "json",
      // the hooks are the workspace's: they run once the folder is trusted
      "--trust",
      ...(options.extra ?? []),
    ],
    { env: { HOME: ws.home, OPENAI_API_KEY: "test-key", GANTRY_RETRY_BASE_MS: "0" }, timeoutMs: 60_000 },
  );
  return {
    ws,
    server,
    code: run.code,
    stdout: run.stdout,
    stderr: run.stderr,
    events() {
      try {
        return readFileSync(path.join(ws.root, "events.jsonl"), "utf8")
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Record<string, unknown>);
      } catch {
        return [];
      }
    },
    requests: () => server.requests.map((request) => request.text),
    result: () => JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>,
  };
}

/** The events of one kind a run's hooks saw, whatever the dialect calls it. */
export function eventsNamed(run: HookRun, dialect: DialectCase, event: EventName): Record<string, unknown>[] {
  return run.events().filter((e) => e.hook_event_name === dialect.key[event]);
}
