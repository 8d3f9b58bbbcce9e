import { openVerifiedFile } from "../../workspace/paths.js";
import { imageMimeTypeOfBytes } from "../../workspace/text.js";
import type { Workspace } from "../../workspace/workspace.js";
import { errorResult, type ToolResult } from "../contract.js";

/** Input images one call may give (OpenAI's edit endpoint takes up to 16). */
export const MAX_INPUT_IMAGES = 16;

export type InputImages =
  | { ok: true; images: Uint8Array[]; paths: string[] }
  | { ok: false; result: ToolResult };

/**
 * The workspace images generate_image edits or takes as references: each through the workspace guard
 * (containment, symlinks, secrets) and opened by its verified descriptor, and each really an image.
 */
export async function readInputImages(workspace: Workspace, inputs: readonly string[]): Promise<InputImages> {
  if (inputs.length > MAX_INPUT_IMAGES) {
    return refuse(
      "invalid_arguments",
      `ImagePaths names ${inputs.length} images; give at most ${MAX_INPUT_IMAGES}.`,
    );
  }
  const images: Uint8Array[] = [];
  const paths: string[] = [];
  for (const input of inputs) {
    const resolved = await workspace.resolve(input);
    if (!resolved.ok) return refuse(resolved.error.code, `ImagePaths: ${resolved.error.message}`);
    if (!resolved.path.exists) return refuse("not_found", `ImagePaths: "${input}" does not exist.`);
    const opened = await openVerifiedFile(workspace.root, resolved.path);
    if (!opened.ok) return refuse(opened.error.code, `ImagePaths: ${opened.error.message}`);
    try {
      const limit = workspace.limits.maxFileBytes;
      if (opened.stats.size > limit) {
        return refuse(
          "too_large",
          `ImagePaths: "${resolved.path.rel}" is ${opened.stats.size} bytes, over the ${limit}-byte limit.`,
        );
      }
      const bytes = new Uint8Array(await opened.handle.readFile());
      if (!imageMimeTypeOfBytes(bytes.subarray(0, 16))) {
        return refuse(
          "binary_file",
          `ImagePaths: "${resolved.path.rel}" is not a PNG, JPEG, GIF or WebP image.`,
        );
      }
      images.push(bytes);
      paths.push(resolved.path.rel);
    } finally {
      await opened.handle.close();
    }
  }
  return { ok: true, images, paths };
}

function refuse(code: Parameters<typeof errorResult>[0], text: string): InputImages {
  return { ok: false, result: errorResult(code, text) };
}
