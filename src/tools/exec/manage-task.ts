import { readlinkSync } from "node:fs";
import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";
import { defineTool, errorResult, okResult, type ShellCommand, type ToolResult } from "../contract.js";
import { descendantsOf } from "./process-tree.js";
import { outputSection } from "./run-command.js";
import { delay } from "./running-command.js";
import type { ExecRuntime } from "./runtime.js";
import { describeSchedule, type ScheduleBook } from "./schedule.js";
import { type CommandTask, describeExit, formatDuration } from "./tasks.js";
import type { TerminalPool } from "./terminals.js";

export const ManageTaskArgs = lazySchema(() =>
  z.object({
    Action: z
      .enum(["list", "kill", "status", "send_input"])
      .describe(
        "list: every background task and schedule; status: a task's state and its output since you last looked; kill: end a task's whole process tree or cancel a schedule; send_input: write Input to a task's standard input.",
      ),
    TaskId: z
      .string()
      .optional()
      .describe('The task ("t1") or schedule ("s1"); needed by kill, status and send_input.'),
    Input: z
      .string()
      .optional()
      .describe(
        'For send_input: the text written to standard input, exactly as given (end it with "\\n" to press Enter; a final "\\u0004" closes the input, like Ctrl-D).',
      ),
  }),
);
type ManageTaskInput = z.infer<ReturnType<typeof ManageTaskArgs>>;

/** How long send_input waits for the task to answer before returning. */
const REPLY_WAIT_MS = 300;
/** Input kept per task for judging later input; past it the folder the task's shell is in counts as unknown. */
const MAX_INPUT_KEPT = 256 * 1024;

export function createManageTaskTool(runtime: ExecRuntime, schedules: ScheduleBook, terminals: TerminalPool) {
  // the unfinished line the policy judged new input after: another send in between would change it
  const judgedTails = new WeakMap<object, string>();
  return defineTool({
    spec: {
      name: "manage_task",
      description:
        "Manages background tasks started by run_command and schedules set by schedule: list them, read a task's new output (status), write to its standard input (send_input), or end it (kill).",
      parameters: ManageTaskArgs,
      safety: "execute",
      group: "Command",
      shellCommands(args) {
        const task = args.Action === "send_input" && args.TaskId ? runtime.tasks.get(args.TaskId) : undefined;
        if (!task || args.Input === undefined || task.state !== "running" || !task.running.acceptsInput)
          return [];
        const tail = unfinishedLine(task);
        judgedTails.set(args, tail);
        return [inputAsCommand(task, tail + withoutEndOfInput(args.Input))];
      },
    },
    async execute(args) {
      if (args.Action === "list") return listResult(runtime, schedules, terminals);
      if (!args.TaskId) return errorResult("invalid_arguments", `manage_task ${args.Action} needs a TaskId.`);
      const schedule = schedules.get(args.TaskId);
      if (schedule) {
        if (args.Action === "kill") {
          const cancelled = schedules.cancel(schedule.id);
          const text = cancelled
            ? `Cancelled ${describeSchedule(schedule)}`
            : `Schedule ${schedule.id} was already ${schedule.state}.`;
          return okResult(text, { scheduleId: schedule.id, state: schedule.state });
        }
        if (args.Action === "status")
          return okResult(describeSchedule(schedule), { scheduleId: schedule.id, state: schedule.state });
        return errorResult("invalid_arguments", `${schedule.id} is a schedule; it takes no input.`);
      }
      const task = runtime.tasks.get(args.TaskId);
      if (!task) {
        const known = [...runtime.tasks.list().map((t) => t.id), ...schedules.list().map((s) => s.id)];
        return errorResult(
          "not_found",
          `No task or schedule "${args.TaskId}". Known: ${known.length > 0 ? known.join(", ") : "none"}.`,
        );
      }
      if (args.Action === "kill") return killResult(runtime, task);
      if (args.Action === "send_input") {
        if (judgedTails.has(args) && judgedTails.get(args) !== unfinishedLine(task)) {
          return errorResult(
            "conflict",
            `Task ${task.id} received other input after this call was judged; send it again.`,
          );
        }
        return sendInput(runtime, task, args);
      }
      return statusResult(runtime, task);
    },
  });
}

function listResult(runtime: ExecRuntime, schedules: ScheduleBook, terminals: TerminalPool): ToolResult {
  const tasks = runtime.tasks.list();
  const lines = tasks.map(
    (task) =>
      `${task.id} [${task.state}] ${formatDuration(runtimeOf(task))}${task.exit ? `, ${describeExit(task.exit)}` : ""}${task.terminalId ? `, terminal ${task.terminalId}` : ""}: ${oneLine(task.command)}`,
  );
  lines.push(...schedules.list().map(describeSchedule));
  const open = terminals.list();
  if (open.length > 0) lines.push(`Persistent terminals: ${open.join(", ")}`);
  const text = lines.length > 0 ? lines.join("\n") : "No background tasks or schedules.";
  return okResult(text, {
    tasks: tasks.map((task) => ({
      id: task.id,
      command: task.command,
      state: task.state,
      runtimeMs: runtimeOf(task),
      exitCode: task.exit?.exitCode ?? null,
      signal: task.exit?.signal ?? null,
    })),
    schedules: schedules.list().map((s) => ({ id: s.id, kind: s.kind, state: s.state, fired: s.fired })),
    terminals: open,
  });
}

