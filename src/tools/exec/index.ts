import { withReadRules } from "../../policy/read-visibility.js";
import type { AnyTool } from "../contract.js";
import type { ToolEnvironment } from "../environment.js";
import { createManageTaskTool } from "./manage-task.js";
import { createRunCommandTool } from "./run-command.js";
import { createExecRuntime } from "./runtime.js";
import { createScheduleBook, createScheduleTool } from "./schedule.js";
import { createTerminalPool } from "./terminals.js";

/** run_command, manage_task and schedule for one session; everything they start ends with the session. */
export function createExecTools(env: ToolEnvironment): AnyTool[] {
  // in the sandbox, files a Read deny rule covers are as unreadable as secrets (looked up per command)
  const hidden = () => withReadRules(env.permissions, "view_file", env.workspace.secrets).guard;
  const runtime = createExecRuntime(env.workspace, env.settings, env.home, env.sessionVariables, hidden);
  const terminals = createTerminalPool(runtime);
  const schedules = createScheduleBook(runtime, env.inbox);
  env.lifecycle.countBackground?.(
    "tasks",
    () => runtime.tasks.list().filter((task) => task.state === "running").length,
  );
  env.lifecycle.countBackground?.(
    "schedules",
    () => schedules.list().filter((entry) => entry.state === "active").length,
  );
  env.lifecycle.onDispose(async () => {
    schedules.dispose();
    await runtime.dispose();
  });
  return [
    createRunCommandTool(runtime, terminals),
    createManageTaskTool(runtime, schedules, terminals),
    createScheduleTool(schedules, env.workspace.root),
  ];
}
