import { realpathSync } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";
import { defineTool, errorResult, okResult, type ToolResult } from "../contract.js";
import type { RenderedOutput } from "./output-buffer.js";
import type { ExitStatus } from "./process-tree.js";
import { delay, type RunningCommand } from "./running-command.js";
import type { ExecRuntime } from "./runtime.js";
import { describeExit, formatDuration } from "./tasks.js";
import type { TerminalPool } from "./terminals.js";

export const RunCommandArgs = lazySchema(() =>
  z.object({
    CommandLine: z.string().min(1).describe("The bash command line to run."),
    Cwd: z
      .string()
      .describe(
        "Folder to run in: absolute, or relative to the workspace root; it must lie inside the workspace. With RunPersistent it is used only when the terminal is created; later calls run where the last one left off.",
      ),
    WaitMsBeforeAsync: z
      .number()
      .int()
      .min(0)
      .describe(
        "Milliseconds to wait for the command to finish. Past it the command keeps running as a background task (see manage_task). 0 starts it in the background at once with its standard input open, for manage_task send_input (any other value gives it an empty standard input). A foreground wait longer than the session's command timeout (default 2 minutes) ends the command at the timeout.",
      ),
    RunPersistent: z
      .boolean()
      .optional()
      .describe(
        "Run in a persistent shell that keeps its working directory and exported variables between calls (standard input of each command is empty).",
      ),
    RequestedTerminalID: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, "letters, digits, '_', '.', '-' (at most 64)")
      .optional()
      .describe('Id of the persistent terminal to use or create (implies RunPersistent; default "default").'),
  }),
);
type RunCommandInput = z.infer<ReturnType<typeof RunCommandArgs>>;

/** Characters kept back from the output budget for the status lines around the output. */
const HEADER_RESERVE = 600;
const PROGRESS_INTERVAL_MS = 250;
const PROGRESS_CHARS = 2_000;

export function createRunCommandTool(runtime: ExecRuntime, terminals: TerminalPool) {
  // the folder the policy judged a call's relative paths against (a terminal's may move before it runs)
  const judgedFolders = new WeakMap<object, string | null>();
  return defineTool({
    spec: {
      name: "run_command",
      description:
        "Runs a bash command in the workspace. It returns the exit code and output if the command finishes within WaitMsBeforeAsync; otherwise it continues as a background task whose TaskId you manage with manage_task (status, send_input, kill). Standard input is empty (a command reading it gets end-of-input at once), except for a command started with WaitMsBeforeAsync 0, whose input stays open for send_input. Escape sequences are stripped; long output shows head and tail, with the full output in a log file you can read with view_file.",
      parameters: RunCommandArgs,
      safety: "execute",
      group: "Command",
      aliases: ["code_execution", "bash", "Bash"],
      output: { keep: "head_and_tail" },
      shellCommands(args) {
        const terminalId = terminalOf(args);
        const open = terminalId === undefined ? undefined : terminals.folderOf(terminalId);
        const folder = open !== undefined ? open : startFolder(runtime, args.Cwd);
        const home = terminalId === undefined ? undefined : terminals.homeOf(terminalId);
        const locationVariables =
          terminalId === undefined ? undefined : terminals.locationVariablesOf(terminalId);
        judgedFolders.set(args, folder);
        return [
          {
            commandLine: args.CommandLine,
            folders: folder === null ? [] : [folder],
            home,
            locationVariables,
          },
        ];
      },
    },
    async execute(args, ctx) {
      const cwd = await resolveFolder(runtime, args.Cwd);
      if (typeof cwd !== "string") return cwd;
      const terminalId = terminalOf(args);
      if (terminalId !== undefined && terminals.isBusy(terminalId)) {
        return errorResult(
          "conflict",
          `Terminal "${terminalId}" is still running a command (see manage_task list). Wait for it, kill its task, or name another RequestedTerminalID.`,
        );
      }
      if (terminalId !== undefined && judgedFolders.has(args)) {
        const now = terminals.folderOf(terminalId);
        const where = now === undefined ? cwd : now;
        if (where !== judgedFolders.get(args)) {
          return errorResult(
            "conflict",
            `Terminal "${terminalId}" moved to another folder (${where ?? "unknown"}) after this command was judged for its old one; run it again.`,
          );
        }
      }
      const startedAt = Date.now();
      let running: RunningCommand;
      try {
        running =
          terminalId !== undefined
            ? await terminals.run(terminalId, args.CommandLine, cwd)
            : // only a command sent to the background at once is meant to be fed (send_input); any other
              // reads end-of-input, so a foreground wait never blocks on a read of stdin
              await runtime.start(args.CommandLine, cwd, { input: args.WaitMsBeforeAsync === 0 });
      } catch (cause) {
        return errorResult("execution_failed", `Could not start the command: ${(cause as Error).message}`);
      }
      const progress = ctx.onUpdate ? reportProgress(running, ctx.onUpdate) : undefined;
      const outcome = await waitForOutcome(
        running,
        args.WaitMsBeforeAsync,
        runtime.settings.timeoutMs,
        ctx.signal,
      );
      if (progress) clearInterval(progress);
      const base = {
        cwd: runtime.workspace.relative(cwd) || ".",
        isolation: running.isolation,
        sandboxed: runtime.sandboxed,
        ...(terminalId !== undefined ? { terminalId } : {}),
      };
      if (outcome.kind === "background") {
        const task = runtime.tasks.add({ command: args.CommandLine, cwd, terminalId, startedAt, running });
        limitBackgroundTask(runtime, task.id);
        return backgroundResult(runtime, task.id, args, running, base);
      }
      if (outcome.kind !== "finished") {
        const exit = await running.kill(runtime.settings.killGraceMs);
        return endedEarlyResult(runtime, outcome.kind, args, running, exit, startedAt, base);
      }
      return finishedResult(runtime, running, outcome.exit, startedAt, base);
    },
  });
}