function statusResult(runtime: ExecRuntime, task: CommandTask): ToolResult {
  const budget = Math.max(1_000, runtime.workspace.limits.maxOutputChars - 600);
  const fresh = task.running.capture.takeNew(budget);
  const output = outputSection(fresh, task.running, "(no new output)");
  const state =
    task.state === "running"
      ? `Task ${task.id} is running (${formatDuration(runtimeOf(task))}).`
      : `Task ${task.id} ${task.state === "exited" ? "finished" : task.state.replace("_", " ")}: ${describeExit(task.exit)}, after ${formatDuration(runtimeOf(task))}.`;
  const newLabel = fresh.truncated ? `New output (its last ${fresh.text.length} characters):` : "New output:";
  return okResult([state, newLabel, output.text].join("\n"), taskMetadata(task, output.metadata));
}

async function killResult(runtime: ExecRuntime, task: CommandTask): Promise<ToolResult> {
  if (task.state !== "running") {
    return okResult(
      `Task ${task.id} had already ended (${task.state}, ${describeExit(task.exit)}).`,
      taskMetadata(task),
    );
  }
  await runtime.tasks.end(task, "killed", runtime.settings.killGraceMs);
  const terminalNote = task.terminalId ? ` Its persistent terminal "${task.terminalId}" was closed.` : "";
  return okResult(
    `Killed task ${task.id} and every process it started (${describeExit(task.exit)}).${terminalNote}`,
    taskMetadata(task),
  );
}

async function sendInput(
  runtime: ExecRuntime,
  task: CommandTask,
  args: ManageTaskInput,
): Promise<ToolResult> {
  if (args.Input === undefined) return errorResult("invalid_arguments", "send_input needs Input.");
  if (task.state !== "running") return errorResult("conflict", `Task ${task.id} has ended (${task.state}).`);
  if (!task.running.acceptsInput) {
    const why = task.terminalId
      ? "commands in a persistent terminal read no standard input"
      : 'its standard input is closed (only a command started with WaitMsBeforeAsync 0 has one open for send_input, until an Input ending in "\\u0004" closes it)';
    return errorResult("conflict", `Task ${task.id} takes no input: ${why}.`);
  }
  const closes = args.Input.endsWith("\u0004");
  const text = withoutEndOfInput(args.Input);
  if (text !== "") task.running.write(text);
  task.inputSent += text;
  if (closes) task.running.closeInput();
  await Promise.race([task.running.finished, delay(REPLY_WAIT_MS)]);
  const status = statusResult(runtime, task);
  const sent = `Sent ${Buffer.byteLength(text)} bytes${closes ? " and closed standard input" : ""}.`;
  return { ...status, text: `${sent}\n${status.text}` };
}

function withoutEndOfInput(input: string): string {
  return input.endsWith("\u0004") ? input.slice(0, -1) : input;
}

/** What was sent after the last newline: the shell has not read it as a line yet. */
function unfinishedLine(task: CommandTask): string {
  return task.inputSent.slice(task.inputSent.lastIndexOf("\n") + 1);
}

/**
 * Input to a task is judged as a command line (SPEC §5), joined to the line it finishes, in every folder
 * the task's processes are in or its earlier `cd`s may have taken it; the task's own command rides along.
 */
function inputAsCommand(task: CommandTask, line: string): ShellCommand {
  const sent = task.inputSent.slice(0, task.inputSent.length - unfinishedLine(task).length);
  const known = task.inputSent.length <= MAX_INPUT_KEPT;
  const folders = known ? [task.cwd, ...processFolders(task.running.pid)] : [];
  return {
    commandLine: line,
    folders: [...new Set(folders)],
    earlier: [task.command, sent],
    feeds: { commandLine: task.command, folders: [task.cwd] },
  };
}

/** The real folders of a task's processes, where /proc tells. */
function processFolders(pid: number | undefined): string[] {
  if (pid === undefined || pid <= 0) return [];
  const folders: string[] = [];
  for (const each of [pid, ...descendantsOf(pid)]) {
    try {
      folders.push(readlinkSync(`/proc/${each}/cwd`));
    } catch {
      // ended, or not ours to read
    }
  }
  return folders;
}

function taskMetadata(task: CommandTask, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    taskId: task.id,
    state: task.state,
    exitCode: task.exit?.exitCode ?? null,
    signal: task.exit?.signal ?? null,
    runtimeMs: runtimeOf(task),
    ...(task.running.capture.logPath ? { fullOutputPath: task.running.capture.logPath } : {}),
    ...extra,
  };
}

function runtimeOf(task: CommandTask): number {
  return (task.endedAt ?? Date.now()) - task.startedAt;
}

function oneLine(text: string, max = 80): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
