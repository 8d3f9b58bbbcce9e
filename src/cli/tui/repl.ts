import { createInterface } from "node:readline";
import type { ConversationMessage } from "../../agent/conversation.js";
import type { AgentEvent } from "../../agent/events.js";
import type { AgentSession } from "../agent-session.js";
import { isSlashCommand, runSlashCommand } from "./commands.js";
import { watchInboxWhileIdle } from "./inbox-watch.js";
import type { Renderer } from "./renderer.js";
import { createUsageMeter } from "./usage-meter.js";

/** Asks that read their answer from the REPL's own lines (a terminal), so stdin has one reader. */
export interface TerminalAsks {
  readonly asking: boolean;
  answer(line: string): void;
}

export interface ReplOptions {
  agent: AgentSession;
  renderer: Renderer;
  /** A terminal: readline edits lines and shows the prompt; else lines are echoed as a transcript. */
  tty: boolean;
  asks?: TerminalAsks;
  maxTurns?: number;
  /** `gantry "<prompt>"`: the first line, before what stdin brings. */
  firstPrompt?: string;
}

/** What waits to run, in order: a line the user typed, or a notification in the session inbox. */
type Job = { kind: "line"; text: string } | { kind: "inbox" };

const PROMPT = "> ";

/**
 * Plain lines (a pipe, TERM=dumb), the read-run loop: lines queue up, one job runs at a time. Ctrl-C aborts a running turn; at an
 * empty prompt (or Ctrl-D, EOF, /exit) the session ends. Resolves with the exit code.
 */
export function startRepl(options: ReplOptions): Promise<number> {
  const { agent, renderer, tty } = options;
  const lines = createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: tty,
    prompt: PROMPT,
  });
  const jobs: Job[] = options.firstPrompt ? [{ kind: "line", text: options.firstPrompt }] : [];
  const usage = createUsageMeter();
  let running: AbortController | undefined;
  // a schedule or background agent that posts while the prompt waits starts a turn of its own
  const inboxWatch = watchInboxWhileIdle(agent.session.inbox, () => {
    if (tty) process.stdout.write("\n");
    jobs.push({ kind: "inbox" });
    pump();
  });
  let inputClosed = false;
  let finished = false;
  let resolveExit: (code: number) => void = () => {};
  const exited = new Promise<number>((resolve) => {
    resolveExit = resolve;
  });

  function pump(): void {
    if (running || finished) return;
    const job = jobs.shift();
    if (job) return void runJob(job);
    if (inputClosed) return finish(0);
    if (tty) lines.prompt();
    inboxWatch.start();
  }

  async function runJob(job: Job): Promise<void> {
    inboxWatch.stop();
    const controller = new AbortController();
    running = controller;
    try {
      if (job.kind === "inbox") await runTurn([], controller.signal);
      else await runLine(job.text, controller.signal);
    } catch (error) {
      renderer.line(`error: ${(error as Error).message}`, "red");
    } finally {
      running = undefined;
      pump();
    }
  }

  async function runLine(text: string, signal: AbortSignal): Promise<void> {
    if (text.trim() === "") return;
    if (!tty) renderer.line(`${PROMPT}${text}`, "bold");
    if (!isSlashCommand(text)) return runTurn([{ role: "user", text }], signal);
    const outcome = await runSlashCommand(text, {
      agent,
      print: (out) => renderer.line(out),
      usage,
      signal,
      onEvent,
      conversationChanged: (how) => {
        if (how === "resumed") replayPlain(agent.conversation.messages, renderer);
      },
    });
    if (outcome === "exit") endInput();
    // an MCP prompt: its text is the user's turn
    else if (typeof outcome === "object") await runTurn([{ role: "user", text: outcome.prompt }], signal);
  }

  function onEvent(event: AgentEvent): void {
    usage.record(event, agent.model.id);
    renderer.event(event);
  }

  async function runTurn(input: ConversationMessage[], signal: AbortSignal): Promise<void> {
    await agent.run(input, {
      signal,
      onEvent,
      ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
    });
  }

  function endInput(): void {
    jobs.length = 0;
    inputClosed = true;
    lines.close();
  }

  function interrupt(): void {
    if (running) {
      // a second Ctrl-C leaves at once, even if a tool ignores the abort
      if (running.signal.aborted) process.exit(130);
      running.abort(new Error("interrupted"));
      return;
    }
    if (tty && lines.line !== "") {
      lines.write(null, { ctrl: true, name: "u" });
      return;
    }
    if (tty) process.stdout.write("\n");
    endInput();
  }

  function finish(code: number): void {
    if (finished) return;
    finished = true;
    inboxWatch.stop();
    process.off("SIGINT", interrupt);
    process.off("SIGTERM", terminate);
    lines.close();
    resolveExit(code);
  }

  function terminate(): void {
    running?.abort(new Error("terminated"));
    endInput();
  }

  lines.on("line", (text) => {
    if (options.asks?.asking) return options.asks.answer(text);
    if (inputClosed) return;
    jobs.push({ kind: "line", text });
    pump();
  });
  lines.on("close", () => {
    inputClosed = true;
    pump();
  });
  // a terminal's readline turns Ctrl-C into this event; from a pipe the process gets the signal
  lines.on("SIGINT", interrupt);
  process.on("SIGINT", interrupt);
  process.on("SIGTERM", terminate);
  pump();
  return exited;
}

/** A resumed conversation as plain lines: each prompt and the answer it got. */
export function replayPlain(messages: readonly ConversationMessage[], renderer: Renderer): void {
  for (const message of messages) {
    if (message.role === "user" && message.source === undefined)
      renderer.line(`${PROMPT}${message.text}`, "bold");
    else if (message.role === "assistant" && message.text !== "") renderer.line(message.text);
    else if (message.role === "summary")
      renderer.line("(earlier turns were compacted into a summary)", "dim");
  }
  renderer.line("(end of the earlier conversation)", "dim");
}
