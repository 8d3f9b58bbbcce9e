import type { StyleName, Theme } from "./style.js";
import { classifyDiffLines, type DiffLineKind, describeTarget } from "./tool-lines.js";

/**
 * One line saying what a tool call will do, for the approval dialog (in place of its argument JSON):
 * `Run a command: npm test`, `Edit src/app.ts: use port 8080`, `Fetch https://example.com`.
 */
export function summarizeCall(tool: string, args: Record<string, unknown>, workspaceRoot: string): string {
  const text = (key: string) => (typeof args[key] === "string" ? (args[key] as string) : "");
  const target = describeTarget(tool, args, workspaceRoot);
  switch (tool) {
    case "run_command": {
      const cwd = describeTarget(tool, { DirectoryPath: text("Cwd") }, workspaceRoot);
      const where = cwd !== "" && cwd !== "." ? ` (in ${cwd})` : "";
      return `Run a command: ${oneLine(text("CommandLine"))}${where}`;
    }
    case "write_to_file": {
      const lines = text("CodeContent").split("\n").length;
      const how = args.Overwrite === true ? "Overwrite" : "Create";
      return `${how} ${target} (${lines} line${lines === 1 ? "" : "s"})${describe(text("Description"))}`;
    }
    case "replace_file_content":
      return `Edit ${target}${describe(text("Instruction") || text("Description"))}`;
    case "multi_replace_file_content": {
      const chunks = Array.isArray(args.ReplacementChunks) ? args.ReplacementChunks.length : 0;
      return `Edit ${target} in ${chunks} place${chunks === 1 ? "" : "s"}${describe(text("Instruction"))}`;
    }
    case "delete_file":
      return `Delete ${target}`;
    case "read_url_content":
      return `Fetch ${text("Url")}`;
    case "search_web":
      return `Search the web for "${text("query")}"`;
    case "ask_permission":
      return `Allow ${text("Action")}(${text("Target")})${describe(text("Reason"))}`;
    case "manage_task":
      return `${text("Action")} task ${text("TaskId")}`.trim();
    case "schedule":
      return `Schedule a prompt: ${oneLine(text("Prompt"))}`;
    case "agent":
      return `Start an agent: ${oneLine(text("description") || text("prompt"))}`;
    default:
      return target ? `${tool} ${target}` : tool;
  }
}

function describe(text: string): string {
  return text.trim() === "" ? "" : `: ${oneLine(text)}`;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

const DIFF_STYLE: Record<DiffLineKind, StyleName | undefined> = {
  added: "green",
  removed: "red",
  hunk: "cyan",
  header: "gray",
  context: undefined,
};

/** A unified diff as coloured lines, cut after `maxLines` with a note of what was left out. */
export function paintDiff(diff: string, theme: Theme, indent: string, maxLines: number): string[] {
  const lines = classifyDiffLines(diff);
  const shown = lines
    .slice(0, maxLines)
    .map(({ kind, text }) => theme.paint(DIFF_STYLE[kind], `${indent}${text}`));
  if (lines.length > maxLines)
    shown.push(theme.paint("gray", `${indent}… ${lines.length - maxLines} more lines`));
  return shown;
}
