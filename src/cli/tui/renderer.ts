import type { AgentEvent } from "../../agent/events.js";
import type { DisplayGroup } from "../../tools/contract.js";
import {
  classifyDiffLines,
  createToolLineGrouper,
  type DiffLineKind,
  describeTarget,
  formatCallLine,
  type ToolCallView,
} from "./tool-lines.js";

export interface RendererOptions {
  write(text: string): void;
  /** ANSI colours: only on a terminal, and never with NO_COLOR. */
  color: boolean;
  workspaceRoot: string;
  /** The display group of a tool name or alias; undefined when unknown. */
  groupOf(name: string): DisplayGroup | undefined;
}

const CODES = { green: 32, red: 31, cyan: 36, dim: 2, yellow: 33, bold: 1 } as const;
type Style = keyof typeof CODES;
const DIFF_STYLE: Record<DiffLineKind, Style | undefined> = {
  added: "green",
  removed: "red",
  hunk: "cyan",
  header: "dim",
  context: undefined,
};
const MAX_DIFF_LINES = 200;

/** Turns the agent's event stream into readable terminal lines: streamed text, tool lines, diffs, usage. */
export function createRenderer(options: RendererOptions) {
  const paint = (style: Style | undefined, text: string) =>
    options.color && style ? `\x1b[${CODES[style]}m${text}\x1b[0m` : text;
  const grouper = createToolLineGrouper();
  const calls = new Map<string, ToolCallView>();
  let midLine = false;

  function line(text: string): void {
    endText();
    options.write(`${text}\n`);
  }
  function endText(): void {
    if (midLine) options.write("\n");
    midLine = false;
  }
  function toolLines(lines: string[], style: Style): void {
    for (const text of lines) line(paint(style, `  ${text}`));
  }
  function flush(): void {
    const held = grouper.flush();
    if (held.length > 0) {
      toolLines(held.slice(0, 1), "bold");
      toolLines(held.slice(1), "red");
    }
  }
  function view(call: { callId: string; name: string; args: unknown }): ToolCallView {
    const known = calls.get(call.callId);
    if (known) return known;
    const made = {
      group: options.groupOf(call.name),
      name: call.name,
      target: describeTarget(call.name, call.args, options.workspaceRoot),
    };
    calls.set(call.callId, made);
    return made;
  }
  function showDiff(diff: string): void {
    const lines = classifyDiffLines(diff);
    for (const { kind, text } of lines.slice(0, MAX_DIFF_LINES)) line(paint(DIFF_STYLE[kind], `    ${text}`));
    if (lines.length > MAX_DIFF_LINES)
      line(paint("dim", `    … ${lines.length - MAX_DIFF_LINES} more lines`));
  }

  function mainEvent(event: AgentEvent): void {
    switch (event.type) {
      case "text_delta":
        if (event.text === "") return;
        flush();
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
        if (typeof diff === "string" && diff !== "") showDiff(diff);
        return;
      }
      case "error": {
        flush();
        const retry =
          event.retryInMs !== undefined ? ` (retrying in ${(event.retryInMs / 1000).toFixed(1)}s)` : "";
        return line(paint("red", `error: ${event.error.message}${retry}`));
      }
      case "compaction":
        return line(paint("dim", `(compacted ${event.replacedCount} earlier messages)`));
      case "done":
        return done(event);
      default:
        return;
    }
  }

  function done(event: Extract<AgentEvent, { type: "done" }>): void {
    flush();
    calls.clear();
    if (event.reason === "aborted") line(paint("yellow", "(interrupted)"));
    if (event.reason === "max_turns")
      line(paint("yellow", `(stopped at the turn limit: ${event.turns} turns)`));
    const { inputTokens, outputTokens } = event.usage;
    const turns = `${event.turns} model turn${event.turns === 1 ? "" : "s"}`;
    line(paint("dim", `(${turns} · ${inputTokens} tokens in · ${outputTokens} out)`));
  }

  return {
    event(event: AgentEvent): void {
      if (event.agentId === "main") return mainEvent(event);
      // subagents: their tool calls only, one dim line each, so the main stream stays readable
      if (event.type !== "tool_call") return;
      const { name, args } = event.call;
      const target = describeTarget(name, args, options.workspaceRoot);
      line(
        paint(
          "dim",
          `  [${event.agentId}] ${formatCallLine({ group: options.groupOf(name), name, target })}`,
        ),
      );
    },
    /** Prints a plain line (slash command output, notices), closing any streamed text first. */
    line(text: string, style?: Style): void {
      flush();
      line(paint(style, text));
    },
  };
}

export type Renderer = ReturnType<typeof createRenderer>;

/** Colours only when stdout is a terminal and NO_COLOR is unset (https://no-color.org). */
export function wantsColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === "");
}
