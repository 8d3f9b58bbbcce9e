import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";
import { defineTool } from "../contract.js";
import type { ToolEnvironment } from "../environment.js";
import { replaceInFile, replacementFields } from "./edit-chunks.js";
import { editDepsOf } from "./edit-flow.js";

export const multiReplaceFileContentParameters = lazySchema(() =>
  z.object({
    TargetFile: z
      .string()
      .describe("The file to edit: a path inside the workspace, absolute or relative to it."),
    Instruction: z
      .string()
      .describe("What these edits should achieve, in one sentence (for review and the logs)."),
    Description: z.string().describe("A short description of the change, shown to the user."),
    ReplacementChunks: z
      .array(z.object(replacementFields()))
      .min(1)
      .describe(
        "The separate blocks to replace, each located in the original file (line numbers of the file as it " +
          "is now, not after earlier chunks). Chunks must not overlap. All apply, or none does.",
      ),
  }),
);

/** multi_replace_file_content (seed 000): several separate blocks of one file, all or none. */
export function createMultiReplaceFileContentTool(env: ToolEnvironment) {
  const deps = editDepsOf(env);
  return defineTool({
    spec: {
      name: "multi_replace_file_content",
      description:
        "Replace several separate blocks of one existing text file in one atomic edit. Every chunk is " +
        "checked against the current file first; if any chunk is not found, is ambiguous or overlaps " +
        "another, nothing changes and the error names the chunk. View the file first (view_file).",
      parameters: multiReplaceFileContentParameters,
      safety: "write",
      group: "Edit",
      aliases: ["multi_edit"],
    },
    execute(args, ctx) {
      return replaceInFile(deps, args.TargetFile, args.ReplacementChunks, ctx.signal, true);
    },
  });
}
