import { createHash } from "node:crypto";
import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";
import { resolveSkillFile } from "../../skills/skill-files.js";
import { type ContentDigest, digestOfBytes } from "../../workspace/content-digest.js";
import type { OpenFile } from "../../workspace/open-file.js";
import { openVerifiedFile, type PathError, type ResolvedPath } from "../../workspace/paths.js";
import { snapshotOf } from "../../workspace/read-ledger.js";
import { imageMimeType, imageMimeTypeOfBytes, looksBinary } from "../../workspace/text.js";
import { defineTool, errorResult, okResult, type ToolResult } from "../contract.js";
import type { ToolEnvironment } from "../environment.js";
import { bytesSource, type LineWindow, readLineWindow } from "./read-lines.js";

const ViewFileParameters = lazySchema(() =>
  z
    .object({
      AbsolutePath: z
        .string()
        .describe("The file to read: an absolute path inside the workspace, or a path relative to its root."),
      StartLine: z
        .number()
        .int()
        .min(1)
        .optional()
        .describe(
          "First line to show, 1-based. Giving StartLine or EndLine streams the file, so a part of a file of any size can be read.",
        ),
      EndLine: z
        .number()
        .int()
        .min(1)
        .optional()
        .describe(
          "Last line to show, 1-based and inclusive. Default: as many lines as one call shows without a range, from StartLine.",
        ),
      ContentOffset: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe(
          "Character offset into line StartLine (default line 1) where the output begins. For a line too long for one call (minified code): a cut result names the StartLine and ContentOffset that continue it.",
        ),
      IsSkillFile: z
        .boolean()
        .optional()
        .describe(
          "true to read a file of a skill listed in the system prompt (its SKILL.md or a file it names), which may lie outside the workspace. Read-only.",
        ),
    })
    .refine((args) => args.EndLine === undefined || args.EndLine >= (args.StartLine ?? 1), {
      path: ["EndLine"],
      message: "EndLine must be greater than or equal to StartLine",
    }),
);

type ViewFileArgs = z.infer<ReturnType<typeof ViewFileParameters>>;

type ResolvedTarget =
  | { ok: true; root: string; path: ResolvedPath; shown: string; skill?: string }
  | { ok: false; error: PathError };

const SAMPLE_BYTES = 8192;

