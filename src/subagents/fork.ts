import type { ConversationMessage } from "../agent/conversation.js";

/**
 * Forks (seed 003): a fork continues the parent's own conversation (all of it, or its last N real
 * user turns) with the parent's tool declarations unchanged, and `fork_tools` narrowing which of them
 * may actually run.
 */

export type ForkTurns = "all" | number;

/** `fork_turns`: omitted or "all" = the whole conversation; else a positive integer (as a string). */
export function parseForkTurns(
  value: string | undefined,
): { ok: true; turns: ForkTurns } | { ok: false; message: string } {
  if (value === undefined || value === "all") return { ok: true, turns: "all" };
  if (!/^[1-9][0-9]{0,5}$/.test(value)) {
    return {
      ok: false,
      message: `fork_turns must be "all" or a positive integer such as "3" (got ${JSON.stringify(value)})`,
    };
  }
  return { ok: true, turns: Number(value) };
}

/**
 * The part of `messages` that starts at the Nth-last real user turn. Tool responses and system
 * reminders are not turns (seed 003): `isRealUserTurn` tells them apart. Fewer turns than N = all.
 */
export function selectForkTurns<M>(
  messages: readonly M[],
  turns: ForkTurns,
  isRealUserTurn: (m: M) => boolean,
): M[] {
  if (turns === "all") return [...messages];
  let seen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (isRealUserTurn(messages[i] as M)) {
      seen++;
      if (seen === turns) return messages.slice(i);
    }
  }
  return [...messages];
}

const MCP_PATTERN = /^mcp__[A-Za-z0-9_-]*\*$|^mcp__[A-Za-z0-9_-]+(?:__[A-Za-z0-9_.-]*\*?)?$/;

/**
 * Checks `fork_tools` entries: exact tool names (an alias is accepted and canonicalised), or MCP
 * patterns — `mcp__*`, `mcp__github` (a whole server), `mcp__github__read_*` (a trailing prefix).
 */
export function validateForkTools(
  entries: readonly string[],
  canonicalName: (name: string) => string | undefined,
): { ok: true; patterns: string[] } | { ok: false; message: string } {
  const patterns: string[] = [];
  for (const entry of entries) {
    if (entry === "") return { ok: false, message: "fork_tools has an empty entry" };
    if (entry.trim() !== entry) {
      return { ok: false, message: `fork_tools entry ${JSON.stringify(entry)} has surrounding spaces` };
    }
    if (entry.startsWith("mcp__")) {
      if (!MCP_PATTERN.test(entry)) {
        return {
          ok: false,
          message: `fork_tools entry "${entry}" is not an MCP pattern (mcp__*, mcp__server, mcp__server__prefix*)`,
        };
      }
      patterns.push(entry);
      continue;
    }
    if (entry.includes("*")) {
      return {
        ok: false,
        message: `fork_tools entry "${entry}": wildcards are only allowed as a trailing MCP prefix (mcp__github__read_*)`,
      };
    }
    const canonical = canonicalName(entry);
    if (canonical === undefined) return { ok: false, message: `fork_tools names an unknown tool "${entry}"` };
    patterns.push(canonical);
  }
  return { ok: true, patterns };
}

/** A gate for `RunOptions.allowTool` from validated fork_tools patterns; `[]` allows nothing. */
export function forkToolGate(patterns: readonly string[]): (canonicalName: string) => boolean {
  return (name) =>
    patterns.some((pattern) => {
      if (pattern.endsWith("*")) return name.startsWith(pattern.slice(0, -1));
      if (pattern.startsWith("mcp__") && !pattern.slice(5).includes("__"))
        return name.startsWith(`${pattern}__`);
      return name === pattern;
    });
}

/** A real user turn: typed by the user, not posted by a schedule, an agent or a reminder. */
export function isRealUserTurn(message: ConversationMessage): boolean {
  return message.role === "user" && message.source === undefined;
}

/**
 * The fork's starting history: the parent's messages (all, or from its Nth-last real user turn), with
 * the parent's in-flight tool calls answered, so the history is valid to send to a provider again.
 */
export function forkHistory(parent: readonly ConversationMessage[], turns: ForkTurns): ConversationMessage[] {
  const history = structuredClone(selectForkTurns(parent, turns, isRealUserTurn));
  const last = history.at(-1);
  if (last?.role === "assistant" && last.toolCalls.length > 0) {
    history.push({
      role: "tool",
      results: last.toolCalls.map((call) => ({
        callId: call.callId,
        name: call.name,
        text: "This call is still running in the parent; you are a fork started from this point.",
        error: false,
      })),
    });
  }
  return history;
}

export function forkDirective(prompt: string, promptHint: string | undefined): string {
  const hint = promptHint ? `\n\n${promptHint}` : "";
  return (
    "You are now a fork of the agent whose conversation is above: a separate agent with the same history. " +
    "Do only the task below, then answer with a concise report for the parent. You cannot ask the user; " +
    `if something blocks you, stop and report the blocker.\n\nTask: ${prompt}${hint}`
  );
}
