import type { AskAnswer, AskChannel, PendingAsk } from "./asks.js";
import type { DurableContext } from "./context.js";
import type { EventLog } from "./event-log.js";
import type { SessionStatus } from "./session-state.js";

/**
 * Asks as durable promises: each open ask is in the session's status (for `gantry approve` and the
 * `answer` handler) and in its event log, and is waited for without holding a process.
 */
export function createAskChannel(
  ctx: DurableContext,
  status: SessionStatus,
  log: EventLog,
  save: () => void,
): AskChannel {
  let asked = 0;
  return {
    async ask(pending, callId) {
      const askId = `ask-${status.prompts}-${++asked}`;
      const promise = ctx.durablePromise();
      status.asks.push({ askId, awakeableId: promise.id, pending });
      status.state = "waiting";
      log.push({
        type: "ask",
        ask_id: askId,
        awakeable_id: promise.id,
        tool_use_id: callId,
        session_id: ctx.sessionId,
        ...pending,
      });
      log.flush();
      save();
      const outcome = await promise.wait();
      status.asks = status.asks.filter((ask) => ask.askId !== askId);
      if (status.asks.length === 0) status.state = "running";
      const answer = fitAnswer(pending, outcome);
      log.push({ type: "ask_answered", ask_id: askId, session_id: ctx.sessionId, answer });
      save();
      return answer;
    },
  };
}

/** An answer of the wrong kind, a malformed one or a cancel counts as a no, with the reason. */
function fitAnswer(
  pending: PendingAsk,
  outcome: AskAnswer | { cancelled: true } | { invalid: string },
): AskAnswer {
  const no = (message: string): AskAnswer =>
    pending.kind === "permission"
      ? { kind: "permission", choice: "deny", message }
      : { kind: "questions", answers: pending.questions.map(() => [`(not answered: ${message})`]) };
  if ("cancelled" in outcome) return no("the session was cancelled");
  if ("invalid" in outcome) return no(`the answer could not be read: ${outcome.invalid}`);
  if (outcome.kind !== pending.kind) return no(`a ${outcome.kind} answer came for a ${pending.kind} ask`);
  return outcome;
}
