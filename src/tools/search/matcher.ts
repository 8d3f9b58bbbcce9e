/**
 * What a grep query matches, for the Node engine and for shortening long lines. Literal queries are
 * searched as bytes (Buffer.indexOf); regexes and case-insensitive queries use JavaScript RegExp.
 */
export interface LineMatcher {
  /** Byte needle for a case-sensitive literal query; undefined when a RegExp is needed. */
  readonly needle: Buffer | undefined;
  /** Global, multi-line RegExp over decoded text (set when `needle` is undefined). */
  readonly chunkPattern: RegExp | undefined;
  /** True when one line (without its line break) matches. */
  test(line: string): boolean;
  /** Index of the first match in the line, or -1. */
  firstIndex(line: string): number;
}

export type MatcherResult = { ok: true; matcher: LineMatcher } | { ok: false; message: string };

export function compileMatcher(query: string, isRegex: boolean, caseInsensitive: boolean): MatcherResult {
  if (!isRegex && !caseInsensitive) {
    return {
      ok: true,
      matcher: {
        needle: Buffer.from(query, "utf8"),
        chunkPattern: undefined,
        test: (line) => line.includes(query),
        firstIndex: (line) => line.indexOf(query),
      },
    };
  }
  const source = isRegex ? query : escapeRegExp(query);
  const flags = caseInsensitive ? "i" : "";
  let linePattern: RegExp;
  let chunkPattern: RegExp;
  try {
    linePattern = new RegExp(source, flags);
    chunkPattern = new RegExp(source, `${flags}gm`);
  } catch (cause) {
    return { ok: false, message: `Query is not a valid regular expression: ${(cause as Error).message}` };
  }
  return {
    ok: true,
    matcher: {
      needle: undefined,
      chunkPattern,
      test: (line) => linePattern.test(line),
      firstIndex: (line) => line.search(linePattern),
    },
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}
