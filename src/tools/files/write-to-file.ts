import { lstat } from "node:fs/promises";
import { z } from "zod";
import {
  type ArtifactLog,
  type ArtifactMetadata,
  ArtifactMetadataSchema,
  artifactsDirOf,
  artifactTargetOf,
} from "../../artifacts/artifacts.js";
import { lazySchema } from "../../config/lazy-schema.js";
import type { ResolvedPath } from "../../workspace/paths.js";
import { defineTool, errorResult, okResult, type ToolResult } from "../contract.js";
import type { ToolEnvironment } from "../environment.js";
import {
  commitFile,
  createParentFolders,
  type EditDeps,
  editDepsOf,
  editMetadata,
  editSummaryText,
  loadTextFile,
  removeCreatedFolders,
  resolveWriteTarget,
  rewriteLoadedFile,
  underFileLock,
} from "./edit-flow.js";
import { layoutOf } from "./edit-text.js";

export const writeToFileParameters = lazySchema(() =>
  z.object({
    TargetFile: z
      .string()
      .describe("The file to write: a path inside the workspace, absolute or relative to it."),
    Overwrite: z
      .boolean()
      .describe(
        "Must be true to replace an existing file (which you must have viewed first); false only creates.",
      ),
    CodeContent: z.string().describe("The complete content of the file."),
    Description: z.string().describe("A short description of the file or the change, shown to the user."),
    ArtifactMetadata: ArtifactMetadataSchema().optional(),
  }),
);

type WriteArgs = z.infer<ReturnType<typeof writeToFileParameters>>;

/**
 * write_to_file (seed 000): creates a file (and its missing folders) or replaces one whole. Replacing
 * an existing file needs an earlier read in the session, as Claude Code requires: overwriting text the
 * agent never saw is how work gets lost.
 */
export function createWriteToFileTool(env: ToolEnvironment) {
  const deps = editDepsOf(env);
  const artifacts = artifactsDirOf(env.settings);
  const targetOf = (args: { TargetFile: string; ArtifactMetadata?: unknown }) =>
    args.ArtifactMetadata === undefined
      ? ({ ok: true, target: args.TargetFile } as const)
      : artifactTargetOf(args.TargetFile, artifacts, env.workspace.root);
  return defineTool({
    spec: {
      name: "write_to_file",
      description:
        "Create a new text file with the given content, creating missing folders, or (with Overwrite: " +
        "true) replace an existing file whole after viewing it. Prefer replace_file_content for small " +
        "changes to an existing file: it costs fewer tokens and keeps unrelated lines safe. With " +
        "ArtifactMetadata it writes an artifact (a plan, task list, walkthrough or report for the user) " +
        "into the artifacts folder.",
      parameters: writeToFileParameters,
      safety: "write",
      group: "Edit",
      aliases: ["write_file", "write"],
      // an artifact's real target, so Edit rules judge where it goes
      effects: (args) => {
        const target =
          typeof args.TargetFile === "string"
            ? targetOf(args as { TargetFile: string; ArtifactMetadata?: unknown })
            : undefined;
        return { writes: args.ArtifactMetadata !== undefined && target?.ok ? [target.target] : [] };
      },
    },
    async execute(args, ctx) {
      const wanted = targetOf(args);
      if (!wanted.ok) return errorResult("invalid_arguments", wanted.message);
      const target = await resolveWriteTarget(deps, wanted.target);
      if (!target.ok) return target.result;
      const resolved = target.value;
      const written = await underFileLock(deps, resolved, async () => {
        const existing = await lstat(resolved.abs).catch(() => undefined);
        if (!existing) return createFile(deps, resolved, args, ctx.signal);
        if (existing.isDirectory()) {
          return errorResult("not_a_file", `"${resolved.rel}" is a folder, not a file.`, {
            path: resolved.rel,
          });
        }
        if (!args.Overwrite) {
          return errorResult(
            "conflict",
            `"${resolved.rel}" already exists. To replace all of it, view it and call again with Overwrite: ` +
              "true; to change part of it, use replace_file_content.",
            { path: resolved.rel },
          );
        }
        return overwriteFile(deps, { ...resolved, exists: true }, args, ctx.signal);
      });
      return args.ArtifactMetadata
        ? asArtifact(written, resolved.rel, args.ArtifactMetadata, env.artifacts)
        : written;
    },
  });
}

/** A written artifact document: recorded in the session's list and, through its metadata, in the session log. */
function asArtifact(
  result: ToolResult,
  rel: string,
  metadata: ArtifactMetadata,
  log: ArtifactLog | undefined,
): ToolResult {
  if (result.error) return result;
  const artifact = {
    path: rel,
    type: metadata.ArtifactType,
    summary: metadata.Summary,
    tool: "write_to_file",
    createdAt: new Date().toISOString(),
  };
  log?.add(artifact);
  return {
    ...result,
    text: `${result.text}\nRecorded as a ${metadata.ArtifactType} artifact; the user sees it in their list of artifacts.`,
    metadata: { ...result.metadata, artifact },
  };
}

async function createFile(
  deps: EditDeps,
  resolved: ResolvedPath,
  args: WriteArgs,
  signal: AbortSignal,
): Promise<ToolResult> {
  const folders = await createParentFolders(deps, resolved);
  if (!folders.ok) return folders.result;
  const bytes = Buffer.from(args.CodeContent, "utf8");
  const committed = await commitFile(deps, {
    resolved,
    bytes,
    beforeText: "",
    afterText: args.CodeContent,
    signal,
  });
  if (!committed.ok) {
    await removeCreatedFolders(deps, folders.value);
    return committed.result;
  }
  const madeFolders = folders.value.length > 0 ? ` and folder(s) ${folders.value.join(", ")}` : "";
  return okResult(
    editSummaryText(`Created ${resolved.rel}${madeFolders}, ${bytes.length} bytes`, committed.value),
    {
      ...editMetadata(resolved, committed.value, bytes.length),
      created: true,
      createdFolders: folders.value,
    },
  );
}

async function overwriteFile(
  deps: EditDeps,
  resolved: ResolvedPath,
  args: WriteArgs,
  signal: AbortSignal,
): Promise<ToolResult> {
  const loaded = await loadTextFile(deps, resolved);
  if (!loaded.ok) return loaded.result;
  const file = loaded.value;
  const modelText =
    file.decoded.lineEnding === "mixed" ? args.CodeContent : args.CodeContent.replaceAll("\r\n", "\n");
  const committed = await rewriteLoadedFile(deps, resolved, file, modelText, signal);
  if (!committed.ok) return committed.result;
  const { bytesWritten } = committed.value;
  return okResult(editSummaryText(`Overwrote ${resolved.rel}, ${bytesWritten} bytes`, committed.value), {
    ...editMetadata(resolved, committed.value, bytesWritten),
    created: false,
    ...layoutOf(file.decoded),
  });
}
