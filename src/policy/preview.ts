import { readFile } from "node:fs/promises";
import { createTwoFilesPatch } from "diff";
import type { PathResult } from "../workspace/paths.js";
import type { Workspace } from "../workspace/workspace.js";

const MAX_PREVIEW_CHARS = 8_000;
const MAX_FILE_BYTES = 1_000_000;

/**
 * The diff an edit would make, for the permission prompt. Best effort: a file that cannot be read
 * (missing, secret, outside, too large) shows the proposed text against nothing.
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
  switch (tool) {
    case "write_to_file":
      return clip(
        createTwoFilesPatch(name, name, (await currentText(resolved)) ?? "", String(args.CodeContent ?? "")),
      );
    case "replace_file_content":
      return clip(chunkPatch(name, [args]));
    case "multi_replace_file_content":
      return clip(
        chunkPatch(
          name,
          Array.isArray(args.ReplacementChunks) ? (args.ReplacementChunks as Record<string, unknown>[]) : [],
        ),
      );
    case "delete_file":
      return `delete ${name}`;
    default:
      return undefined;
  }
}

function chunkPatch(name: string, chunks: Record<string, unknown>[]): string {
  return chunks
    .map((chunk) =>
      createTwoFilesPatch(
        name,
        name,
        `${String(chunk.TargetContent ?? "")}\n`,
        `${String(chunk.ReplacementContent ?? "")}\n`,
      ),
    )
    .join("\n");
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
