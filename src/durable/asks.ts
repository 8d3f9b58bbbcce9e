import { AsyncLocalStorage } from "node:async_hooks";
import { z } from "zod";
import type { Asker, PermissionAnswer, PermissionRequest, Question } from "../policy/asker.js";

/** A question a journaled call could not answer by itself: recorded, then waited for as a durable promise. */
export type PendingAsk =
  | { kind: "permission"; request: PermissionRequest }
  | { kind: "questions"; questions: Question[] };

/** The answer a durable promise resolves with (`gantry approve`, or a POST to Restate's ingress). */
export const AskAnswerSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("permission"),
    choice: z.enum(["once", "session", "deny"]).describe("yes once, yes for this session, or no"),
    message: z.string().optional().describe("the user's words; shown to the model on a no"),
  }),
  z.object({
    kind: z.literal("questions"),
    answers: z.array(z.array(z.string())).describe("one list of chosen options or words per question"),
  }),
]);
export type AskAnswer = z.infer<typeof AskAnswerSchema>;

/** Waits for the answer to one pending ask (an awakeable in services.ts). */
export interface AskChannel {
  ask(pending: PendingAsk, callId: string): Promise<AskAnswer>;
}

/** The answers one journaled execution of a call may use, in order, and the first ask it could not answer. */
interface CallScope {
  answers: AskAnswer[];
  pending?: PendingAsk;
}

const scopes = new AsyncLocalStorage<CallScope>();

/** Runs one call's pipeline with the answers it already has; a new question ends it as `pending`. */
export async function withAnswers<T>(
  answers: AskAnswer[],
  run: () => Promise<T>,
): Promise<{ value: T; pending?: PendingAsk }> {
  const scope: CallScope = { answers };
  const value = await scopes.run(scope, run);
  return scope.pending ? { value, pending: scope.pending } : { value };
}

const WAITING = "the question was recorded; the call runs again once it is answered";

/**
 * The durable session's asker: inside a journaled call it hands out the answers that call already got;
 * a question without an answer marks the call pending (its result is then discarded), so the wait
 * happens outside the step, as a durable promise, for as long as it takes.
 */
export function createDurableAsker(): Asker {
  return {
    kind: "callback",
    async askPermission(request): Promise<PermissionAnswer> {
      const scope = scopes.getStore();
      if (!scope) return { choice: "deny", message: "asked outside a journaled call" };
      const answer = takeAnswer(scope, "permission");
      if (answer?.kind === "permission")
        return { choice: answer.choice, ...(answer.message ? { message: answer.message } : {}) };
      scope.pending ??= { kind: "permission", request: plainRequest(request) };
      return { choice: "deny", message: WAITING };
    },
    async askQuestions(questions) {
      const scope = scopes.getStore();
      if (!scope) return { answered: false, reason: "asked outside a journaled call" };
      const answer = takeAnswer(scope, "questions");
      if (answer?.kind === "questions") return { answered: true, answers: answer.answers };
      scope.pending ??= { kind: "questions", questions };
      return { answered: false, reason: WAITING };
    },
  };
}

/** The call's next answer of this kind (a call may ask for consent first, then ask its questions). */
function takeAnswer(scope: CallScope, kind: AskAnswer["kind"]): AskAnswer | undefined {
  const index = scope.answers.findIndex((answer) => answer.kind === kind);
  return index < 0 ? undefined : scope.answers.splice(index, 1)[0];
}

/** The request as JSON keeps it (the journal and the event log hold it). */
function plainRequest(request: PermissionRequest): PermissionRequest {
  return JSON.parse(JSON.stringify(request)) as PermissionRequest;
}

const PERMISSION_WORDS: Record<string, "once" | "session" | "deny"> = {
  yes: "once",
  y: "once",
  session: "session",
  no: "deny",
  n: "deny",
};

/** An answer as someone typed it (`gantry approve ... yes`), checked against what the ask wants. */
export function parseAnswerWords(pending: PendingAsk, words: string[]): AskAnswer | string {
  if (pending.kind === "permission") {
    const [word = "", ...rest] = words;
    const choice = PERMISSION_WORDS[word.toLowerCase()];
    if (!choice)
      return `answer a permission ask with yes, session (yes for this session) or no, not "${word}"`;
    const message = rest.join(" ").trim();
    return { kind: "permission", choice, ...(message ? { message } : {}) };
  }
  if (words.length !== pending.questions.length)
    return `this ask has ${pending.questions.length} question(s): give one answer for each (options of a multi-select separated by commas)`;
  return {
    kind: "questions",
    answers: pending.questions.map((question, i) => {
      const word = words[i] as string;
      return question.multiSelect ? word.split(",").map((part) => part.trim()) : [word];
    }),
  };
}
