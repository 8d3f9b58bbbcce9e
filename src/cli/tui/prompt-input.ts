import { type CompletionItem, commandCompletions, fileCompletions } from "./completion.js";
import * as edit from "./editor.js";
import type { PromptHistory } from "./history.js";
import { type Key, keyId } from "./keys.js";

/**
 * The prompt's input state and its keys: the multi-line editor (Enter sends, Shift-Enter / Alt-Enter /
 * Ctrl-J or a trailing `\` add a line, a paste keeps its newlines), history on Up/Down, Ctrl-R search,
 * and completion of `@path` and `/command`. Keys that are not about editing come back as actions.
 */
export type PromptAction =
  | { type: "submit"; text: string }
  | { type: "interrupt" }
  | { type: "escape" }
  | { type: "exit" }
  | { type: "cycle-mode" }
  | { type: "expand" }
  | { type: "redraw" };

export interface PromptInputState {
  editor: edit.EditorState;
  /** The history entry shown; `entries.length` when editing a new prompt. */
  historyIndex: number;
  draft: edit.EditorState | undefined;
  /** Ctrl-R: the query, the index of the entry it found and that entry's text. */
  search: { query: string; match: number | undefined; text: string | undefined } | undefined;
  completion: { items: CompletionItem[]; selected: number; kind: "file" | "command" } | undefined;
  /** The word whose completion Esc closed: not offered again until the word changes. */
  dismissed: string | undefined;
}

export interface PromptInputDeps {
  history: PromptHistory;
  files(): readonly string[];
  commands: Record<string, string>;
}

const NEWLINE_KEYS = new Set(["shift+enter", "alt+enter", "ctrl+enter", "ctrl+alt+enter"]);

