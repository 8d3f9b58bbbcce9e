/** The one place tool output is shortened (STYLE rule 5). */
export interface TruncatedText {
  text: string;
  truncated: boolean;
  /** Characters of the original that the result still shows. */
  shownChars: number;
  omittedChars: number;
  totalChars: number;
}

/**
 * Shortens `text` to at most `maxChars`, cutting at a line break when one is near, so a model
 * never sees half a line presented as whole.
 */
export function truncateText(
  text: string,
  maxChars: number,
  keep: "head" | "head_and_tail" = "head",
): TruncatedText {
  const totalChars = text.length;
  if (totalChars <= maxChars) {
    return { text, truncated: false, shownChars: totalChars, omittedChars: 0, totalChars };
  }
  if (keep === "head") {
    const head = cutHead(text, maxChars);
    return {
      text: head,
      truncated: true,
      shownChars: head.length,
      omittedChars: totalChars - head.length,
      totalChars,
    };
  }
  const headBudget = Math.floor(maxChars / 2);
  const head = cutHead(text, headBudget);
  const tail = cutTail(text, maxChars - head.length);
  const omittedChars = totalChars - head.length - tail.length;
  return {
    text: `${head}\n[… ${omittedChars} characters omitted …]\n${tail}`,
    truncated: true,
    shownChars: head.length + tail.length,
    omittedChars,
    totalChars,
  };
}

function cutHead(text: string, maxChars: number): string {
  const slice = text.slice(0, maxChars);
  const lastBreak = slice.lastIndexOf("\n");
  return lastBreak >= maxChars * 0.8 ? slice.slice(0, lastBreak + 1) : slice;
}

function cutTail(text: string, maxChars: number): string {
  const slice = text.slice(text.length - maxChars);
  const firstBreak = slice.indexOf("\n");
  return firstBreak >= 0 && firstBreak <= maxChars * 0.2 ? slice.slice(firstBreak + 1) : slice;
}

/** The closing line of a truncated result: what was left out and how to get the next part. */
export function truncationNotice(cut: TruncatedText, nextStep: string | undefined): string {
  const what = `[output truncated: showing ${cut.shownChars} of ${cut.totalChars} characters; ${cut.omittedChars} omitted.`;
  return nextStep ? `${what} ${nextStep}]` : `${what}]`;
}
