import type { ConversationMessage } from "../../agent/conversation.js";
import type { Theme } from "./style.js";
import type { Transcript } from "./transcript.js";

/** Prompts of a resumed session shown in full; older ones are counted. */
const SHOWN_PROMPTS = 10;
/** Lines of one earlier answer shown; the rest are counted. */
const ANSWER_LINES = 24;

/**
 * A resumed conversation, compactly: the last prompts with their answers (each cut to a screenful)
 * and their tool lines, drawn by the same transcript as a live turn (without diffs: the saved
 * conversation keeps what the model read, not what the UI showed).
 */
export function replayConversation(
  messages: readonly ConversationMessage[],
  transcript: Transcript,
  theme: Theme,
): string[] {
  const prompts = messages.flatMap((message, index) =>
    message.role === "user" && message.source === undefined ? [index] : [],
  );
  const from = prompts.length > SHOWN_PROMPTS ? (prompts[prompts.length - SHOWN_PROMPTS] ?? 0) : 0;
  const out: string[] = [];
  const hidden = prompts.filter((index) => index < from).length;
  if (hidden > 0 || messages.slice(0, from).some((message) => message.role === "summary"))
    out.push(theme.paint("gray", `(${hidden} earlier prompt${hidden === 1 ? "" : "s"} not shown)`));
  const pendingCalls = new Map<string, { name: string; args: unknown }>();
  for (const message of messages.slice(from)) {
    replayMessage(message, transcript, pendingCalls);
    const lines = transcript.takeCommits();
    out.push(...(message.role === "assistant" ? capped(lines, theme) : lines));
  }
  transcript.print([]);
  out.push(...transcript.takeCommits());
  transcript.takeFinished();
  return out;
}

function replayMessage(
  message: ConversationMessage,
  transcript: Transcript,
  calls: Map<string, { name: string; args: unknown }>,
): void {
  const event = { agentId: "main", turn: 0 } as const;
  switch (message.role) {
    case "user":
      return transcript.userPrompt(message.text, message.source);
    case "summary":
      return transcript.print(["", "(earlier turns were compacted into a summary)"]);
    case "assistant":
      if (message.text !== "") transcript.event({ ...event, type: "text_delta", text: message.text });
      for (const call of message.toolCalls) {
        calls.set(call.callId, call);
        transcript.event({ ...event, type: "tool_call", call });
      }
      if (message.toolCalls.length === 0) transcript.print([]);
      return;
    case "tool":
      for (const result of message.results) {
        const call = calls.get(result.callId) ?? { name: result.name, args: {} };
        transcript.event({
          ...event,
          type: "tool_result",
          call: { callId: result.callId, ...call },
          result: { text: result.text, error: result.error, metadata: {} },
        });
      }
      return;
  }
}

function capped(lines: string[], theme: Theme): string[] {
  if (lines.length <= ANSWER_LINES) return lines;
  return [
    ...lines.slice(0, ANSWER_LINES),
    theme.paint("gray", `  … ${lines.length - ANSWER_LINES} more lines`),
  ];
}
