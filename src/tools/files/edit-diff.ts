/** The unified diff of an edit and its line counts: what the terminal UI shows and the model reads. */
export interface ChangeSummary {
  diff: string;
  linesAdded: number;
  linesRemoved: number;
  /** The diff was cut at MAX_DIFF_CHARS (the counts are still whole). */
  diffTruncated?: boolean;
  /** The change was too large to diff in time; the counts are whole-region estimates. */
  diffOmitted?: boolean;
}

const CONTEXT_LINES = 3;
const MAX_DIFF_CHARS = 100_000;
const DIFF_TIMEOUT_MS = 2_000;

/**
 * Diffs only the changed region (common prefix and suffix are cut at line boundaries, keeping three
 * lines of context), so one replace in a 50 MB file costs a scan, not a diff of the whole file.
 */
export async function describeChange(
  relPath: string,
  before: string,
  after: string,
  created = false,
): Promise<ChangeSummary> {
  if (before === after) return { diff: "", linesAdded: 0, linesRemoved: 0 };
  // loaded by the first edit, not by every start (a one-call `gantry tool view_file` never diffs)
  const { FILE_HEADERS_ONLY, formatPatch, structuredPatch } = await import("diff");
  const prefix = commonPrefixLength(before, after);
  const suffix = commonSuffixLength(before, after, prefix);
  let start = prefix === 0 ? 0 : before.lastIndexOf("\n", prefix - 1) + 1;
  let endOld = before.length - suffix;
  let endNew = after.length - suffix;
  for (let k = 0; k < CONTEXT_LINES && start > 0; k++) start = before.lastIndexOf("\n", start - 2) + 1;
  // the suffix is common to both texts, so moving through it moves both ends alike
  const advanceOneLine = () => {
    const next = before.indexOf("\n", endOld);
    const target = next < 0 ? before.length : next + 1;
    endNew += target - endOld;
    endOld = target;
  };
  while (!(isLineEnd(before, endOld) && isLineEnd(after, endNew))) advanceOneLine();
  for (let k = 0; k < CONTEXT_LINES && endOld < before.length; k++) advanceOneLine();
  const skipped = countNewlines(before, start);
  const patch = structuredPatch(
    created ? "/dev/null" : `a/${relPath}`,
    `b/${relPath}`,
    before.slice(start, endOld),
    after.slice(start, endNew),
    undefined,
    undefined,
    { context: CONTEXT_LINES, timeout: DIFF_TIMEOUT_MS },
  );
  if (patch === undefined) {
    return {
      diff: "",
      linesAdded: countNewlines(after.slice(start, endNew)),
      linesRemoved: countNewlines(before.slice(start, endOld)),
      diffOmitted: true,
    };
  }
  let linesAdded = 0;
  let linesRemoved = 0;
  for (const hunk of patch.hunks) {
    hunk.oldStart += skipped;
    hunk.newStart += skipped;
    for (const line of hunk.lines) {
      if (line.startsWith("+")) linesAdded++;
      else if (line.startsWith("-")) linesRemoved++;
    }
  }
  const diff = formatPatch(patch, FILE_HEADERS_ONLY);
  if (diff.length <= MAX_DIFF_CHARS) return { diff, linesAdded, linesRemoved };
  return { diff: diff.slice(0, MAX_DIFF_CHARS), linesAdded, linesRemoved, diffTruncated: true };
}

function isLineEnd(text: string, offset: number): boolean {
  return offset === 0 || offset === text.length || text.charCodeAt(offset - 1) === 10;
}

function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let i = 0;
  while (i < limit && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function commonSuffixLength(a: string, b: string, prefix: number): number {
  const limit = Math.min(a.length, b.length) - prefix;
  let i = 0;
  while (i < limit && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i++;
  return i;
}

function countNewlines(text: string, end = text.length): number {
  let count = 0;
  for (let at = text.indexOf("\n"); at >= 0 && at < end; at = text.indexOf("\n", at + 1)) count++;
  return count;
}
