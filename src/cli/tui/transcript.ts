import type { AgentEvent } from "../../agent/events.js";
import type { DisplayGroup, ToolResult } from "../../tools/contract.js";
import { createAnswerStream } from "./answer-stream.js";
import { paintDiff } from "./call-summary.js";
import { withControlsShown } from "./shown-text.js";
import type { Theme } from "./style.js";
import { wrapText } from "./text-width.js";
import { createThinkingLines } from "./thinking.js";
import {
  createCallViews,
  createToolLineGrouper,
  describeTarget,
  formatCallLine,
  isCollapsible,
  type ToolCallView,
} from "./tool-lines.js";

/**
 * The conversation as it goes to the scrollback: rendered answers, tool lines (reads and searches
 * collapsed with their names), diffs, command results with a short tail, errors. What is still
 * growing (the answer's last block, the open group of reads) is drawn live until it is final.
 */
export interface TranscriptOptions {
  theme: Theme;
  width(): number;
  workspaceRoot: string;
  groupOf(name: string): DisplayGroup | undefined;
}

/** A finished call, kept so Ctrl-O can show its whole output. */
export interface FinishedCall {
  view: ToolCallView;
  result: ToolResult;
}

const MAX_DIFF_LINES = 200;
const TAIL_LINES = 3;

export function createTranscript(options: TranscriptOptions) {
  const { theme } = options;
  const answer = createAnswerStream(theme, options.width);
  const grouper = createToolLineGrouper();
  const views = createCallViews(options.groupOf, options.workspaceRoot);
  const view = views.of;
  let commits: string[] = [];
  let finished: FinishedCall[] = [];
  let held: ToolCallView[] = [];

  const wrap = (text: string, indent = "") =>
    wrapText(text, options.width() - indent.length).map((line) => `${indent}${line}`);
  const commit = (lines: string[]) => void commits.push(...lines);
  /** Tool lines were the last thing shown (an answer that follows gets a blank line first). */
  let toolLinesAbove = false;

  const thinking = createThinkingLines(theme, (text) => wrap(text, "  "));

  function endAnswer(): void {
    commit(thinking.end());
    commit(answer.end());
  }
  function flushGroup(): void {
    const lines = grouper.flush();
    if (lines.length === 0) return;
    const hint = held.length > 1 ? theme.paint("gray", " (ctrl+o to expand)") : "";
    held = [];
    commit(wrap(theme.paint("bold", lines[0] ?? ""), "  ").map((line, i) => (i === 0 ? line + hint : line)));
    for (const error of lines.slice(1)) commit(wrap(theme.paint("red", error), "  "));
  }

  function toolResult(call: ToolCallView, result: ToolResult): void {
    finished.push({ view: call, result });
    if (result.error) {
      const lines = grouper.error(call, result.text);
      for (const line of lines) commit(wrap(theme.paint("red", line), "  "));
      return;
    }
    const diff = result.metadata.diff;
    if (typeof diff === "string" && diff !== "") commit(paintDiff(diff, theme, "    ", MAX_DIFF_LINES));
    if (call.group === "Command") commit(commandOutcome(result, theme, options.width()));
  }

  function mainEvent(event: AgentEvent): void {
    switch (event.type) {
      case "thinking":
        flushGroup();
        return commit(thinking.push(event.text));
      case "text_delta":
        if (event.text === "") return;
        commit(thinking.end());
        flushGroup();
        // an answer after tool lines starts after a blank line
        if (toolLinesAbove && answer.empty) commit([""]);
        toolLinesAbove = false;
        commit(answer.push(event.text));
        return;
      case "tool_call": {
        endAnswer();
        toolLinesAbove = true;
        const call = view(event.call);
        if (isCollapsible(call.group)) {
          grouper.add(call);
          held.push(call);
          return;
        }
        flushGroup();
        for (const line of grouper.add(call)) commit(wrap(theme.paint("bold", line), "  "));
        return;
      }
      case "tool_result":
        return toolResult(view(event.call), event.result);
      case "error": {
        endAnswer();
        flushGroup();
        const retry =
          event.retryInMs !== undefined ? ` (retrying in ${(event.retryInMs / 1000).toFixed(1)}s)` : "";
        return commit(wrap(theme.paint("red", `error: ${event.error.message}${retry}`)));
      }
      case "compaction":
        return commit([
          theme.paint("gray", `(compacted ${event.replacedCount} earlier messages into a summary)`),
        ]);
      case "done":
        endAnswer();
        flushGroup();
        views.clear();
        if (event.reason === "aborted") commit([theme.paint("yellow", "(interrupted)")]);
        if (event.reason === "max_turns")
          commit([theme.paint("yellow", `(stopped at the turn limit: ${event.turns} turns)`)]);
        if (event.reason === "max_tokens")
          commit([theme.paint("yellow", "(the answer was cut off by the model's output limit)")]);
        return;
      default:
        return;
    }
  }

  return {
    event(received: AgentEvent): void {
      const event = withControlsShown(received);
      if (event.agentId === "main") return mainEvent(event);
      // subagents: their tool calls only, one dim line each, so the main stream stays readable
      if (event.type !== "tool_call") return;
      const { name, args } = event.call;
      const target = describeTarget(name, args, options.workspaceRoot);
      commit(
        wrap(
          theme.paint(
            "gray",
            `[${event.agentId}] ${formatCallLine({ group: options.groupOf(name), name, target })}`,
          ),
          "  ",
        ),
      );
    },
    /** The user's prompt as it goes to the scrollback: `> ` and the text (a blank line before it). */
    userPrompt(text: string, source?: string): void {
      endAnswer();
      flushGroup();
      toolLinesAbove = false;
      const lines = text.split("\n");
      const marker = source ? theme.paint("gray", `[${source}] `) : theme.paint("cyan", "> ");
      commit([
        "",
        ...lines.flatMap((line, index) =>
          wrap(line, "  ").map((part, at) => (index === 0 && at === 0 ? `${marker}${part.slice(2)}` : part)),
        ),
      ]);
    },
    /** Lines for the scrollback (notices, command output). */
    print(lines: string[]): void {
      endAnswer();
      flushGroup();
      toolLinesAbove = false;
      commit(lines);
    },
    /** Takes what became final since the last call. */
    takeCommits(): string[] {
      const taken = commits;
      commits = [];
      return taken;
    },
    /** What is still growing: the answer's last block and the open group of reads and searches. */
    live(width: number): string[] {
      const lines = answer.live(width);
      if (held.length > 0) {
        const pending = grouper.preview();
        if (pending)
          lines.push(...wrapText(theme.paint("bold", pending), width - 2).map((line) => `  ${line}`));
      }
      return lines;
    },
    /** The calls finished since the last `takeFinished`, for Ctrl-O. */
    takeFinished(): FinishedCall[] {
      const taken = finished;
      finished = [];
      return taken;
    },
  };
}

