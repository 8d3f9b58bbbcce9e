import type { Activity } from "./activity.js";
import { type Dialog, drawDialog } from "./dialog.js";
import type { PromptInputState } from "./prompt-input.js";
import type { Frame } from "./screen.js";
import type { Theme } from "./style.js";
import {
  drawActivity,
  drawCompletion,
  drawEditor,
  drawFooter,
  drawQueued,
  drawSearch,
  type FooterFacts,
} from "./views.js";

/** Everything the live area shows, as plain state: the frame is drawn from it and nothing else. */
export interface LiveState {
  /** The growing answer block and the open group of reads (from the transcript). */
  growing: string[];
  activity: Activity;
  queued: readonly string[];
  input: PromptInputState;
  dialog: Dialog | undefined;
  footer: FooterFacts;
  now: number;
}

const PLACEHOLDER = "Type a request · / for commands · @ for files · shift+tab: approval mode";

/** The live area's lines, top to bottom: growing answer, spinner, queued prompts, editor or dialog, footer. */
export function composeFrame(state: LiveState, width: number, theme: Theme, commit: string[]): Frame {
  const lines = [...state.growing];
  const activity = drawActivity(state.activity, state.now, width, theme);
  if (activity.length > 0) lines.push(...(lines.length > 0 ? [""] : []), ...activity);
  lines.push(...drawQueued(state.queued, width, theme));
  let cursor: Frame["cursor"];
  if (state.dialog) {
    const drawn = drawDialog(state.dialog, width, theme);
    if (drawn.cursor) cursor = { row: lines.length + drawn.cursor.row, col: drawn.cursor.col };
    lines.push(...drawn.lines);
  } else {
    const { search, completion } = state.input;
    if (search) lines.push(...drawSearch(search.query, search.text, width, theme));
    const drawn = drawEditor(
      state.input.editor,
      width,
      theme,
      state.activity.startedAt === undefined ? PLACEHOLDER : undefined,
    );
    if (!search && drawn.cursor) cursor = { row: lines.length + drawn.cursor.row, col: drawn.cursor.col };
    lines.push(...drawn.lines);
    if (completion && !search) lines.push(...drawCompletion(completion, width, theme));
  }
  lines.push(...drawFooter(state.footer, width, theme));
  return { commit, live: lines, ...(cursor ? { cursor } : {}) };
}
