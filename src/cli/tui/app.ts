import type { ConversationMessage } from "../../agent/conversation.js";
import type { AgentEvent } from "../../agent/events.js";
import type { ApprovalMode } from "../../policy/modes.js";
import { commandsOf } from "../../slash-commands/run.js";
import type { AgentSession } from "../agent-session.js";
import { activityEvent, idleActivity, startActivity, stopActivity } from "./activity.js";
import {
  type CommandContext,
  isSlashCommand,
  runSlashCommand,
  SLASH_COMMANDS,
  setApprovalMode,
} from "./commands.js";
import { createFileIndex } from "./completion.js";
import type { DialogQueue } from "./dialog-queue.js";
import { expandedOutput } from "./expand.js";
import { composeFrame } from "./frame.js";
import { preloadHighlighter } from "./highlight.js";
import { openPromptHistory } from "./history.js";
import { createJobRunner, type Job } from "./jobs.js";
import type { Key } from "./keys.js";
import { createPromptInput, type PromptAction } from "./prompt-input.js";
import { replayConversation } from "./replay.js";
import { createScreen } from "./screen.js";
import type { Theme } from "./style.js";
import type { Terminal } from "./terminal.js";
import { wrapText } from "./text-width.js";
import { createTranscript } from "./transcript.js";
import { createUsageMeter } from "./usage-meter.js";

export interface TuiOptions {
  agent: AgentSession;
  terminal: Terminal;
  theme: Theme;
  dialogs: DialogQueue;
  historyFile: string;
  maxTurns?: number;
  /** `gantry "<prompt>"`: sent as soon as the UI is up. */
  firstPrompt?: string;
  banner: string;
  /** Where subagents' events come from (they carry their own agentId). */
  subscribeSubagents(listener: (event: AgentEvent) => void): void;
}

const BUSY_TICK_MS = 100;
const IDLE_TICK_MS = 1_000;

/**
 * The interactive terminal application: keys go to the prompt editor (or the dialog on screen), each
 * prompt is a turn of the agent loop, the loop's events feed the transcript (scrollback), the activity
 * (spinner) and the usage meter (footer), and a frame is drawn from that state. Resolves with the exit code.
 */
