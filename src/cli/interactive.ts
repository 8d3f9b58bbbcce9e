import { homedir } from "node:os";
import { PassThrough } from "node:stream";
import { distance } from "fastest-levenshtein";
import type { AgentEvent } from "../agent/events.js";
import { type Asker, createHeadlessAsker } from "../policy/asker.js";
import type { ApprovalMode } from "../policy/modes.js";
import { createTerminalAsker } from "../policy/terminal-asker.js";
import { askTrustIfNeeded } from "../trust/question.js";
import {
  type AgentSession,
  type AgentSessionSetup,
  approvalModeOption,
  maxTurnsOption,
  openAgentSession,
} from "./agent-session.js";
import { workspaceRootOf } from "./commands/workspace-root.js";
import { type GlobalOptions, UsageError } from "./options.js";
import { cliTrustOption } from "./trust-option.js";
import { createDialogAsker, createDialogQueue, type DialogQueue } from "./tui/dialog-queue.js";
import { historyFile } from "./tui/history.js";
import { createRenderer, type Renderer } from "./tui/renderer.js";
import { replayPlain, startRepl, type TerminalAsks } from "./tui/repl.js";
import { createTheme, type Theme, wantsColor } from "./tui/style.js";

/**
 * `gantry` with no command: a conversation in the terminal, each prompt a turn of the same agent loop
 * as `gantry -p`, in one session file that `--continue` picks up later. On a terminal it is the full
 * terminal UI (tui/app.ts); in a pipe or with TERM=dumb, plain lines (tui/repl.ts).
 */
export async function run(
  positionals: string[],
  options: GlobalOptions,
  commandNames: readonly string[] = [],
): Promise<number> {
  const firstPrompt = firstPromptOf(positionals, commandNames);
  const approvalMode = approvalModeOption(options);
  const maxTurns = maxTurnsOption(options);
  const full = process.stdin.isTTY === true && process.stdout.isTTY === true && process.env.TERM !== "dumb";
  if (full) return runFullScreen(options, { approvalMode, maxTurns, firstPrompt });
  const asks = process.stdin.isTTY === true ? terminalAsks() : undefined;
  let renderer: Renderer | undefined;
  const opened = await openInteractiveSession(options, {
    ...(approvalMode ? { approvalMode } : {}),
    asker: asks?.asker ?? createHeadlessAsker(),
    onSubagentEvent: (event) => renderer?.event(event),
  });
  if ("error" in opened) {
    asks?.close();
    process.stderr.write(`gantry: ${opened.error}\n`);
    return 1;
  }
  try {
    renderer = createRenderer({
      write: (text) => void process.stdout.write(text),
      color: wantsColor(process.stdout, process.env),
      workspaceRoot: opened.session.workspace.root,
      groupOf: (name) => opened.session.registry.lookup(name)?.spec.group,
    });
    renderer.line(banner(opened), "dim");
    if (opened.conversation.messages.length > 0) replayPlain(opened.conversation.messages, renderer);
    return await startRepl({
      agent: opened,
      renderer,
      tty: process.stdin.isTTY === true,
      ...(asks ? { asks } : {}),
      ...(maxTurns ? { maxTurns } : {}),
      ...(firstPrompt ? { firstPrompt } : {}),
    });
  } finally {
    asks?.close();
    await opened.close();
  }
}

/**
 * The one place an interactive session opens: the workspace-trust question first (SPEC §5a), then the
 * session. Errors (no model, unknown session) come back as `{ error }`.
 */
async function openInteractiveSession(
  options: GlobalOptions,
  setup: AgentSessionSetup,
): Promise<AgentSession | { error: string }> {
  // SPEC §5a: a folder whose configuration would enable something is asked about once, before anything runs
  if (process.stdin.isTTY === true && cliTrustOption(options.trust) === "recorded") {
    await askTrustIfNeeded(workspaceRootOf(options), homedir(), {
      input: process.stdin,
      output: process.stdout,
    });
  }
  return openAgentSession(options, setup);
}

async function runFullScreen(
  options: GlobalOptions,
  run: {
    approvalMode?: ApprovalMode | undefined;
    maxTurns?: number | undefined;
    firstPrompt?: string | undefined;
  },
): Promise<number> {
  const theme: Theme = createTheme(wantsColor(process.stdout, process.env), true);
  const dialogs: DialogQueue = createDialogQueue();
  let root = process.cwd();
  let savedTo = "";
  let forward: (event: AgentEvent) => void = () => {};
  const opened = await openInteractiveSession(options, {
    ...(run.approvalMode ? { approvalMode: run.approvalMode } : {}),
    asker: createDialogAsker(dialogs, {
      theme,
      workspaceRoot: () => root,
      rows: () => process.stdout.rows || 24,
      alwaysSavedTo: () => savedTo,
    }),
    onSubagentEvent: (event) => forward(event),
  });
  if ("error" in opened) {
    process.stderr.write(`gantry: ${opened.error}\n`);
    return 1;
  }
  root = opened.session.workspace.root;
  savedTo = opened.session.permissions.alwaysAnswers.shown;
  try {
    // the UI (Markdown, highlighting, the renderer) loads only here, never for other commands
    const { runTui } = await import("./tui/app.js");
    const { createProcessTerminal } = await import("./tui/terminal.js");
    return await runTui({
      agent: opened,
      terminal: createProcessTerminal(),
      theme,
      dialogs,
      historyFile: historyFile(homedir(), root),
      banner: banner(opened),
      subscribeSubagents: (listener) => {
        forward = listener;
      },
      ...(run.maxTurns ? { maxTurns: run.maxTurns } : {}),
      ...(run.firstPrompt ? { firstPrompt: run.firstPrompt } : {}),
    });
  } finally {
    await opened.close();
  }
}

/** `gantry fix the bug` or `gantry "fix the bug"`: the first prompt; a near-miss of a command is a usage error. */
function firstPromptOf(positionals: string[], commandNames: readonly string[]): string | undefined {
  if (positionals.length === 0) return undefined;
  const [first = ""] = positionals;
  if (positionals.length === 1 && /^[a-z]+$/.test(first)) {
    const near = [...commandNames]
      .sort((a, b) => distance(a, first) - distance(b, first))
      .find((name) => distance(name, first) <= 2);
    if (near)
      throw new UsageError(
        `unknown command "${first}" (did you mean "${near}"?); to send it as a prompt, quote it with more words`,
      );
  }
  return positionals.join(" ");
}

function banner(agent: AgentSession): string {
  const resumed = agent.conversation.messages.length > 0 ? ", resumed" : "";
  return `gantry · ${agent.model.id} · session ${agent.writer.id}${resumed} · /help for commands`;
}

/**
 * Plain lines on a terminal (TERM=dumb): the numbered asker reads its answers from a stream the REPL
 * feeds, so stdin has one reader; while an ask is open the next line typed goes to it.
 */
function terminalAsks(): TerminalAsks & { asker: Asker; close(): void } {
  const input = new PassThrough();
  const terminal = createTerminalAsker({ input, output: process.stderr });
  let open = 0;
  const during = async <T>(ask: () => Promise<T>): Promise<T> => {
    open++;
    try {
      return await ask();
    } finally {
      open--;
    }
  };
  return {
    asker: {
      kind: "terminal",
      askPermission: (request, signal) => during(() => terminal.askPermission(request, signal)),
      askQuestions: (questions, signal) => during(() => terminal.askQuestions(questions, signal)),
    },
    get asking() {
      return open > 0;
    },
    answer: (line) => void input.write(`${line}\n`),
    close: () => terminal.close(),
  };
}