/** `view_file`: numbered lines of a text file (streamed for ranges), or an image part for a picture. */
export function createViewFileTool(env: ToolEnvironment) {
  const { workspace } = env;

  /** The workspace's file, or with IsSkillFile a discovered skill's file (its folder is then the root). */
  async function resolveTarget(args: ViewFileArgs): Promise<ResolvedTarget> {
    if (args.IsSkillFile && env.skills) {
      const found = await resolveSkillFile(env.skills, args.AbsolutePath, workspace.root, workspace.secrets);
      if (found.kind === "refused") return { ok: false, error: found.error };
      if (found.kind === "skill") {
        return {
          ok: true,
          root: found.root,
          path: found.path,
          shown: found.path.abs,
          skill: found.skill.name,
        };
      }
    }
    const inWorkspace = await workspace.resolve(args.AbsolutePath);
    if (inWorkspace.ok)
      return { ok: true, root: workspace.root, path: inWorkspace.path, shown: inWorkspace.path.rel };
    if (args.IsSkillFile && inWorkspace.error.code === "outside_workspace") {
      const message = `"${args.AbsolutePath}" is neither inside the workspace nor inside a discovered skill's folder; IsSkillFile reads only the skills listed in the system prompt (\`gantry skills\` lists them).`;
      return { ok: false, error: { code: "outside_workspace", message } };
    }
    return inWorkspace;
  }

  return defineTool({
    spec: {
      name: "view_file",
      description:
        "Read a text file of the workspace. Lines come back numbered (1-based). Without StartLine/EndLine the first lines are shown and files over the size limit are refused; with a range any part of a file of any size can be read. A cut result ends with the exact arguments of the next call. Images (PNG, JPEG, GIF, WebP) come back as pictures; other binary files are refused.",
      parameters: ViewFileParameters,
      safety: "read_only",
      group: "Read",
      aliases: ["read_file", "read"],
    },
    async execute(args, ctx) {
      const resolved = await resolveTarget(args);
      if (!resolved.ok) return errorResult(resolved.error.code, resolved.error.message);
      if (!resolved.path.exists) {
        return errorResult("not_found", `"${args.AbsolutePath}" does not exist.`, {
          path: resolved.shown,
        });
      }
      const opened = await openVerifiedFile(resolved.root, resolved.path);
      if (!opened.ok) return errorResult(opened.error.code, opened.error.message);
      const { handle, stats } = opened;
      const rel = resolved.shown;
      // only workspace files can be edited later: a skill file's read is not recorded for an edit
      const reads = resolved.skill ? { record: () => undefined } : env.reads;
      try {
        const sample = await readSample(handle, stats.size);
        const imageType =
          imageMimeTypeOfBytes(sample) ?? (looksBinary(sample) ? imageMimeType(rel) : undefined);
        if (imageType) {
          const image = await readImage(handle, stats.size, imageType, rel, workspace.limits.maxFileBytes);
          if (image.ok) reads.record(resolved.path.abs, snapshotOf(stats, image.sha256));
          return image.result;
        }
        if (looksBinary(sample)) {
          return errorResult(
            "binary_file",
            `"${rel}" is a binary file (${stats.size} bytes); view_file shows text files and images only.`,
            { path: rel, bytes: stats.size },
          );
        }
        const ranged =
          args.StartLine !== undefined || args.EndLine !== undefined || args.ContentOffset !== undefined;
        if (!ranged && stats.size > workspace.limits.maxFileBytes)
          return tooLargeResult(args, rel, stats.size);
        // the editor's text of the file, unsaved changes included, when it offers it (ACP clients)
        const edited = await editorText(resolved.path.abs, stats.size, ctx.signal);
        const source = edited === undefined ? handle : bytesSource(Buffer.from(edited, "utf8"));
        const size = edited === undefined ? stats.size : Buffer.byteLength(edited, "utf8");
        const request = windowRequest(args, size, ctx.signal);
        const window = await readLineWindow(source, request);
        // edits apply to the file on disk: the read that vouches for them is the disk's content
        const sha256 = edited === undefined ? window.sha256 : await diskSha256(handle);
        reads.record(resolved.path.abs, snapshotOf(stats, sha256));
        const result = windowResult(args, rel, size, window, request.endLine);
        return edited === undefined
          ? result
          : { ...result, metadata: { ...result.metadata, fromEditor: true } };
      } finally {
        await handle.close();
      }
    },
  });

  /** What the editor holds for a file small enough to read whole; undefined when it says nothing. */
  async function editorText(abs: string, size: number, signal: AbortSignal): Promise<string | undefined> {
    const editor = env.editorFiles;
    if (!editor?.readText || size > workspace.limits.maxFileBytes) return undefined;
    return editor.readText(abs, signal).catch(() => undefined);
  }

  function windowRequest(args: ViewFileArgs, sizeBytes: number, signal: AbortSignal) {
    const { maxReadLines, maxOutputChars, maxFileBytes } = workspace.limits;
    const startLine = args.StartLine ?? 1;
    // room for the closing line, which repeats the path in the next call's arguments
    const reserve = Math.min(Math.floor(maxOutputChars / 2), 300 + JSON.stringify(args.AbsolutePath).length);
    return {
      startLine,
      endLine: args.EndLine ?? startLine + maxReadLines - 1,
      contentOffset: args.ContentOffset ?? 0,
      maxChars: maxOutputChars - reserve,
      readToEnd: sizeBytes <= maxFileBytes,
      sizeBytes,
      signal,
    };
  }
}

async function diskSha256(handle: OpenFile): Promise<string> {
  return createHash("sha256")
    .update(await handle.readFile())
    .digest("hex");
}

async function readSample(handle: OpenFile, size: number): Promise<Buffer> {
  const sample = Buffer.alloc(Math.min(SAMPLE_BYTES, size));
  const { bytesRead } = await handle.read(sample, 0, sample.length, 0);
  return sample.subarray(0, bytesRead);
}