export function runTui(options: TuiOptions): Promise<number> {
  const { agent, terminal, theme, dialogs } = options;
  const root = agent.session.workspace.root;
  const groupOf = (name: string) => agent.session.registry.lookup(name)?.spec.group;
  const screen = createScreen(terminal);
  const transcript = createTranscript({ theme, width: () => terminal.columns, workspaceRoot: root, groupOf });
  const activity = idleActivity();
  const usage = createUsageMeter();
  const files = createFileIndex(agent.session.workspace);
  const input = createPromptInput({
    history: openPromptHistory(options.historyFile),
    files: () => files.paths,
    // custom commands complete too (those there when the session started; new ones still run)
    commands: { ...customCommandHelp(root), ...SLASH_COMMANDS },
  });
  const startMode = agent.session.permissions.mode;
  let finished = false;
  let renderQueued = false;
  let resolveExit: (code: number) => void = () => {};
  const exited = new Promise<number>((resolve) => {
    resolveExit = resolve;
  });
  const jobs = createJobRunner({
    inbox: agent.session.inbox,
    run: runJob,
    onError: (error) => print(theme.paint("red", `error: ${error.message}`)),
    onChange: requestRender,
    onIdle: () => {
      stopActivity(activity);
      files.refresh();
    },
  });

  function render(): void {
    renderQueued = false;
    if (finished) return;
    const width = terminal.columns;
    const frame = composeFrame(
      {
        growing: transcript.live(width),
        // a question on screen is what the turn waits for
        activity:
          dialogs.current && activity.startedAt !== undefined ? { ...activity, phase: "approval" } : activity,
        queued: jobs.queued,
        input: input.state,
        dialog: dialogs.current,
        footer: {
          model: agent.model.id,
          contextWindow: agent.model.contextWindow,
          mode: agent.session.permissions.mode,
          usage,
          background: agent.session.backgroundWork(),
        },
        now: Date.now(),
      },
      width,
      theme,
      transcript.takeCommits(),
    );
    screen.draw(frame);
  }
  function requestRender(): void {
    if (renderQueued || finished) return;
    renderQueued = true;
    setImmediate(render);
  }
  function print(text: string): void {
    transcript.print(wrapText(text, terminal.columns));
    requestRender();
  }

  function onEvent(event: AgentEvent): void {
    usage.record(event, agent.model.id);
    activityEvent(activity, event, Date.now(), { workspaceRoot: root, groupOf });
    transcript.event(event);
    requestRender();
  }

  async function runJob(job: Job, signal: AbortSignal): Promise<void> {
    startActivity(activity, Date.now());
    if (job.kind === "inbox") return runTurn([], signal);
    if (isSlashCommand(job.text)) return runCommand(job.text, signal);
    transcript.userPrompt(job.text);
    return runTurn([{ role: "user", text: job.text }], signal);
  }

  async function runTurn(messages: ConversationMessage[], signal: AbortSignal): Promise<void> {
    await agent.run(messages, {
      signal,
      onEvent,
      ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
    });
  }

  async function runCommand(line: string, signal: AbortSignal): Promise<void> {
    transcript.userPrompt(line);
    if (/^\/compact\b/.test(line.trim())) activity.phase = "compacting";
    const context: CommandContext = {
      agent,
      print,
      usage,
      signal,
      onEvent,
      pick: (title, choices) => dialogs.pick(title, choices),
      conversationChanged: (how) => {
        if (how === "cleared") print(theme.paint("gray", "── a new conversation ──"));
        else showResumed();
      },
    };
    const outcome = await runSlashCommand(line, context);
    if (outcome === "exit") finish(0);
    // an MCP prompt: its text is the user's turn
    else if (typeof outcome === "object") await runTurn([{ role: "user", text: outcome.prompt }], signal);
  }

  function showResumed(): void {
    const replay = createTranscript({ theme, width: () => terminal.columns, workspaceRoot: root, groupOf });
    const lines = replayConversation(agent.conversation.messages, replay, theme);
    transcript.print([
      theme.paint("gray", `── resumed session ${agent.writer.id} ──`),
      ...lines,
      theme.paint("gray", "── end of the earlier conversation ──"),
    ]);
    requestRender();
  }

  function interrupt(): void {
    const { outcome, queued } = jobs.interrupt();
    // a second interrupt leaves at once, even if a tool ignores the abort
    if (outcome === "again") return finish(130);
    // prompts typed during the turn come back to the editor instead of starting on their own
    if (queued.length > 0) input.restore(queued.join("\n"));
  }

  function cycleMode(): void {
    // yolo is in the cycle only for a session that started in it: one key must not switch every check off
    const modes: readonly ApprovalMode[] =
      startMode === "yolo" ? ["default", "auto-edit", "plan", "yolo"] : ["default", "auto-edit", "plan"];
    const current = agent.session.permissions.mode ?? "default";
    const next = modes[(modes.indexOf(current) + 1) % modes.length] ?? "default";
    setApprovalMode(agent, next);
  }

  function onAction(action: PromptAction): void {
    switch (action.type) {
      case "submit":
        return jobs.submit(action.text);
      case "interrupt":
        if (jobs.busy) return interrupt();
        if (!input.empty) return input.clear();
        return finish(0);
      case "escape":
        return interrupt();
      case "exit":
        if (!jobs.busy) finish(0);
        return;
      case "cycle-mode":
        return cycleMode();
      case "expand":
        transcript.print(expandedOutput(transcript.takeFinished(), theme, terminal.columns));
        return;
      case "redraw":
        screen.resized();
        return;
    }
  }

  function onKeys(keys: Key[]): void {
    for (const key of keys) {
      if (dialogs.current) dialogs.key(key);
      else {
        const action = input.key(key);
        if (action) onAction(action);
      }
    }
    requestRender();
  }

  function finish(code: number): void {
    if (finished) return;
    jobs.stop("the session ended");
    dialogs.cancelAll();
    render();
    finished = true;
    clearInterval(ticker);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", terminate);
    process.off("SIGHUP", terminate);
    screen.close();
    terminal.stop();
    resolveExit(code);
  }
  function terminate(): void {
    finish(143);
  }
  /** SIGINT from outside (kill -INT): as Ctrl-C. In raw mode the key itself arrives as input. */
  function onSignal(): void {
    if (jobs.busy) interrupt();
    else finish(0);
  }

  let tickCount = 0;
  const ticker = setInterval(() => {
    tickCount++;
    if (jobs.busy || dialogs.current || tickCount % (IDLE_TICK_MS / BUSY_TICK_MS) === 0) requestRender();
  }, BUSY_TICK_MS);

  dialogs.onChange(requestRender);
  options.subscribeSubagents(onEvent);
  void preloadHighlighter().then(requestRender);
  files.refresh();
  terminal.start(onKeys, () => {
    screen.resized();
    requestRender();
  });
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", terminate);
  process.on("SIGHUP", terminate);
  transcript.print([theme.paint("gray", options.banner)]);
  if (agent.conversation.messages.length > 0) showResumed();
  if (options.firstPrompt) {
    input.remember(options.firstPrompt);
    jobs.submit(options.firstPrompt);
  }
  jobs.start();
  return exited;
}

/** `/name` → its description, for completion. */
function customCommandHelp(root: string): Record<string, string> {
  const entries = commandsOf({ root }).commands.map((command) => [
    `/${command.name}`,
    command.description ??
      (command.argumentHint ? `/${command.name} ${command.argumentHint}` : "custom command"),
  ]);
  return Object.fromEntries(entries);
}
