import type { ToolResult } from "../contract.js";

/**
 * What a run_command result says the command printed: its text without the first line ("Exit code 0
 * after 0.1s."); standard error comes merged into it, as in a terminal. A command still running in the
 * background has only its output so far, and no such line.
 */
export function commandOutput(result: ToolResult): string {
  if (!("exitCode" in result.metadata)) return result.text;
  const newline = result.text.indexOf("\n");
  return newline < 0 ? "" : result.text.slice(newline + 1);
}
