import type { Theme } from "./style.js";

/**
 * The model's reasoning as it streams, dimmed and apart from the answer: whole lines go to the
 * scrollback as they complete; the line still growing is kept until the next line break or the end.
 */
export function createThinkingLines(theme: Theme, wrap: (text: string) => string[]) {
  let pending = "";
  const paint = (line: string) => theme.paintAll(["dim", "italic"], line);
  return {
    /** Adds streamed reasoning; returns the finished lines. */
    push(text: string): string[] {
      pending += text.replace(/\r\n?/g, "\n");
      const cut = pending.lastIndexOf("\n");
      if (cut < 0) return [];
      const done = pending.slice(0, cut);
      pending = pending.slice(cut + 1);
      return done.split("\n").flatMap((line) => wrap(line).map(paint));
    },
    /** Ends the reasoning (the answer or a tool call begins); returns what was left. */
    end(): string[] {
      const rest = pending;
      pending = "";
      return rest.trim() === "" ? [] : wrap(rest).map(paint);
    },
  };
}
