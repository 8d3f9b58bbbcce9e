import type { GateDecision } from "../tools/gates.js";

/** What the user is asked to approve: one tool call that no rule or grant covers. */
export interface PermissionRequest {
  tool: string;
  /** The call's id, as the loop's events name it (an editor links the question to the tool call). */
  callId?: string;
  args: Record<string, unknown>;
  /** The parts that need approval: command parts, paths, hosts. */
  subjects: string[];
  decision: GateDecision;
  /** force_ask: only "once" or "deny" make sense, grants are ignored. */
  forced: boolean;
  /** A diff of what an edit would change, when it can be computed. */
  preview?: string;
  /** The allow rules a "yes, always" answer records; empty when nothing can be recorded. */
  grantRules: string[];
}

/** `session`: remember for this session; `always`: also save it for this folder in ~/.agents/folder-permissions.json. */
export type PermissionChoice = "once" | "session" | "always" | "deny";

export interface PermissionAnswer {
  choice: PermissionChoice;
  /** The user's words, or why nobody could answer; shown to the model on a deny. */
  message?: string;
  /** Who answered when it was not the user: a PermissionRequest hook (`hook <name>`). */
  answeredBy?: string;
  /** A deny that should also end the agent's run (PermissionRequest's `interrupt`). */
  interrupt?: boolean;
  /** A hook's allow with changed input (PermissionRequest's `updatedInput`): the rules judge it again. */
  args?: Record<string, unknown>;
  /** Allow rules a hook's allow adds for this session (PermissionRequest's `updatedPermissions`). */
  sessionRules?: string[];
  /**
   * Nobody could answer, and why (an MCP client without elicitation): the denial then says, as a
   * headless one does, which flag or rule would let the call run.
   */
  unanswerable?: string;
}

export interface Question {
  question: string;
  options: string[];
  multiSelect: boolean;
}

export type QuestionAnswers = { answered: true; answers: string[][] } | { answered: false; reason: string };

/** The user in the loop (SPEC §5): one interface; terminal, headless and library-callback implementations. */
export interface Asker {
  readonly kind: "terminal" | "headless" | "callback";
  /**
   * Whether askQuestions can reach somebody (MCP servers are offered elicitation only then); unset:
   * every kind but headless can.
   */
  readonly answersQuestions?: boolean;
  askPermission(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer>;
  askQuestions(questions: Question[], signal: AbortSignal): Promise<QuestionAnswers>;
}

export interface HeadlessAskerOptions {
  /** Answers ask_question in a headless run (a scripted run, a CI job); without it questions fail. */
  answerQuestions?: (questions: Question[]) => Promise<string[][]> | string[][];
}

/**
 * Nobody can answer: every ask is denied (the consent step adds which flag or rule would allow it),
 * and ask_question fails with a message the model can act on.
 */
export function createHeadlessAsker(options: HeadlessAskerOptions = {}): Asker {
  return {
    kind: "headless",
    answersQuestions: options.answerQuestions !== undefined,
    askPermission: async () => ({
      choice: "deny",
      message: "nobody can answer here (not an interactive terminal)",
    }),
    async askQuestions(questions) {
      if (!options.answerQuestions) {
        return {
          answered: false,
          reason:
            "nobody can answer questions in this headless run. Choose the most reasonable option yourself, state the assumption in your reply, and go on.",
        };
      }
      return { answered: true, answers: await options.answerQuestions(questions) };
    },
  };
}

export interface CallbackAskerOptions {
  onPermission(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> | PermissionAnswer;
  onQuestions?(questions: Question[], signal: AbortSignal): Promise<string[][]> | string[][];
}

/** For embedders: their own UI answers through these callbacks. */
export function createCallbackAsker(options: CallbackAskerOptions): Asker {
  const headless = createHeadlessAsker();
  return {
    kind: "callback",
    answersQuestions: options.onQuestions !== undefined,
    askPermission: async (request, signal) => options.onPermission(request, signal),
    async askQuestions(questions, signal) {
      if (!options.onQuestions) return headless.askQuestions(questions, signal);
      return { answered: true, answers: await options.onQuestions(questions, signal) };
    },
  };
}