export type Transcript = ReturnType<typeof createTranscript>;

/** `✓ exit 0 · 1.2s` and the last lines of the output, or where a background command went. */
function commandOutcome(result: ToolResult, theme: Theme, width: number): string[] {
  const meta = result.metadata;
  if (typeof meta.taskId === "string" && meta.state === "running")
    return [theme.paint("gray", `    ↳ still running as background task ${meta.taskId}`)];
  // a replayed result (or a command that never started) has no exit facts
  if (!("exitCode" in meta)) return [];
  const exitCode = typeof meta.exitCode === "number" ? meta.exitCode : undefined;
  const seconds = typeof meta.runtimeMs === "number" ? ` · ${(meta.runtimeMs / 1000).toFixed(1)}s` : "";
  const status =
    exitCode === 0
      ? theme.paint("green", `    ✓ exit 0${seconds}`)
      : theme.paint(
          "red",
          `    ✗ ${exitCode === undefined ? "ended by a signal" : `exit ${exitCode}`}${seconds}`,
        );
  const output = result.text
    .split("\n")
    .slice(1)
    .filter((line) => !line.startsWith("[output truncated"));
  while (output.length > 0 && output.at(-1)?.trim() === "") output.pop();
  if (output.length === 1 && output[0] === "(no output)") output.pop();
  const tail = output.slice(-TAIL_LINES);
  const above = output.length - TAIL_LINES;
  const more =
    above > 0 ? theme.paint("gray", ` (${above} line${above === 1 ? "" : "s"} above; ctrl+o)`) : "";
  return [
    status + more,
    ...tail.flatMap((line) => wrapText(line, width - 6).map((part) => theme.paint("gray", `    │ ${part}`))),
  ];
}
