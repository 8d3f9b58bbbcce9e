import type {
  Asker,
  PermissionAnswer,
  PermissionRequest,
  Question,
  QuestionAnswers,
} from "../../policy/asker.js";
import { permissionAnswer, permissionDialog, questionAnswer, questionDialog } from "./ask-dialogs.js";
import { type Dialog, type DialogOption, type DialogOutcome, dialogKey, openDialog } from "./dialog.js";
import type { Key } from "./keys.js";
import type { Theme } from "./style.js";

type Settled = Exclude<DialogOutcome, { kind: "open" }>;

interface Waiting {
  dialog: Dialog;
  settle(outcome: Settled): void;
}

/**
 * Dialogs take turns on screen, first asked first shown; keys go to the one shown. The terminal UI's
 * asker puts its questions here, and so do the /resume and /mode pickers.
 */
export function createDialogQueue() {
  const waiting: Waiting[] = [];
  let onChange = () => {};

  function show(dialog: Dialog, signal?: AbortSignal): Promise<Settled> {
    return new Promise((resolve, reject) => {
      const entry: Waiting = {
        dialog,
        settle: (outcome) => {
          remove(entry);
          resolve(outcome);
        },
      };
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener(
        "abort",
        () => {
          remove(entry);
          reject(signal.reason);
        },
        { once: true },
      );
      waiting.push(entry);
      onChange();
    });
  }

  function remove(entry: Waiting): void {
    const at = waiting.indexOf(entry);
    if (at >= 0) waiting.splice(at, 1);
    onChange();
  }

  return {
    show,
    /** Who redraws when a dialog opens, changes or closes (the UI, once it runs). */
    onChange(listener: () => void): void {
      onChange = listener;
    },
    get current(): Dialog | undefined {
      return waiting[0]?.dialog;
    },
    /** Waiting permission asks (the spinner says so). */
    get open(): number {
      return waiting.length;
    },
    key(key: Key): void {
      const entry = waiting[0];
      if (!entry) return;
      const outcome = dialogKey(entry.dialog, key);
      if (outcome.kind === "open") entry.dialog = outcome.dialog;
      else entry.settle(outcome);
      onChange();
    },
    /** Ends every dialog as cancelled (the session closes). */
    cancelAll(): void {
      for (const entry of [...waiting]) entry.settle({ kind: "cancelled" });
    },
    async pick(title: string, options: DialogOption[]): Promise<string | undefined> {
      const outcome = await show(openDialog({ title, titleStyle: "cyan", body: [], options }));
      return outcome.kind === "chosen" ? outcome.value : undefined;
    },
  };
}

export type DialogQueue = ReturnType<typeof createDialogQueue>;

/** The asker the session uses while the terminal UI runs: its questions become dialogs. */
export function createDialogAsker(
  queue: DialogQueue,
  context: { theme: Theme; workspaceRoot(): string; rows(): number; alwaysSavedTo(): string },
): Asker {
  return {
    kind: "terminal",
    async askPermission(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
      const maxDiffLines = Math.max(4, context.rows() - 18);
      const dialog = permissionDialog(request, {
        theme: context.theme,
        workspaceRoot: context.workspaceRoot(),
        alwaysSavedTo: context.alwaysSavedTo(),
        maxDiffLines,
      });
      return permissionAnswer(await queue.show(dialog, signal));
    },
    async askQuestions(questions: Question[], signal: AbortSignal): Promise<QuestionAnswers> {
      const answers: string[][] = [];
      for (const [index, question] of questions.entries()) {
        const position = questions.length > 1 ? ` ${index + 1} of ${questions.length}` : "";
        const answer = questionAnswer(question, await queue.show(questionDialog(question, position), signal));
        if (answer === undefined) return { answered: false, reason: "the user skipped the question" };
        answers.push(answer);
      }
      return { answered: true, answers };
    },
  };
}