function terminalOf(args: RunCommandInput): string | undefined {
  const persistent = args.RunPersistent === true || args.RequestedTerminalID !== undefined;
  return persistent ? (args.RequestedTerminalID ?? "default") : undefined;
}

/** The real folder a new command starts in, as resolveFolder will find it (the guard refuses a bad one). */
function startFolder(runtime: ExecRuntime, input: string): string {
  const named = path.resolve(runtime.workspace.root, input === "" ? "." : input);
  try {
    return realpathSync(named);
  } catch {
    return named;
  }
}

export async function resolveFolder(runtime: ExecRuntime, input: string): Promise<string | ToolResult> {
  const resolved = await runtime.workspace.resolve(input === "" ? "." : input);
  if (!resolved.ok) return errorResult(resolved.error.code, `Cwd: ${resolved.error.message}`);
  const info = await stat(resolved.path.abs).catch(() => undefined);
  if (!info) return errorResult("not_found", `Cwd "${input}" does not exist.`);
  if (!info.isDirectory()) return errorResult("not_a_directory", `Cwd "${input}" is not a folder.`);
  return resolved.path.abs;
}

type Outcome = { kind: "finished"; exit: ExitStatus } | { kind: "background" | "timeout" | "aborted" };

function waitForOutcome(
  running: RunningCommand,
  waitMs: number,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<Outcome> {
  return new Promise((resolve) => {
    const timer = setTimeout(
      () => finish({ kind: waitMs < timeoutMs ? "background" : "timeout" }),
      Math.min(waitMs, timeoutMs),
    );
    const onAbort = () => finish({ kind: "aborted" });
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
    void running.finished.then((exit) => finish({ kind: "finished", exit }));
    function finish(outcome: Outcome) {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(outcome);
    }
  });
}

/** Partial output for a UI while the call waits: the latest output, when it changed. */
function reportProgress(running: RunningCommand, onUpdate: (partial: string) => void) {
  let lastTotal = 0;
  return setInterval(() => {
    if (running.capture.totalChars === lastTotal) return;
    lastTotal = running.capture.totalChars;
    onUpdate(running.capture.latest(PROGRESS_CHARS));
  }, PROGRESS_INTERVAL_MS);
}

function limitBackgroundTask(runtime: ExecRuntime, taskId: string): void {
  const limit = runtime.settings.backgroundTimeoutMs;
  const task = runtime.tasks.get(taskId);
  if (limit <= 0 || !task) return;
  const timer = setTimeout(
    () => void runtime.tasks.end(task, "timed_out", runtime.settings.killGraceMs),
    limit,
  );
  void task.running.finished.then(() => clearTimeout(timer));
}

function outputBudget(runtime: ExecRuntime): number {
  return Math.max(1_000, runtime.workspace.limits.maxOutputChars - HEADER_RESERVE);
}

/** The output block and the facts about it (truncation, total size, where the full log is). */
export function outputSection(rendered: RenderedOutput, running: RunningCommand, empty = "(no output)") {
  const { capture } = running;
  const lines = [rendered.text === "" ? empty : rendered.text.replace(/\n$/, "")];
  if (rendered.truncated) {
    const where = capture.logPath
      ? `the full output (${capture.totalBytes} bytes) is in ${capture.logPath}: page it with view_file instead of re-running the command`
      : "the full output could not be saved";
    lines.push(`[output truncated: ${rendered.omittedChars} characters omitted; ${where}]`);
  }
  const metadata = {
    truncated: rendered.truncated,
    totalBytes: capture.totalBytes,
    ...(capture.logPath ? { fullOutputPath: capture.logPath } : {}),
  };
  return { text: lines.join("\n"), metadata };
}

function finishedResult(
  runtime: ExecRuntime,
  running: RunningCommand,
  exit: ExitStatus,
  startedAt: number,
  base: Record<string, unknown>,
): ToolResult {
  const runtimeMs = Date.now() - startedAt;
  const output = outputSection(running.capture.render(outputBudget(runtime)), running);
  const header = `${capitalize(describeExit(exit))} after ${formatDuration(runtimeMs)}.`;
  return okResult(`${header}\n${output.text}`, {
    ...base,
    exitCode: exit.exitCode,
    signal: exit.signal,
    runtimeMs,
    ...output.metadata,
  });
}

function endedEarlyResult(
  runtime: ExecRuntime,
  kind: "timeout" | "aborted",
  args: RunCommandInput,
  running: RunningCommand,
  exit: ExitStatus,
  startedAt: number,
  base: Record<string, unknown>,
): ToolResult {
  const runtimeMs = Date.now() - startedAt;
  const output = outputSection(running.capture.render(outputBudget(runtime)), running);
  const why =
    kind === "timeout"
      ? `Timed out after ${formatDuration(runtime.settings.timeoutMs)}: the command and every process it started were ended. For long commands use a WaitMsBeforeAsync below the timeout so they continue as a background task.`
      : "Aborted: the command and every process it started were ended.";
  const persistentNote =
    args.RunPersistent || args.RequestedTerminalID ? " Its persistent terminal was closed too." : "";
  return errorResult(kind, `${why}${persistentNote}\n${output.text}`, {
    ...base,
    exitCode: exit.exitCode,
    signal: exit.signal,
    runtimeMs,
    ...output.metadata,
  });
}

async function backgroundResult(
  runtime: ExecRuntime,
  taskId: string,
  args: RunCommandInput,
  running: RunningCommand,
  base: Record<string, unknown>,
): Promise<ToolResult> {
  await delay(0);
  const output = outputSection(running.capture.render(outputBudget(runtime)), running, "(no output yet)");
  running.capture.markSeen();
  const input = running.acceptsInput ? " feed its standard input with send_input," : "";
  const text = [
    `Still running after ${formatDuration(args.WaitMsBeforeAsync)}: continues as background task ${taskId}.`,
    `Use manage_task with TaskId "${taskId}": status for new output,${input} kill to end it.`,
    "Output so far:",
    output.text,
  ].join("\n");
  return okResult(text, { ...base, taskId, state: "running", ...output.metadata });
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
