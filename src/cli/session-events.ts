import type { Conversation, ConversationMessage } from "../agent/conversation.js";
import { type AgentEvent, ZERO_USAGE } from "../agent/events.js";
import type { AgentRunResult } from "../agent/loop.js";
import { hookContextMessage } from "../agent/loop-hooks.js";
import type { SessionStartSource } from "../hooks/events.js";
import type { SessionHooks } from "../hooks/lifecycle.js";

export interface SessionEventsOptions {
  hooks: SessionHooks;
  /** The session's model of the moment (`/model` changes it). */
  model: () => string;
  /** Interactive sessions tell Notification hooks when the prompt has waited `idleSeconds`. */
  interactive: boolean;
  idleSeconds?: number;
}

/** A prompt a UserPromptSubmit hook refused (`blocked`) or stopped with `continue: false` (`stopped`). */
export interface Refusal {
  reason: "blocked" | "stopped";
  /** Who refused and why, for the user. */
  text: string;
  /** The prompt, kept in the conversation when the run was stopped rather than the prompt refused. */
  keep?: ConversationMessage;
}

const DEFAULT_IDLE_SECONDS = 60;

export type SessionEvents = ReturnType<typeof createSessionEvents>;

/**
 * The session-level hook events a front end's session goes through (shared by `gantry -p` and the
 * interactive mode): SessionStart when it opens, UserPromptSubmit before each typed prompt, an idle
 * Notification while the prompt waits, SessionEnd when it closes. Context hooks add reaches the model
 * with the next prompt, as a message of its own.
 */
export function createSessionEvents(options: SessionEventsOptions) {
  const { hooks } = options;
  let pending: string[] = [];
  // a /clear or /resume fires its events without holding the UI; the next prompt waits for them
  let restarting: Promise<void> = Promise.resolve();
  let lastPrompt = "";
  let idleTimer: NodeJS.Timeout | undefined;
  const stopIdle = () => {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = undefined;
  };

  return {
    async start(source: SessionStartSource): Promise<void> {
      const event = { kind: "session_start" as const, agentId: "main", source, model: options.model() };
      pending.push(...(await hooks.fire(event)).context);
    },

    /** The conversation is left for another (`/clear`: reason and source clear; `/resume`: other, resume). */
    restart(source: "clear" | "resume"): void {
      const reason = source === "clear" ? "clear" : "other";
      const previous = restarting;
      restarting = (async () => {
        await previous;
        pending = [];
        await hooks.fire({ kind: "session_end", agentId: "main", reason });
        const event = { kind: "session_start" as const, agentId: "main", source, model: options.model() };
        pending.push(...(await hooks.fire(event)).context);
      })();
    },

    /** Context for the next prompt (SessionStart after a compaction the user asked for). */
    addContext(texts: readonly string[]): void {
      pending.push(...texts);
    },

    async admit(
      input: ConversationMessage[],
      signal: AbortSignal,
    ): Promise<{ input: ConversationMessage[]; prompt: string } | { refused: Refusal }> {
      stopIdle();
      await restarting;
      const typed = input.find((message) => message.role === "user" && message.source === undefined);
      const added: string[] = [];
      if (typed?.role === "user") {
        lastPrompt = typed.text;
        const outcome = await hooks.fire(
          { kind: "user_prompt_submit", agentId: "main", prompt: typed.text },
          signal,
        );
        if (outcome.block) {
          return {
            refused: {
              reason: "blocked",
              text: `${outcome.block.source} blocked the prompt: ${outcome.block.reason}`,
            },
          };
        }
        if (outcome.stop) {
          const text = `${outcome.stop.source} stopped the agent: ${outcome.stop.reason}`;
          return { refused: { reason: "stopped", text, keep: typed } };
        }
        added.push(...outcome.context);
      }
      const before = pending.length > 0 ? [hookContextMessage(pending)] : [];
      pending = [];
      const after = added.length > 0 ? [hookContextMessage(added)] : [];
      return { input: [...before, ...input, ...after], prompt: lastPrompt };
    },

    /** Ends a run that never started: the user reads why, the session file records it. */
    refuse(
      refusal: Refusal,
      conversation: Conversation,
      onEvent: (event: AgentEvent) => void,
    ): AgentRunResult {
      hooks.log(refusal.text);
      if (refusal.keep) {
        conversation.messages.push(refusal.keep);
        onEvent({ type: "message", message: refusal.keep, agentId: "main" });
      }
      const result: AgentRunResult = {
        reason: refusal.reason,
        turns: 0,
        text: "",
        usage: ZERO_USAGE,
        stopReason: refusal.text,
      };
      onEvent({ type: "done", agentId: "main", ...result });
      return result;
    },

    /** The run is over and the prompt waits again (interactive only). */
    idle(): void {
      stopIdle();
      if (!options.interactive || !hooks.has("notification")) return;
      const seconds = options.idleSeconds ?? DEFAULT_IDLE_SECONDS;
      idleTimer = setTimeout(() => {
        hooks.notify({
          kind: "notification",
          agentId: "main",
          notificationType: "idle_prompt",
          message: "Gantry is waiting for your input",
        });
      }, seconds * 1000);
      idleTimer.unref();
    },

    async end(reason: string): Promise<void> {
      stopIdle();
      await restarting;
      await hooks.fire({ kind: "session_end", agentId: "main", reason });
    },
  };
}