export function createPromptInput(deps: PromptInputDeps) {
  const state: PromptInputState = {
    editor: edit.emptyEditor(),
    historyIndex: deps.history.entries.length,
    draft: undefined,
    search: undefined,
    completion: undefined,
    dismissed: undefined,
  };

  function setEditor(next: edit.EditorState): void {
    state.editor = next;
    refreshCompletion();
  }

  function refreshCompletion(): void {
    const { text } = edit.wordAtCursor(state.editor);
    if (state.dismissed !== undefined && state.dismissed !== text) state.dismissed = undefined;
    const atPromptStart = state.editor.row === 0 && edit.wordAtCursor(state.editor).start === 0;
    let items: CompletionItem[] = [];
    let kind: "file" | "command" = "file";
    if (text.startsWith("@")) items = fileCompletions(text.slice(1), deps.files());
    else if (text.startsWith("/") && atPromptStart && state.editor.lines.length === 1) {
      items = commandCompletions(text, deps.commands);
      kind = "command";
    }
    const exact = items.length === 1 && items[0]?.insert.trim() === text;
    state.completion =
      items.length > 0 && !exact && state.dismissed !== text ? { items, selected: 0, kind } : undefined;
  }

  function acceptCompletion(): boolean {
    const completion = state.completion;
    const item = completion?.items[completion.selected];
    if (!item) return false;
    setEditor(edit.replaceWordAtCursor(state.editor, item.insert));
    return true;
  }

  function browseHistory(delta: -1 | 1): void {
    const entries = deps.history.entries;
    const index = state.historyIndex + delta;
    if (index < 0 || index > entries.length) return;
    if (state.historyIndex === entries.length) state.draft = state.editor;
    state.historyIndex = index;
    const entry = entries[index];
    setEditor(entry === undefined ? (state.draft ?? edit.emptyEditor()) : edit.editorWithText(entry));
  }

  function submit(): PromptAction | undefined {
    const line = state.editor.lines[state.editor.row] ?? "";
    // a trailing backslash continues the prompt on a new line (as in a shell)
    if (line.endsWith("\\") && state.editor.col === line.length) {
      setEditor(edit.newLine(edit.backspace(state.editor)));
      return undefined;
    }
    const text = edit.editorText(state.editor);
    if (text.trim() === "") return undefined;
    deps.history.add(text);
    state.historyIndex = deps.history.entries.length;
    state.draft = undefined;
    setEditor(edit.emptyEditor());
    return { type: "submit", text };
  }

  function searchKey(key: Key): PromptAction | undefined {
    const search = state.search as NonNullable<PromptInputState["search"]>;
    const id = keyId(key);
    const find = (query: string, before: number) => {
      const match = deps.history.search(query, before);
      state.search = { query, match, text: match === undefined ? undefined : deps.history.entries[match] };
    };
    if (id === "ctrl+r") find(search.query, search.match ?? deps.history.entries.length);
    else if (id === "escape" || id === "ctrl+g" || id === "ctrl+c") state.search = undefined;
    else if (key.name === "backspace") find(search.query.slice(0, -1), deps.history.entries.length);
    else if (key.name === "char" && !key.ctrl && !key.alt)
      find(search.query + (key.text ?? ""), deps.history.entries.length);
    else {
      // any other key takes the match into the editor and then does what it does
      state.search = undefined;
      if (search.text !== undefined) setEditor(edit.editorWithText(search.text));
      return key.name === "enter" ? undefined : editorKey(key);
    }
    return undefined;
  }

  function completionKey(key: Key): PromptAction | undefined | "unhandled" {
    const completion = state.completion;
    if (!completion) return "unhandled";
    const count = completion.items.length;
    switch (keyId(key)) {
      case "up":
        completion.selected = (completion.selected - 1 + count) % count;
        return undefined;
      case "down":
        completion.selected = (completion.selected + 1) % count;
        return undefined;
      case "tab":
        acceptCompletion();
        return undefined;
      case "enter":
        acceptCompletion();
        // a command runs at once; a path is only inserted
        return completion.kind === "command" ? submit() : undefined;
      case "escape":
        state.dismissed = edit.wordAtCursor(state.editor).text;
        state.completion = undefined;
        return undefined;
      default:
        return "unhandled";
    }
  }

  function editorKey(key: Key): PromptAction | undefined {
    const id = keyId(key);
    const e = state.editor;
    if (NEWLINE_KEYS.has(id)) return void setEditor(edit.newLine(e));
    switch (id) {
      case "enter":
        return submit();
      case "ctrl+c":
        return { type: "interrupt" };
      case "escape":
        return { type: "escape" };
      case "ctrl+d":
        if (edit.isEditorEmpty(e)) return { type: "exit" };
        return void setEditor(edit.deleteForward(e));
      case "shift+tab":
        return { type: "cycle-mode" };
      case "ctrl+o":
        return { type: "expand" };
      case "ctrl+l":
        return { type: "redraw" };
      case "ctrl+r":
        state.search = { query: "", match: undefined, text: undefined };
        return undefined;
      case "tab":
        refreshCompletion();
        return undefined;
      case "up":
      case "ctrl+p": {
        const moved = edit.moveVertical(e, -1);
        return void (moved ? setEditor(moved) : browseHistory(-1));
      }
      case "down":
      case "ctrl+n": {
        const moved = edit.moveVertical(e, 1);
        return void (moved ? setEditor(moved) : browseHistory(1));
      }
    }
    const edited = editKey(e, key);
    if (edited) setEditor(edited);
    return undefined;
  }

  return {
    state,
    key(key: Key): PromptAction | undefined {
      if (state.search) return searchKey(key);
      const handled = completionKey(key);
      if (handled !== "unhandled") return handled;
      return editorKey(key);
    },
    /** Adds a prompt that did not come through the editor to the history (`gantry "<prompt>"`). */
    remember(text: string): void {
      deps.history.add(text);
      state.historyIndex = deps.history.entries.length;
    },
    /** Puts text back into the editor (queued prompts after a cancel). */
    restore(text: string): void {
      const current = edit.editorText(state.editor);
      setEditor(edit.editorWithText(current.trim() === "" ? text : `${text}\n${current}`));
    },
    clear(): void {
      setEditor(edit.emptyEditor());
    },
    get empty(): boolean {
      return edit.isEditorEmpty(state.editor);
    },
  };
}

export type PromptInput = ReturnType<typeof createPromptInput>;

/** The editing keys: characters, paste, deletions and cursor moves. */
function editKey(e: edit.EditorState, key: Key): edit.EditorState | undefined {
  if (key.name === "paste") return edit.insertText(e, key.text ?? "");
  if (key.name === "char" && !key.ctrl && !key.alt) return edit.insertText(e, key.text ?? "");
  switch (keyId(key)) {
    case "backspace":
    case "shift+backspace":
      return edit.backspace(e);
    case "alt+backspace":
    case "ctrl+backspace":
    case "ctrl+w":
      return edit.deleteWordBefore(e);
    case "delete":
      return edit.deleteForward(e);
    case "left":
    case "ctrl+b":
      return edit.moveLeft(e);
    case "right":
    case "ctrl+f":
      return edit.moveRight(e);
    case "alt+left":
    case "ctrl+left":
    case "alt+b":
      return edit.moveWordLeft(e);
    case "alt+right":
    case "ctrl+right":
    case "alt+f":
      return edit.moveWordRight(e);
    case "home":
    case "ctrl+a":
      return edit.moveLineStart(e);
    case "end":
    case "ctrl+e":
      return edit.moveLineEnd(e);
    case "ctrl+u":
      return edit.deleteToLineStart(e);
    case "ctrl+k":
      return edit.deleteToLineEnd(e);
    default:
      return undefined;
  }
}
