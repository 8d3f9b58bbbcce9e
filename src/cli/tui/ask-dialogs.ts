import type { PermissionAnswer, PermissionChoice, PermissionRequest, Question } from "../../policy/asker.js";
import { paintDiff, summarizeCall } from "./call-summary.js";
import { type Dialog, type DialogOutcome, openDialog } from "./dialog.js";
import { withControlsShown } from "./shown-text.js";
import type { Theme } from "./style.js";

/**
 * The approval dialog and ask_question as dialogs: a one-line summary of the call instead of its
 * arguments, the edit's diff once (coloured, as after the edit), then the choices.
 */
export function permissionDialog(
  asked: PermissionRequest,
  context: { theme: Theme; workspaceRoot: string; maxDiffLines: number; alwaysSavedTo: string },
): Dialog {
  const { theme } = context;
  // the model's command and a hook's reason are drawn as text: no escape may hide what is approved
  const request = withControlsShown(asked);
  // the approval mode's reason only repeats the subjects; a hook's or a rule's says something new
  const { source, reason } = request.decision;
  const why = reason && !source.startsWith("approval mode") ? ` (${reason})` : "";
  const inside = `${context.workspaceRoot}/`;
  const subjects = request.subjects.map((subject) =>
    subject.startsWith(inside) ? subject.slice(inside.length) : subject,
  );
  const body = [
    theme.paint("bold", summarizeCall(request.tool, request.args, context.workspaceRoot)),
    theme.paint("gray", `needs approval: ${subjects.join(" · ")} · asked by ${source}${why}`),
  ];
  if (request.preview) {
    const diff = request.preview.startsWith("delete ")
      ? [theme.paint("red", `  ${request.preview}`)]
      : paintDiff(request.preview, theme, "  ", context.maxDiffLines);
    body.push("", ...diff);
  }
  const rules = request.grantRules.join(", ");
  const recordable = !request.forced && request.grantRules.length > 0;
  const options = [
    { label: "Yes, once", value: "once" },
    ...(recordable
      ? [
          { label: "Yes, and don't ask again this session", value: "session", detail: rules },
          {
            label: `Yes, always (saved to ${context.alwaysSavedTo})`,
            value: "always",
            detail: rules,
          },
        ]
      : []),
    { label: "No", value: "deny" },
    { label: "No, and tell it what to do instead", value: "instead", input: true },
  ];
  return openDialog({
    title: `${request.forced ? "Confirmation required" : "Permission needed"}: ${request.tool}`,
    body,
    options,
    hint: "↑/↓ or a number to choose · enter to confirm · type to tell it what to do instead · esc for no",
  });
}

export function permissionAnswer(outcome: Exclude<DialogOutcome, { kind: "open" }>): PermissionAnswer {
  if (outcome.kind === "cancelled") return { choice: "deny" };
  if (outcome.value === "instead")
    return { choice: "deny", ...(outcome.text ? { message: outcome.text } : {}) };
  return { choice: outcome.value as PermissionChoice };
}

export function questionDialog(asked: Question, position: string): Dialog {
  const question = withControlsShown(asked);
  const options = [
    ...question.options.map((option, index) => ({ label: option, value: String(index) })),
    { label: "Type your own answer", value: "own", input: true },
  ];
  return openDialog({
    title: `Question${position}`,
    titleStyle: "cyan",
    body: [question.question],
    options,
    multi: question.multiSelect,
    hint: question.multiSelect
      ? "↑/↓ to move · space to tick · enter to send · esc to skip"
      : "↑/↓ or a number to choose · enter to confirm · esc to skip",
  });
}

/** The answer texts; undefined when the user skipped the question. */
export function questionAnswer(
  question: Question,
  outcome: Exclude<DialogOutcome, { kind: "open" }>,
): string[] | undefined {
  if (outcome.kind === "cancelled") return undefined;
  if (outcome.value === "own") return [outcome.text ?? ""];
  const values = outcome.values ?? [outcome.value];
  return values.filter((value) => value !== "own").map((value) => question.options[Number(value)] ?? value);
}
