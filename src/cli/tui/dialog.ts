import {
  backspace,
  deleteWordBefore,
  type EditorState,
  editorText,
  emptyEditor,
  insertText,
  moveLeft,
  moveRight,
} from "./editor.js";
import type { Key } from "./keys.js";
import type { StyleName, Theme } from "./style.js";
import { truncateToWidth, visibleWidth, wrapText } from "./text-width.js";

/**
 * A choice put to the user in the live area, chosen with the arrow keys (or a digit): the approval
 * dialog, ask_question, the /resume and /mode pickers. An option may take typed words ("tell it what
 * to do instead", "type your own answer"); with `multi`, space ticks options. State and keys only;
 * `drawDialog` draws it.
 */
export interface DialogOption {
  label: string;
  value: string;
  /** Dim text after the label (a rule that would be saved, a session's date). */
  detail?: string;
  /** This option is a text field: typing goes into it, Enter sends the words. */
  input?: boolean;
}

export interface Dialog {
  title: string;
  titleStyle: StyleName;
  /** Lines above the options (the call's summary, the diff), already styled. */
  body: string[];
  options: DialogOption[];
  selected: number;
  typed: EditorState;
  /** Space ticks options; Enter sends the ticked ones. */
  multi: boolean;
  checked: ReadonlySet<number>;
  hint: string;
}

export type DialogOutcome =
  | { kind: "open"; dialog: Dialog }
  | { kind: "chosen"; value: string; text?: string; values?: string[] }
  | { kind: "cancelled" };

export function openDialog(fields: Pick<Dialog, "title" | "body" | "options"> & Partial<Dialog>): Dialog {
  return {
    titleStyle: "yellow",
    selected: 0,
    typed: emptyEditor(),
    multi: false,
    checked: new Set(),
    hint: "↑/↓ to choose · enter to confirm · esc to cancel",
    ...fields,
  };
}

/** Applies one key press to the dialog. */
export function dialogKey(dialog: Dialog, key: Key): DialogOutcome {
  const option = dialog.options[dialog.selected];
  const open = (changes: Partial<Dialog>): DialogOutcome => ({
    kind: "open",
    dialog: { ...dialog, ...changes },
  });
  const move = (delta: number) =>
    open({ selected: (dialog.selected + delta + dialog.options.length) % dialog.options.length });
  if (key.name === "escape" || (key.ctrl && key.name === "c")) return { kind: "cancelled" };
  if (key.name === "up" || (key.shift && key.name === "tab")) return move(-1);
  if (key.name === "down" || key.name === "tab") return move(1);
  if (key.name === "enter") return choose(dialog);
  if (option?.input) {
    const typed = typeInto(dialog.typed, key);
    if (typed) return open({ typed });
  }
  if (key.name === "char" && key.text === " " && dialog.multi) {
    const checked = new Set(dialog.checked);
    if (checked.has(dialog.selected)) checked.delete(dialog.selected);
    else checked.add(dialog.selected);
    return open({ checked });
  }
  if (key.name === "char" && key.text && /^[1-9]$/.test(key.text) && !key.ctrl && !key.alt) {
    const index = Number(key.text) - 1;
    const picked = dialog.options[index];
    if (!picked) return open({});
    return picked.input || dialog.multi ? open({ selected: index }) : { kind: "chosen", value: picked.value };
  }
  // any other typing goes to the text option, so the user can just start writing
  const field = dialog.options.findIndex((candidate) => candidate.input);
  if (field >= 0 && (key.name === "char" || key.name === "paste") && !key.ctrl) {
    const typed = typeInto(dialog.typed, key);
    if (typed) return open({ selected: field, typed });
  }
  return open({});
}

function choose(dialog: Dialog): DialogOutcome {
  const option = dialog.options[dialog.selected];
  if (!option) return { kind: "cancelled" };
  if (option.input) {
    const text = editorText(dialog.typed).trim();
    return text === "" ? { kind: "open", dialog } : { kind: "chosen", value: option.value, text };
  }
  if (dialog.multi) {
    const ticked = [...dialog.checked]
      .sort((a, b) => a - b)
      .map((index) => dialog.options[index]?.value ?? "");
    return { kind: "chosen", value: option.value, values: ticked.length > 0 ? ticked : [option.value] };
  }
  return { kind: "chosen", value: option.value };
}

function typeInto(state: EditorState, key: Key): EditorState | undefined {
  if (key.name === "paste") return insertText(state, (key.text ?? "").replace(/\n/g, " "));
  if (key.name === "char" && key.text && !key.ctrl && !key.alt) return insertText(state, key.text);
  if (key.name === "backspace") return key.alt ? deleteWordBefore(state) : backspace(state);
  if (key.ctrl && key.name === "w") return deleteWordBefore(state);
  if (key.name === "left") return moveLeft(state);
  if (key.name === "right") return moveRight(state);
  return undefined;
}

/** The dialog's lines; the cursor sits in the text option when it is selected. */
export function drawDialog(
  dialog: Dialog,
  width: number,
  theme: Theme,
): { lines: string[]; cursor?: { row: number; col: number } } {
  const rule = "─".repeat(Math.max(0, width - visibleWidth(dialog.title) - 4));
  const lines = [theme.paint(dialog.titleStyle, `─ ${dialog.title} ${rule}`)];
  lines.push(...dialog.body.flatMap((line) => wrapText(line, width - 1).map((part) => ` ${part}`)));
  if (dialog.body.length > 0) lines.push("");
  let cursor: { row: number; col: number } | undefined;
  dialog.options.forEach((option, index) => {
    const chosen = index === dialog.selected;
    const pointer = chosen ? theme.paint("cyan", "›") : " ";
    const tick = dialog.multi ? (dialog.checked.has(index) ? "[x] " : "[ ] ") : "";
    const label = `${index + 1}. ${tick}${option.label}`;
    const detail = option.detail ? theme.paint("gray", ` ${option.detail}`) : "";
    const shown = chosen ? theme.paint("bold", label) : label;
    lines.push(truncateToWidth(` ${pointer} ${shown}${detail}`, width));
    if (option.input && (chosen || editorText(dialog.typed) !== "")) {
      const text = editorText(dialog.typed);
      const prefix = "     ✎ ";
      lines.push(truncateToWidth(`${prefix}${text}`, width));
      if (chosen)
        cursor = {
          row: lines.length - 1,
          col: Math.min(width - 1, visibleWidth(prefix) + visibleWidth(text.slice(0, dialog.typed.col))),
        };
    }
  });
  lines.push(theme.paint("gray", ` ${dialog.hint}`));
  return cursor ? { lines, cursor } : { lines };
}
