import type { ArtifactRecord } from "../artifacts/artifacts.js";
import { artifactsPromptSection } from "../artifacts/format.js";
import type { ModelClient } from "../models/client.js";
import type { Skill } from "../skills/catalog.js";
import { skillsPromptSection } from "../skills/prompt.js";
import { firstSentence } from "../tools/compact.js";
import type { ToolDeclaration } from "../tools/registry.js";
import { type Conversation, type ConversationMessage, type ListMemo, memoFor } from "./conversation.js";
import type { ModelErrorInfo } from "./events.js";
import type { ProjectInstruction } from "./instructions.js";

export interface SystemPromptInput {
  workspaceRoot: string;
  declarations: readonly ToolDeclaration[];
  instructions: readonly ProjectInstruction[];
  /** Skills of the home and the workspace: one line each (name, description, SKILL.md path). */
  skills?: readonly Skill[];
  /** A resumed session's artifacts. */
  artifacts?: readonly ArtifactRecord[];
  /** Extra text a caller adds (a subagent's role, an approval mode note). */
  extra?: string;
  now?: Date;
}

export function buildSystemPrompt(input: SystemPromptInput): string {
  const date = (input.now ?? new Date()).toISOString().slice(0, 10);
  const tools = input.declarations.map((d) => `- ${d.name}: ${firstSentence(d.description)}`).join("\n");
  const sections = [
    `You are Gantry, a coding agent. You work in the workspace ${input.workspaceRoot} on ${process.platform}; today is ${date}.
Use the tools to inspect and change files and to run commands; use absolute paths inside the workspace.
Read a file before you edit it. When a tool call fails, read the error and adapt instead of repeating the same call.
When the task is done, answer with a short summary of what you did.`,
    tools
      ? `# Tools\nThe full schemas come with each request.\n${tools}`
      : "# Tools\nNo tools are available.",
  ];
  if (input.instructions.length > 0) {
    sections.push(
      `# Project instructions\nThe project's own instructions; follow them.\n\n${input.instructions
        .map((i) => `## ${i.file}\n${i.text.trim()}`)
        .join("\n\n")}`,
    );
  }
  for (const section of [
    skillsPromptSection(input.skills ?? []),
    artifactsPromptSection(input.artifacts ?? []),
  ])
    if (section) sections.push(section);
  if (input.extra) sections.push(input.extra);
  return sections.join("\n\n");
}

// ---- compaction -------------------------------------------------------------------------------

export interface CompactionOptions {
  /** The model's context window in tokens. */
  contextWindow: number;
  /** Compact when the conversation reaches this share of the window (default 0.8). */
  threshold?: number;
  /** Assistant turns kept verbatim (default 2). */
  keepRecentTurns?: number;
}

/** By message list: the characters of its messages up to and with each (see memoFor). */
const countedLists = new WeakMap<readonly ConversationMessage[], ListMemo<number>>();

/**
 * A rough count when the provider has not told us yet: about four characters a token. The loop asks at
 * every turn; the messages counted on an earlier call on the same list are not serialised again.
 */
export function estimateTokens(messages: readonly ConversationMessage[], system = ""): number {
  const { memo, kept } = memoFor(countedLists, messages, () => ({ sources: [], values: [] }));
  let chars = kept === 0 ? 0 : (memo.values[kept - 1] as number);
  for (let i = kept; i < messages.length; i++) {
    const message = messages[i] as ConversationMessage;
    chars += JSON.stringify(message).length;
    memo.sources.push(message);
    memo.values.push(chars);
  }
  return Math.ceil((system.length + chars) / 4);
}

/** Whether compacting before `split` gains anything: not when the older part is empty or only an earlier summary. */
export function worthCompacting(messages: readonly ConversationMessage[], split: number): boolean {
  return split > 0 && !(split === 1 && messages[0]?.role === "summary");
}

/**
 * Where the kept part starts: at the k-th last assistant message (with the user message that asked
 * for it), so every tool call stays next to its result. 0 means nothing can be compacted.
 */
export function compactionSplit(messages: readonly ConversationMessage[], keepRecentTurns: number): number {
  let seen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role !== "assistant") continue;
    seen++;
    if (seen < Math.max(1, keepRecentTurns)) continue;
    const previous = messages[i - 1];
    return previous?.role === "user" ? i - 1 : i;
  }
  return 0;
}

const COMPACTION_SYSTEM = `You compact a coding agent's conversation so it fits the model's context window.
Write a summary that lets the agent continue without the original messages:
- the user's requests, quoted where exact wording matters;
- what has been done: files read and changed (with paths), commands run, results, decisions;
- every unfinished task and open question, as a checklist, so none is lost;
- facts learned that later steps need (names, paths, errors).
Answer with the summary only.`;

export type CompactionOutcome =
  | { ok: true; summary: string; replacedCount: number }
  | { ok: false; error: ModelErrorInfo };

/** Summarises the older turns with the model; the caller replaces them with the summary. */
export async function summariseOlderTurns(
  conversation: Conversation,
  model: ModelClient,
  options: { keepRecentTurns: number; signal: AbortSignal; instructions?: readonly string[] },
): Promise<CompactionOutcome | undefined> {
  const split = compactionSplit(conversation.messages, options.keepRecentTurns);
  if (!worthCompacting(conversation.messages, split)) return undefined;
  const older = conversation.messages.slice(0, split);
  let summary = "";
  // a plain transcript, not tool blocks: some providers refuse tool blocks in a request without tools
  const request = {
    system: COMPACTION_SYSTEM,
    messages: [
      {
        role: "user" as const,
        text: `${renderTranscript(older)}\n\nSummarise the conversation above as instructed; list every unfinished task.${extraInstructions(options.instructions)}`,
      },
    ],
    tools: [],
    signal: options.signal,
  };
  for await (const part of model.streamTurn(request)) {
    if (part.type === "text_delta") summary += part.text;
    if (part.type === "error") return { ok: false, error: part.error };
  }
  return { ok: true, summary: `${summary.trim()}${keptRequestsBlock(older)}`, replacedCount: split };
}

/** Instructions hooks gave for the summary (PreCompact), after the usual ones. */
function extraInstructions(instructions: readonly string[] | undefined): string {
  if (!instructions || instructions.length === 0) return "";
  return `\n\nAlso follow these instructions for the summary:\n${instructions.join("\n")}`;
}

const MAX_TRANSCRIPT_TEXT = 8_000;
const MAX_TRANSCRIPT_RESULT = 2_000;

/** The older turns as text for the summariser; long texts and tool outputs are cut. */
export function renderTranscript(messages: readonly ConversationMessage[]): string {
  const cut = (text: string, max: number) =>
    text.length > max ? `${text.slice(0, max)} [... ${text.length - max} characters cut]` : text;
  const lines: string[] = [];
  for (const message of messages) {
    if (message.role === "user")
      lines.push(
        `${message.source ? `[${message.source}]` : "User"}: ${cut(message.text, MAX_TRANSCRIPT_TEXT)}`,
      );
    else if (message.role === "summary") lines.push(`Earlier summary: ${message.text}`);
    else if (message.role === "assistant") {
      if (message.text) lines.push(`Assistant: ${cut(message.text, MAX_TRANSCRIPT_TEXT)}`);
      for (const call of message.toolCalls)
        lines.push(`Assistant called ${call.name} ${cut(JSON.stringify(call.args), MAX_TRANSCRIPT_RESULT)}`);
    } else {
      for (const result of message.results)
        lines.push(
          `${result.name} ${result.error ? "failed" : "returned"}: ${cut(result.text, MAX_TRANSCRIPT_RESULT)}`,
        );
    }
  }
  return `<conversation>\n${lines.join("\n")}\n</conversation>`;
}

/** Marks the part of a summary that holds the user's own requests, one JSON string per line. */
const REQUESTS_MARKER =
  "The user's requests before this point, verbatim (oldest first; one JSON string each):";
/** Characters of user requests a summary keeps word for word; beyond that the oldest are left to the summary. */
const MAX_KEPT_REQUESTS = 12_000;

/**
 * Every request the user typed in the compacted part (and those an earlier summary kept), word for word:
 * the tasks the user gave are never left to the model's paraphrase. The newest are kept when there are
 * more than fit.
 */
function keptRequestsBlock(older: readonly ConversationMessage[]): string {
  const requests: string[] = [];
  for (const message of older) {
    if (message.role === "summary") requests.push(...requestsKeptIn(message.text));
    if (message.role === "user" && message.source === undefined) requests.push(message.text);
  }
  const kept: string[] = [];
  let size = 0;
  for (let i = requests.length - 1; i >= 0; i--) {
    const line = JSON.stringify(requests[i]);
    if (size + line.length > MAX_KEPT_REQUESTS && kept.length > 0) break;
    kept.unshift(line);
    size += line.length;
  }
  if (kept.length === 0) return "";
  const left = requests.length - kept.length;
  const note = left > 0 ? `\n(${left} older requests are only in the summary above)` : "";
  return `\n\n${REQUESTS_MARKER}\n${kept.join("\n")}${note}`;
}

/** The requests an earlier summary kept word for word. */
function requestsKeptIn(summary: string): string[] {
  const at = summary.indexOf(`\n${REQUESTS_MARKER}\n`);
  if (at < 0) return [];
  const requests: string[] = [];
  for (const line of summary.slice(at + REQUESTS_MARKER.length + 2).split("\n")) {
    if (!line.startsWith('"')) break;
    try {
      requests.push(JSON.parse(line) as string);
    } catch {
      break;
    }
  }
  return requests;
}

/** Replaces the first `replacedCount` messages with one summary message (also used on session replay). */
export function applyCompaction(conversation: Conversation, summary: string, replacedCount: number): void {
  conversation.messages.splice(0, replacedCount, { role: "summary", text: summary });
}
