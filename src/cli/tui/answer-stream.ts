import type { Token } from "marked";
import { renderBlocks, splitBlocks } from "./markdown.js";
import type { Theme } from "./style.js";

/**
 * A streamed answer, block by block: a Markdown block is final once another block has begun after it;
 * final blocks are rendered once and go to the scrollback, and only the block still growing is drawn
 * again at each delta (in the live area), so a long answer streams without redrawing what is done.
 */
export interface AnswerStream {
  /** Adds streamed text; returns the lines of the blocks that became final. */
  push(text: string): string[];
  /** The block still growing, rendered. */
  live(width: number): string[];
  /** Ends the answer; returns the lines of what was still growing. */
  end(): string[];
  readonly empty: boolean;
}

export function createAnswerStream(theme: Theme, width: () => number): AnswerStream {
  let pending = "";
  let blocksShown = 0;

  function render(tokens: Token[]): string[] {
    const lines = renderBlocks(tokens, width(), theme);
    if (lines.length === 0) return [];
    // blocks are separated by one blank line, also across commits
    const spaced = blocksShown > 0 ? ["", ...lines] : lines;
    blocksShown++;
    return spaced;
  }

  return {
    push(text) {
      pending += text.replace(/\r\n?/g, "\n");
      const tokens = splitBlocks(pending);
      let last = tokens.length - 1;
      while (last >= 0 && tokens[last]?.type === "space") last--;
      if (last <= 0) return [];
      const done = tokens.slice(0, last);
      const raw = done.map((token) => token.raw).join("");
      // the lexer's pieces always add up to the text; if they ever do not, keep it all live
      if (!pending.startsWith(raw)) return [];
      pending = pending.slice(raw.length);
      return done.flatMap((token) => render([token]));
    },
    live(columns) {
      if (pending.trim() === "") return [];
      const lines = renderBlocks(splitBlocks(pending), columns, theme);
      return blocksShown > 0 && lines.length > 0 ? ["", ...lines] : lines;
    },
    end() {
      const rest = pending;
      pending = "";
      const lines = rest.trim() === "" ? [] : render(splitBlocks(rest));
      blocksShown = 0;
      return lines;
    },
    get empty() {
      return pending.trim() === "";
    },
  };
}
