import type { BackgroundWork } from "../../gantry.js";
import type { ApprovalMode } from "../../policy/modes.js";
import { type Activity, describeActivity } from "./activity.js";
import type { EditorState } from "./editor.js";
import type { Theme } from "./style.js";
import { charWidth, truncateToWidth, visibleWidth, wrapText } from "./text-width.js";
import { formatDollars, formatTokens, type UsageMeter } from "./usage-meter.js";

/** The live area's parts, each drawn from the state it is given and nothing else. */

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const PROMPT = "> ";
const OUTPUT_TAIL = 5;

export interface DrawnLines {
  lines: string[];
  cursor?: { row: number; col: number };
}

/** `⠹ Running npm test · 4s · esc to interrupt`, and a running command's latest lines under it. */
export function drawActivity(activity: Activity, now: number, width: number, theme: Theme): string[] {
  if (activity.startedAt === undefined) return [];
  const frame = SPINNER[Math.floor(now / 100) % SPINNER.length] ?? "";
  const seconds = Math.floor((now - activity.startedAt) / 1000);
  const what = describeActivity(activity, now);
  const help = activity.phase === "approval" ? "" : " · esc to interrupt";
  const line = `${theme.paint("cyan", frame)} ${theme.paint("bold", what)}${theme.paint("gray", ` · ${seconds}s${help}`)}`;
  const lines = [truncateToWidth(line, width)];
  for (const running of activity.running.values()) {
    if (running.view.group !== "Command" || running.output === "") continue;
    const tail = running.output.replace(/\n$/, "").split("\n").slice(-OUTPUT_TAIL);
    for (const text of tail) lines.push(truncateToWidth(theme.paint("gray", `  │ ${text}`), width));
  }
  return lines;
}

export function drawQueued(queued: readonly string[], width: number, theme: Theme): string[] {
  return queued.map((text) =>
    truncateToWidth(theme.paint("gray", `↳ queued: ${text.replace(/\s+/g, " ")}`), width),
  );
}

/** The editor between two rules; long lines wrap; the cursor is placed where the text cursor is. */
export function drawEditor(
  state: EditorState,
  width: number,
  theme: Theme,
  placeholder: string | undefined,
): DrawnLines {
  const rule = theme.paint("gray", "─".repeat(width));
  const room = Math.max(4, width - PROMPT.length);
  const lines = [rule];
  let cursor = { row: 1, col: PROMPT.length };
  if (placeholder && state.lines.length === 1 && state.lines[0] === "") {
    lines.push(truncateToWidth(`${theme.paint("cyan", PROMPT)}${theme.paint("gray", placeholder)}`, width));
  } else {
    state.lines.forEach((text, index) => {
      const chunks = hardWrap(text, room);
      if (index === state.row) {
        const at = cursorIn(text.slice(0, state.col), room);
        if (at.row >= chunks.length) chunks.push("");
        cursor = { row: lines.length + at.row, col: PROMPT.length + at.col };
      }
      chunks.forEach((chunk, part) => {
        const prefix = index === 0 && part === 0 ? theme.paint("cyan", PROMPT) : "  ";
        lines.push(`${prefix}${chunk}`);
      });
    });
  }
  lines.push(rule);
  return { lines, cursor };
}

function hardWrap(text: string, room: number): string[] {
  const chunks: string[] = [];
  let chunk = "";
  let used = 0;
  for (const char of text) {
    const width = charWidth(char);
    if (used + width > room) {
      chunks.push(chunk);
      chunk = "";
      used = 0;
    }
    chunk += char;
    used += width;
  }
  chunks.push(chunk);
  return chunks;
}

function cursorIn(before: string, room: number): { row: number; col: number } {
  const chunks = hardWrap(before, room);
  const last = chunks.at(-1) ?? "";
  const col = visibleWidth(last);
  // a full last row: the cursor starts the next one
  if (col >= room) return { row: chunks.length, col: 0 };
  return { row: chunks.length - 1, col };
}

export interface CompletionView {
  items: { label: string; detail?: string }[];
  selected: number;
}

export function drawCompletion(view: CompletionView, width: number, theme: Theme): string[] {
  return view.items.map((item, index) => {
    const chosen = index === view.selected;
    const label = chosen ? theme.paint("bold", `› ${item.label}`) : `  ${item.label}`;
    const detail = item.detail ? theme.paint("gray", `  ${item.detail}`) : "";
    return truncateToWidth(`  ${label}${detail}`, width);
  });
}

/** `(reverse-i-search) "que": the matching prompt`. */
export function drawSearch(query: string, match: string | undefined, width: number, theme: Theme): string[] {
  const found =
    match !== undefined ? match.replace(/\s+/g, " ") : query === "" ? "" : theme.paint("red", "no match");
  return [truncateToWidth(`${theme.paint("cyan", `(reverse-i-search) "${query}":`)} ${found}`, width)];
}

export interface FooterFacts {
  model: string;
  contextWindow: number;
  mode: ApprovalMode | undefined;
  usage: UsageMeter;
  background: BackgroundWork;
}

/** `openai:gpt-4.1 · default mode (shift+tab) · 3% of 1M context · 1.2k in · 300 out · $0.01 · 1 task`. */
export function drawFooter(facts: FooterFacts, width: number, theme: Theme): string[] {
  const total = facts.usage.total();
  const share = Math.min(100, Math.round((facts.usage.contextTokens / facts.contextWindow) * 100));
  const cost = facts.usage.cost();
  const parts = [
    facts.model,
    `${facts.mode ?? "no"} mode (shift+tab)`,
    `${share}% of ${formatTokens(facts.contextWindow)} context`,
    `${formatTokens(total.inputTokens)} in · ${formatTokens(total.outputTokens)} out`,
    ...(cost ? [`${formatDollars(cost.dollars)}${cost.partial ? "+" : ""}`] : []),
    ...backgroundParts(facts.background),
  ];
  return wrapText(theme.paint("gray", parts.join(" · ")), width).slice(0, 2);
}

function backgroundParts(work: BackgroundWork): string[] {
  const count = (n: number, one: string, many: string) => (n > 0 ? [`${n} ${n === 1 ? one : many}`] : []);
  return [
    ...count(work.tasks, "background task", "background tasks"),
    ...count(work.agents, "background agent", "background agents"),
    ...count(work.schedules, "schedule", "schedules"),
  ];
}
