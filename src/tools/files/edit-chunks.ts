import { z } from "zod";
import { errorResult, okResult, type ToolErrorCode, type ToolResult } from "../contract.js";
import {
  type EditDeps,
  editMetadata,
  editSummaryText,
  loadTextFile,
  resolveWriteTarget,
  rewriteLoadedFile,
  underFileLock,
} from "./edit-flow.js";
import { lineStarts, locateTarget } from "./edit-match.js";
import { alignToForm, type DecodedText, layoutOf, modelTextForms } from "./edit-text.js";

/**
 * The fields of one replacement, shared by replace_file_content and each multi_replace chunk; made
 * inside the tools' lazy schemas (a schema built at load costs every start, tools used or not).
 */
export const replacementFields = () => ({
  TargetContent: z
    .string()
    .describe(
      "The exact text to replace, copied from the file (indentation, tabs and spaces count). It must occur " +
        "once within StartLine–EndLine unless AllowMultiple is true. Never empty.",
    ),
  ReplacementContent: z
    .string()
    .describe("The text that replaces TargetContent (may be empty to delete it)."),
  StartLine: z.number().int().min(1).describe("First line (1-based) of the range that holds TargetContent."),
  EndLine: z
    .number()
    .int()
    .min(1)
    .describe("Last line (1-based, inclusive) of the range that holds TargetContent."),
  AllowMultiple: z
    .boolean()
    .describe(
      "true: replace every occurrence within the range; false: exactly one occurrence must be there.",
    ),
});

export type ReplacementChunk = {
  TargetContent: string;
  ReplacementContent: string;
  StartLine: number;
  EndLine: number;
  AllowMultiple: boolean;
};

interface PlannedEdit {
  start: number;
  end: number;
  replacement: string;
  chunk: number;
}

/** Where each chunk landed, for metadata and the model's summary. */
export interface AppliedChunk {
  occurrences: number;
  lines: string[];
  rangeAdjusted: boolean;
}

type Planned =
  | { ok: true; text: string; applied: AppliedChunk[] }
  | { ok: false; code: ToolErrorCode; message: string; chunk?: number };

/**
 * Checks every chunk against the original text before anything changes: all chunks apply, or none
 * does and the error names the failing chunk. Overlapping chunks are an error.
 */
export function planReplacements(
  decoded: DecodedText,
  chunks: ReplacementChunk[],
  numbered: boolean,
): Planned {
  const label = (i: number) =>
    numbered ? `ReplacementChunks[${i}] (chunk ${i + 1} of ${chunks.length}): ` : "";
  const starts = lineStarts(decoded.text);
  const edits: PlannedEdit[] = [];
  const applied: AppliedChunk[] = [];
  for (const [i, chunk] of chunks.entries()) {
    const invalid = invalidChunk(chunk);
    if (invalid) return { ok: false, code: "invalid_arguments", message: label(i) + invalid, chunk: i };
    const found = locateTarget(decoded.text, starts, {
      forms: modelTextForms(chunk.TargetContent, decoded.lineEnding),
      startLine: chunk.StartLine,
      endLine: chunk.EndLine,
      allowMultiple: chunk.AllowMultiple,
    });
    if (!found.ok) return { ok: false, code: found.code, message: label(i) + found.message, chunk: i };
    const replacement = alignToForm(chunk.ReplacementContent, found.form);
    for (const o of found.occurrences) edits.push({ start: o.start, end: o.end, replacement, chunk: i });
    applied.push({
      occurrences: found.occurrences.length,
      lines: found.occurrences.map((o) =>
        o.firstLine === o.lastLine ? `${o.firstLine}` : `${o.firstLine}–${o.lastLine}`,
      ),
      rangeAdjusted: found.rangeAdjusted,
    });
  }
  edits.sort((a, b) => a.start - b.start);
  for (let k = 1; k < edits.length; k++) {
    const [before, after] = [edits[k - 1] as PlannedEdit, edits[k] as PlannedEdit];
    if (after.start < before.end) {
      const [a, b] = [before.chunk, after.chunk].sort((x, y) => x - y);
      return {
        ok: false,
        code: "conflict",
        message: `ReplacementChunks[${a}] and ReplacementChunks[${b}] overlap (chunks ${(a as number) + 1} and ${(b as number) + 1} of ${chunks.length}); merge them into one chunk. Nothing was changed.`,
        chunk: b,
      };
    }
  }
  const pieces: string[] = [];
  let at = 0;
  for (const edit of edits) {
    pieces.push(decoded.text.slice(at, edit.start), edit.replacement);
    at = edit.end;
  }
  pieces.push(decoded.text.slice(at));
  return { ok: true, text: pieces.join(""), applied };
}

function invalidChunk(chunk: ReplacementChunk): string | undefined {
  if (chunk.TargetContent === "") {
    return "TargetContent is empty. To insert text, put a neighbouring line in TargetContent and the same line plus the new text in ReplacementContent; to create a file, use write_to_file.";
  }
  if (chunk.EndLine < chunk.StartLine)
    return `EndLine (${chunk.EndLine}) is before StartLine (${chunk.StartLine}).`;
  if (chunk.TargetContent === chunk.ReplacementContent) {
    return "TargetContent and ReplacementContent are the same; there is nothing to change.";
  }
  return undefined;
}

/** The whole replace flow: resolve, lock, read, check, plan, write atomically, report. */
export async function replaceInFile(
  deps: EditDeps,
  input: string,
  chunks: ReplacementChunk[],
  signal: AbortSignal,
  numbered: boolean,
): Promise<ToolResult> {
  const target = await resolveWriteTarget(deps, input);
  if (!target.ok) return target.result;
  const resolved = target.value;
  return underFileLock(deps, resolved, async () => {
    const loaded = await loadTextFile(deps, resolved);
    if (!loaded.ok) return loaded.result;
    const file = loaded.value;
    const plan = planReplacements(file.decoded, chunks, numbered);
    if (!plan.ok) {
      const failed = plan.chunk !== undefined && numbered ? { failedChunk: plan.chunk } : {};
      return errorResult(plan.code, `${plan.message}\nThe file is unchanged.`, {
        path: resolved.rel,
        ...failed,
      });
    }
    const committed = await rewriteLoadedFile(deps, resolved, file, plan.text, signal);
    if (!committed.ok) return committed.result;
    const count = plan.applied.reduce((sum, chunk) => sum + chunk.occurrences, 0);
    const where = plan.applied.flatMap((chunk) => chunk.lines).join(", ");
    const adjusted = plan.applied.some((chunk) => chunk.rangeAdjusted);
    const headline =
      `Edited ${resolved.rel}: replaced ${count} occurrence${count === 1 ? "" : "s"} at line(s) ${where}` +
      (adjusted ? " (found just outside the StartLine–EndLine given; the range was adjusted)" : "");
    return okResult(editSummaryText(headline, committed.value), {
      ...editMetadata(resolved, committed.value, committed.value.bytesWritten),
      replacements: count,
      rangeAdjusted: adjusted,
      chunks: plan.applied,
      ...layoutOf(file.decoded),
    });
  });
}
