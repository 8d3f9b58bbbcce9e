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
  Agent: ["agent"],
  // the shells' background tasks are manage_task's in Gantry
  run_shell_command: ["run_command", "manage_task"],
  Shell: ["run_command", "manage_task"],
  // names older Gemini CLI and Qwen Code versions used
  search_file_content: ["grep_search"],
  ls: ["list_dir"],
  task: ["agent"],
  replace: ["replace_file_content", "multi_replace_file_content"],
  edit: ["replace_file_content", "multi_replace_file_content"],
};

/**
 * Tools those harnesses have and Gantry does not (to-do lists, notebooks, memory, plan mode, skills):
 * an agent file naming them still loads, and the subagent is told they are not available here.
 */
export const TOOLS_WITHOUT_GANTRY_COUNTERPART = new Set([
  "TodoWrite",
  "TodoRead",
  "NotebookEdit",
  "NotebookRead",
  "ExitPlanMode",
  "EnterPlanMode",
  "Skill",
  "SlashCommand",
  "ListMcpResourcesTool",
  "ReadMcpResourceTool",
  "write_todos",
  "todo_write",
  "save_memory",
  "read_many_files",
  "activate_skill",
  "skill",
  "exit_plan_mode",
  "enter_plan_mode",
  "get_internal_docs",
  "complete_task",
  "update_topic",
  "lsp",
  "task_create",
  "task_get",
  "task_list",
  "task_update",
  "task_stop",
  "task_output",
]);

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
  return { tools: [name], dialectName: TOOLS_WITHOUT_GANTRY_COUNTERPART.has(name) };
}
