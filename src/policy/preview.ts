import { readFile } from "node:fs/promises";
import { describeChange } from "../tools/files/edit-diff.js";
import type { PathResult } from "../workspace/paths.js";
import type { Workspace } from "../workspace/workspace.js";

const MAX_PREVIEW_CHARS = 8_000;
const MAX_FILE_BYTES = 1_000_000;

/**
 * The diff an edit would make, for the permission prompt, made by the same function as the diff shown
 * after the edit (so the user sees one format, with the file's real line numbers). Best effort: a file
 * that cannot be read (missing, secret, outside, too large) or a replacement not found in it shows the
 * replaced text against the new one.
 */
export async function editPreview(
  tool: string,
  args: Record<string, unknown>,
  workspace: Workspace,
): Promise<string | undefined> {
  const target = typeof args.TargetFile === "string" ? args.TargetFile : undefined;
  if (!target) return undefined;
  const resolved = await workspace.resolve(target);
  const name = resolved.ok ? resolved.path.rel : target;
  const before = await currentText(resolved);
  switch (tool) {
    case "write_to_file":
      return clip(
        (await describeChange(name, before ?? "", String(args.CodeContent ?? ""), before === undefined)).diff,
      );
    case "replace_file_content":
      return clip(await replacementsPreview(name, before, [args]));
    case "multi_replace_file_content":
      return clip(
        await replacementsPreview(
          name,
          before,
          Array.isArray(args.ReplacementChunks) ? (args.ReplacementChunks as Record<string, unknown>[]) : [],
        ),
      );
    case "delete_file":
      return `delete ${name}`;
    default:
      return undefined;
  }
}

/** The file after the replacements when each target is found in it; else each chunk on its own. */
async function replacementsPreview(
  name: string,
  before: string | undefined,
  chunks: Record<string, unknown>[],
): Promise<string> {
  let after = before;
  for (const chunk of chunks) {
    const target = String(chunk.TargetContent ?? "");
    if (after === undefined || target === "" || !after.includes(target)) {
      after = undefined;
      break;
    }
    const replacement = String(chunk.ReplacementContent ?? "");
    after =
      chunk.AllowMultiple === true
        ? after.split(target).join(replacement)
        : after.replace(target, () => replacement);
  }
  if (before !== undefined && after !== undefined) return (await describeChange(name, before, after)).diff;
  const changes = await Promise.all(
    chunks.map((chunk) =>
      describeChange(
        name,
        `${String(chunk.TargetContent ?? "")}\n`,
        `${String(chunk.ReplacementContent ?? "")}\n`,
      ),
    ),
  );
  return changes.map((change) => change.diff).join("");
}

async function currentText(resolved: PathResult): Promise<string | undefined> {
  if (!resolved.ok || !resolved.path.exists) return undefined;
  try {
    const bytes = await readFile(resolved.path.abs);
    return bytes.length > MAX_FILE_BYTES ? undefined : bytes.toString("utf8");
  } catch {
    return undefined;
  }
}

function clip(text: string): string {
  return text.length > MAX_PREVIEW_CHARS ? `${text.slice(0, MAX_PREVIEW_CHARS)}\n… (diff cut)` : text;
}
