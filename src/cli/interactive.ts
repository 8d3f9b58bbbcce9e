import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { PassThrough } from "node:stream";
import { type Asker, createHeadlessAsker } from "../policy/asker.js";
import { createTerminalAsker } from "../policy/terminal-asker.js";
import { askTrustIfNeeded } from "../trust/question.js";
import { type AgentSession, approvalModeOption, maxTurnsOption, openAgentSession } from "./agent-session.js";
import { type GlobalOptions, UsageError } from "./options.js";
import { cliTrustOption } from "./trust-option.js";
import { createRenderer, type Renderer, wantsColor } from "./tui/renderer.js";
import { startRepl, type TerminalAsks } from "./tui/repl.js";

/**
 * `gantry` with no command: a line-oriented conversation in the terminal. Each line is a user turn
 * through the same agent loop as `gantry -p`, in one session file that `--continue` picks up later.
 */
export async function run(positionals: string[], options: GlobalOptions): Promise<number> {
  if (positionals.length > 0) throw new UsageError(`unknown command "${positionals[0]}"`);
  const approvalMode = approvalModeOption(options);
  const maxTurns = maxTurnsOption(options);
  const tty = process.stdin.isTTY === true;
  // SPEC §5a: a folder whose configuration would enable something is asked about once, before anything runs
  if (tty && cliTrustOption(options.trust) === "recorded") {
    await askTrustIfNeeded(workspaceRoot(options), homedir(), {
      input: process.stdin,
      output: process.stdout,
    });
  }
  const asks = tty ? terminalAsks() : undefined;
  let renderer: Renderer | undefined;
  const opened = await openAgentSession(options, {
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
    return await startRepl({
      agent: opened,
      renderer,
      tty,
      ...(asks ? { asks } : {}),
      ...(maxTurns ? { maxTurns } : {}),
    });
  } finally {
    asks?.close();
    await opened.close();
  }
}

function workspaceRoot(options: GlobalOptions): string {
  const folder = options.workspace ?? process.cwd();
  try {
    return realpathSync(folder);
  } catch {
    throw new UsageError(`workspace folder "${folder}" does not exist`);
  }
}

function banner(agent: AgentSession): string {
  const resumed = agent.conversation.messages.length > 0 ? ", resumed" : "";
  return `gantry · ${agent.model.id} · session ${agent.writer.id}${resumed} · /help for commands`;
}

/**
 * The terminal asker reads its answers from a stream the REPL feeds: one reader owns stdin, and
 * while an ask is open the next line typed goes to it instead of becoming a prompt.
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