async function readImage(
  handle: OpenFile,
  size: number,
  mimeType: string,
  rel: string,
  maxBytes: number,
): Promise<{ ok: true; result: ToolResult; sha256: ContentDigest } | { ok: false; result: ToolResult }> {
  if (size > maxBytes) {
    const text = `"${rel}" is an image of ${size} bytes, over the ${maxBytes}-byte limit; refused.`;
    return { ok: false, result: errorResult("too_large", text, { path: rel, bytes: size, mimeType }) };
  }
  const bytes = await handle.readFile();
  const result = okResult(`Image "${rel}" (${mimeType}, ${bytes.length} bytes) is attached.`, {
    path: rel,
    bytes: bytes.length,
    mimeType,
  });
  return {
    ok: true,
    result: { ...result, images: [{ mimeType, data: bytes.toString("base64") }] },
    sha256: digestOfBytes(bytes),
  };
}

function tooLargeResult(args: ViewFileArgs, rel: string, size: number): ToolResult {
  const skill = args.IsSkillFile ? { IsSkillFile: true } : {};
  const example = JSON.stringify({ AbsolutePath: args.AbsolutePath, ...skill, StartLine: 1, EndLine: 200 });
  return errorResult(
    "too_large",
    `"${rel}" is ${size} bytes, over the limit for reading a whole file. Pass StartLine and EndLine to read a part of it (any part of any size can be read that way), e.g. ${example}.`,
    { path: rel, bytes: size },
  );
}

function windowResult(
  args: ViewFileArgs,
  rel: string,
  bytes: number,
  window: LineWindow,
  requestedEnd: number,
): ToolResult {
  const facts = { path: rel, bytes, totalLines: window.totalLines };
  if (window.offsetPastEndOfLine !== undefined) {
    return errorResult(
      "invalid_arguments",
      `ContentOffset ${args.ContentOffset} is past the end of line ${window.firstLine}, which has ${window.offsetPastEndOfLine} characters.`,
      facts,
    );
  }
  if (bytes === 0) {
    return okResult("[empty file: 0 bytes]", { ...facts, startLine: 0, endLine: 0, truncated: false });
  }
  if (window.lines.length === 0 && window.totalLines !== undefined) {
    return errorResult(
      "invalid_arguments",
      `StartLine ${window.firstLine} is past the end of "${rel}", which has ${window.totalLines} lines.`,
      facts,
    );
  }
  const next = nextCall(args, window, requestedEnd);
  const metadata = {
    ...facts,
    startLine: window.firstLine,
    endLine: window.lastLine,
    truncated: next !== undefined,
    ...(next ? { next } : {}),
  };
  const text = window.lines.join("\n");
  return okResult(next ? `${text}\n${closingLine(window, next)}` : text, metadata);
}

/** The arguments of the call that continues a cut result, or undefined when nothing asked for was left out. */
function nextCall(args: ViewFileArgs, window: LineWindow, requestedEnd: number) {
  const base = { AbsolutePath: args.AbsolutePath, ...(args.IsSkillFile ? { IsSkillFile: true } : {}) };
  if (window.cut) {
    const end = args.EndLine !== undefined ? { EndLine: args.EndLine } : {};
    const offset =
      window.cut.nextContentOffset !== undefined ? { ContentOffset: window.cut.nextContentOffset } : {};
    return { ...base, StartLine: window.cut.nextStartLine, ...end, ...offset };
  }
  // an explicit EndLine that was fully shown is complete; the default window is cut when the file goes on
  if (args.EndLine === undefined && window.moreAfter) return { ...base, StartLine: requestedEnd + 1 };
  return undefined;
}

function closingLine(window: LineWindow, next: Record<string, unknown>): string {
  const total = window.totalLines !== undefined ? ` of ${window.totalLines}` : "";
  const partial =
    window.cut?.nextContentOffset !== undefined
      ? `line ${window.cut.nextStartLine} is shown only up to character ${window.cut.nextContentOffset}`
      : `lines ${window.firstLine}-${window.lastLine}${total} shown`;
  const why = window.cut ? "output limit reached" : "line limit of one call without EndLine reached";
  return `[truncated (${why}): ${partial}; the rest was left out. Next call: ${JSON.stringify(next)}]`;
}
