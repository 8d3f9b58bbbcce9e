import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";
import { defineTool } from "../contract.js";
import type { ToolEnvironment } from "../environment.js";
import { replaceInFile, replacementFields } from "./edit-chunks.js";
import { editDepsOf } from "./edit-flow.js";

export const replaceFileContentParameters = lazySchema(() =>
  z.object({
    TargetFile: z
      .string()
      .describe("The file to edit: a path inside the workspace, absolute or relative to it."),
    Instruction: z
      .string()
      .describe("What this edit should achieve, in one sentence (for review and the logs)."),
    Description: z.string().describe("A short description of the change, shown to the user."),
    ...replacementFields(),
  }),
);

/** replace_file_content (seed 000): one exact, contiguous block replaced inside a line range. */
export function createReplaceFileContentTool(env: ToolEnvironment) {
  const deps = editDepsOf(env);
  return defineTool({
    spec: {
      name: "replace_file_content",
      description:
        "Replace one contiguous block of an existing text file. View the file first (view_file); copy " +
        "TargetContent exactly from it and give the StartLine–EndLine range that holds it. The file's line " +
        "endings, BOM and final newline are kept; the write is atomic. For several separate blocks in one " +
        "file use multi_replace_file_content; to create a file use write_to_file.",
      parameters: replaceFileContentParameters,
      safety: "write",
      group: "Edit",
      aliases: ["edit", "replace"],
    },
    execute(args, ctx) {
      return replaceInFile(deps, args.TargetFile, [args], ctx.signal, false);
    },
  });
}
