import { CLAUDE_TOOLS, GEMINI_TOOLS, QWEN_TOOLS } from "../hooks/dialects/tool-tables.js";

/**
 * Tool names agent files use, in every harness's words (Claude Code's, Gemini CLI's, Qwen Code's), mapped
 * to Gantry's tools. A name here may stand for several tools (Claude's `Edit`, Gemini's `replace`).
 */
const GROUPS: Record<string, readonly string[]> = {
  // Claude Code's groups as its agent files mean them (SPEC §5)
  Read: ["view_file", "list_dir"],
  Edit: ["replace_file_content", "multi_replace_file_content", "write_to_file"],
  Bash: ["run_command", "manage_task"],
  BashOutput: ["manage_task"],
  KillShell: ["manage_task"],
  KillBash: ["manage_task"],
  // Claude Code's background-task tools since BashOutput and KillShell (Qwen Code's mirror them)
  TaskOutput: ["manage_task"],
  TaskStop: ["manage_task"],
  task_output: ["manage_task"],
  task_stop: ["manage_task"],
  // to-do lists, by every name the harnesses have had: Gantry's plan is update_plan
  TodoWrite: ["update_plan"],
  TaskCreate: ["update_plan"],
  TaskGet: ["update_plan"],
  TaskList: ["update_plan"],
  TaskUpdate: ["update_plan"],
  task_create: ["update_plan"],
  task_get: ["update_plan"],
  task_list: ["update_plan"],
  task_update: ["update_plan"],
  Agent: ["agent"],
  // Gemini CLI's agent tool
  invoke_agent: ["agent"],
  // the shells' background tasks are manage_task's in Gantry
  run_shell_command: ["run_command", "manage_task"],
  Shell: ["run_command", "manage_task"],
  // names older Gemini CLI and Qwen Code versions used (Qwen Code's display names among them)
  search_file_content: ["grep_search"],
  SearchFiles: ["grep_search"],
  FindFiles: ["find_by_name"],
  ReadFolder: ["list_dir"],
  ls: ["list_dir"],
  task: ["agent"],
  replace: ["replace_file_content", "multi_replace_file_content"],
  edit: ["replace_file_content", "multi_replace_file_content"],
};

/**
 * Tools those harnesses have and Gantry does not (notebooks, memory, plan mode, skills, MCP resources,
 * language servers, cron, worktree switching): an agent file naming them still loads, the subagent is
 * told they are not available here, and `gantry agents` lists them. Claude Code's names are its tools
 * reference's, Gemini CLI's its ALL_BUILTIN_TOOL_NAMES, Qwen Code's its ToolNames and display names.
 */
export const TOOLS_WITHOUT_GANTRY_COUNTERPART = new Set([
  // Claude Code
  ...["TodoRead", "NotebookEdit", "NotebookRead", "ExitPlanMode", "EnterPlanMode", "Skill", "SlashCommand"],
  ...["ListMcpResourcesTool", "ReadMcpResourceTool", "LSP", "Monitor", "CronCreate", "CronDelete"],
  ...["CronList", "EnterWorktree", "ExitWorktree", "ToolSearch", "Artifact", "PowerShell"],
  // Gemini CLI
  ...["save_memory", "read_many_files", "activate_skill", "exit_plan_mode", "enter_plan_mode"],
  ...["get_internal_docs", "complete_task", "update_topic", "read_mcp_resource", "list_mcp_resources"],
  ...["tracker_create_task", "tracker_update_task", "tracker_get_task", "tracker_list_tasks"],
  ...["tracker_add_dependency", "tracker_visualize"],
  // Qwen Code (its ids, then its display names)
  ...["skill", "lsp", "SaveMemory", "Lsp", "ReadManyFiles"],
]);

/** Gemini CLI's tools from its discovery command (`discovered_tool_<name>`): none are discovered here. */
const DISCOVERED_TOOL = /^discovered_tool_/;

const DIALECT_NAMES: Record<string, string[]> = (() => {
  const names: Record<string, string[]> = {};
  for (const table of [CLAUDE_TOOLS, GEMINI_TOOLS, QWEN_TOOLS]) {
    for (const [gantry, tool] of Object.entries(table)) {
      for (const name of [tool.name, ...(tool.aliases ?? [])])
        names[name] = [...new Set([...(names[name] ?? []), gantry])];
    }
  }
  return names;
})();

/**
 * The Gantry tools an agent file's tool name stands for: a group or a dialect's name, else the name
 * itself (a Gantry tool or alias, resolved by the registry). `Task(worker)`/`Agent(a, b)` name the agent tool.
 */
export function gantryToolsFor(entry: string): { tools: readonly string[]; dialectName: boolean } {
  const name = /^(Task|Agent)\(.*\)$/.test(entry) ? entry.slice(0, entry.indexOf("(")) : entry;
  const mapped = GROUPS[name] ?? DIALECT_NAMES[name];
  if (mapped) return { tools: mapped, dialectName: true };
  return {
    tools: [name],
    dialectName: TOOLS_WITHOUT_GANTRY_COUNTERPART.has(name) || DISCOVERED_TOOL.test(name),
  };
}
