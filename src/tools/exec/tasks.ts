import type { ExitStatus } from "./process-tree.js";
import type { RunningCommand } from "./running-command.js";

export type TaskState = "running" | "exited" | "killed" | "timed_out";

/** A command that outlived its WaitMsBeforeAsync and runs on in the background. */
export interface CommandTask {
  readonly id: string;
  readonly command: string;
  readonly cwd: string;
  readonly terminalId?: string;
  readonly startedAt: number;
  readonly running: RunningCommand;
  state: TaskState;
  /** Everything written to its standard input so far (send_input), for judging what comes next. */
  inputSent: string;
  endedAt?: number;
  exit?: ExitStatus;
}

export interface TaskBook {
  /** Registers a running command as task `t<n>`; its state follows the command. */
  add(entry: {
    command: string;
    cwd: string;
    terminalId?: string;
    startedAt: number;
    running: RunningCommand;
  }): CommandTask;
  get(id: string): CommandTask | undefined;
  list(): CommandTask[];
  /** Ends a task's process tree, recording why. */
  end(task: CommandTask, reason: "killed" | "timed_out", graceMs: number): Promise<void>;
}

export function createTaskBook(): TaskBook {
  const tasks = new Map<string, CommandTask>();
  let counter = 0;
  return {
    add(entry) {
      counter++;
      const task: CommandTask = { ...entry, id: `t${counter}`, state: "running", inputSent: "" };
      tasks.set(task.id, task);
      void entry.running.finished.then((exit) => {
        task.exit = exit;
        task.endedAt = Date.now();
        if (task.state === "running") task.state = "exited";
      });
      return task;
    },
    get(id) {
      return tasks.get(id);
    },
    list() {
      return [...tasks.values()];
    },
    async end(task, reason, graceMs) {
      if (task.state !== "running") return;
      task.state = reason;
      await task.running.kill(graceMs);
    },
  };
}

/** "1.2s", "3m 4s", "1h 2m" */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
  return `${Math.floor(seconds / 3600)}h ${Math.floor((seconds % 3600) / 60)}m`;
}

export function describeExit(exit: ExitStatus | undefined): string {
  if (!exit) return "";
  if (exit.signal && exit.exitCode === null) return `killed by ${exit.signal}`;
  if (exit.signal) return `killed by ${exit.signal} (exit code ${exit.exitCode})`;
  return `exit code ${exit.exitCode}`;
}
