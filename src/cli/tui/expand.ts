import type { Theme } from "./style.js";
import { wrapText } from "./text-width.js";
import { formatCallLine } from "./tool-lines.js";
import type { FinishedCall } from "./transcript.js";

/** Lines of one call's output shown by Ctrl-O; the session file keeps all of it. */
const MAX_LINES = 400;

/** Ctrl-O: the whole output of the calls since the last expansion, each under its tool line. */
export function expandedOutput(calls: readonly FinishedCall[], theme: Theme, width: number): string[] {
  if (calls.length === 0) return [theme.paint("gray", "(no tool output to show since the last ctrl+o)")];
  return calls.flatMap(({ view, result }) => {
    const header = theme.paint(result.error ? "red" : "bold", `── ${formatCallLine(view)} ──`);
    const lines = wrapText(result.text.replace(/\n$/, ""), width - 2);
    const shown = lines.slice(0, MAX_LINES).map((line) => `  ${line}`);
    if (lines.length > MAX_LINES)
      shown.push(
        theme.paint("gray", `  … ${lines.length - MAX_LINES} more lines (all of it is in the session file)`),
      );
    return [header, ...shown];
  });
}
