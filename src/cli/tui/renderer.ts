import type { AgentEvent } from "../../agent/events.js";
import type { DisplayGroup } from "../../tools/contract.js";
import { paintDiff } from "./call-summary.js";
import { withControlsShown } from "./shown-text.js";
import { createTheme, type StyleName } from "./style.js";
import { createCallViews, createToolLineGrouper, describeTarget, formatCallLine } from "./tool-lines.js";

/**
 * Plain lines, for where there is no terminal to draw on (a pipe, TERM=dumb): streamed text as it
 * arrives, tool lines, diffs and a usage line per prompt. The terminal UI (app.ts) draws the rest.
 */
export interface RendererOptions {
  write(text: string): void;
  /** ANSI colours: only on a terminal, and never with NO_COLOR. */
  color: boolean;
  workspaceRoot: string;
  /** The display group of a tool name or alias; undefined when unknown. */
  groupOf(name: string): DisplayGroup | undefined;
}

const MAX_DIFF_LINES = 200;

/** Turns the agent's event stream into readable terminal lines: streamed text, tool lines, diffs, usage. */
export function createRenderer(options: RendererOptions) {
  const theme = createTheme(options.color);
  const grouper = createToolLineGrouper();
  const calls = createCallViews(options.groupOf, options.workspaceRoot);
  const view = calls.of;
  let midLine = false;
  /** The last text written was the model's reasoning (an answer after it starts on a new line). */
  let thinkingOpen = false;

  function line(text: string): void {
    endText();
    options.write(`${text}\n`);
  }
  function endText(): void {
    if (midLine) options.write("\n");
    midLine = false;
  }
  function toolLines(lines: string[], style: StyleName): void {
    for (const text of lines) line(theme.paint(style, `  ${text}`));
  }
  function flush(): void {
    const held = grouper.flush();
    if (held.length > 0) {
      toolLines(held.slice(0, 1), "bold");
      toolLines(held.slice(1), "red");
    }
  }

  function mainEvent(event: AgentEvent): void {
    switch (event.type) {
      case "thinking":
        if (event.text === "") return;
        flush();
        options.write(theme.paint("dim", event.text));
        midLine = !event.text.endsWith("\n");
        thinkingOpen = true;
        return;
      case "text_delta":
        if (event.text === "") return;
        flush();
        if (thinkingOpen && midLine) options.write("\n");
        thinkingOpen = false;
        options.write(event.text);
        midLine = !event.text.endsWith("\n");
        return;
      case "tool_call": {
        const held = grouper.add(view(event.call));
        if (held.length > 0) toolLines(held, "bold");
        return;
      }
      case "tool_result": {
        const call = view(event.call);
        if (event.result.error) return toolLines(grouper.error(call, event.result.text), "red");
        const diff = event.result.metadata?.diff;
        if (typeof diff === "string" && diff !== "")
          for (const text of paintDiff(diff, theme, "    ", MAX_DIFF_LINES)) line(text);
        return;
      }
      case "error": {
        flush();
        const retry =
          event.retryInMs !== undefined ? ` (retrying in ${(event.retryInMs / 1000).toFixed(1)}s)` : "";
        return line(theme.paint("red", `error: ${event.error.message}${retry}`));
      }
      case "compaction":
        return line(theme.paint("dim", `(compacted ${event.replacedCount} earlier messages)`));
      case "done":
        return done(event);
      default:
        return;
    }
  }

  function done(event: Extract<AgentEvent, { type: "done" }>): void {
    flush();
    calls.clear();
    if (event.reason === "aborted") line(theme.paint("yellow", "(interrupted)"));
    if (event.reason === "max_turns")
      line(theme.paint("yellow", `(stopped at the turn limit: ${event.turns} turns)`));
    if (event.reason === "max_tokens")
      line(theme.paint("yellow", "(the answer was cut off by the model's output limit)"));
    const { inputTokens, outputTokens } = event.usage;
    const turns = `${event.turns} model turn${event.turns === 1 ? "" : "s"}`;
    line(theme.paint("dim", `(${turns} · ${inputTokens} tokens in · ${outputTokens} out)`));
  }

  return {
    event(received: AgentEvent): void {
      const event = withControlsShown(received);
      if (event.agentId === "main") return mainEvent(event);
      // subagents: their tool calls only, one dim line each, so the main stream stays readable
      if (event.type !== "tool_call") return;
      const { name, args } = event.call;
      const target = describeTarget(name, args, options.workspaceRoot);
      line(
        theme.paint(
          "dim",
          `  [${event.agentId}] ${formatCallLine({ group: options.groupOf(name), name, target })}`,
        ),
      );
    },
    /** Prints a plain line (slash command output, notices), closing any streamed text first. */
    line(text: string, style?: StyleName): void {
      flush();
      line(theme.paint(style, text));
    },
  };
}

export type Renderer = ReturnType<typeof createRenderer>;
