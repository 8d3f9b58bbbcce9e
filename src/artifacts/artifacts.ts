import path from "node:path";
import { z } from "zod";
import { lazySchema } from "../config/lazy-schema.js";
import type { Settings } from "../config/settings.js";

/**
 * Artifacts (seed 000): documents the agent writes for the user rather than for the code — plans, task
 * lists, walkthroughs, reports — and the images it generates. They live in one folder of the workspace
 * (`images.dir`, default `.agents/artifacts`), and each is recorded in the session log through its tool
 * result's `metadata.artifact`, so `gantry artifacts` and a resumed session know them.
 */
export const ARTIFACT_TYPES = ["plan", "task_list", "walkthrough", "report", "image", "other"] as const;
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];

export const DEFAULT_ARTIFACTS_DIR = ".agents/artifacts";

export const ArtifactMetadataSchema = lazySchema(() =>
  z
    .object({
      ArtifactType: z
        .enum(ARTIFACT_TYPES)
        .describe("What the document is: plan, task_list, walkthrough, report, image or other."),
      Summary: z
        .string()
        .trim()
        .min(1)
        .max(500)
        .describe("One or two sentences on what the document holds, for the user's list of artifacts."),
    })
    .describe(
      "Makes the file an artifact: a document for the user (plan, task list, walkthrough, report). It is written into the session's artifacts folder (a bare file name goes there) and listed for the user.",
    ),
);
export type ArtifactMetadata = z.infer<ReturnType<typeof ArtifactMetadataSchema>>;

/** One artifact as the session log records it (`metadata.artifact` of the tool result that made it). */
export interface ArtifactRecord {
  /** Workspace-relative. */
  path: string;
  type: ArtifactType;
  summary: string;
  /** The tool that wrote it. */
  tool: string;
  createdAt: string;
}

/** The artifacts of one session: resumed ones first, then those its tools write. */
export interface ArtifactLog {
  list(): ArtifactRecord[];
  add(record: ArtifactRecord): void;
  /** The list of another session file (the UI's /clear and /resume). */
  replace(records: readonly ArtifactRecord[]): void;
}

export function createArtifactLog(initial: readonly ArtifactRecord[] = []): ArtifactLog {
  const records = [...initial];
  return {
    list: () => [...records],
    add(record) {
      // writing the same document again updates its entry instead of listing it twice
      const at = records.findIndex((known) => known.path === record.path);
      if (at >= 0) records.splice(at, 1);
      records.push(record);
    },
    replace(next) {
      records.splice(0, records.length, ...next);
    },
  };
}

/** The artifacts folder, workspace-relative ("/"-separated), as settings name it. */
export function artifactsDirOf(settings: Settings): string {
  const dir = settings.images?.dir ?? DEFAULT_ARTIFACTS_DIR;
  return path.posix.normalize(dir.replaceAll("\\", "/")).replace(/\/+$/, "") || ".";
}

/** The record a tool result carries, if it is a well-formed one. */
export function artifactOfMetadata(metadata: unknown): ArtifactRecord | undefined {
  const artifact = (metadata as { artifact?: unknown } | undefined)?.artifact;
  if (typeof artifact !== "object" || artifact === null) return undefined;
  const record = artifact as Record<string, unknown>;
  if (typeof record.path !== "string" || typeof record.summary !== "string") return undefined;
  if (!(ARTIFACT_TYPES as readonly unknown[]).includes(record.type)) return undefined;
  return {
    path: record.path,
    type: record.type as ArtifactType,
    summary: record.summary,
    tool: typeof record.tool === "string" ? record.tool : "unknown",
    createdAt: typeof record.createdAt === "string" ? record.createdAt : "",
  };
}

/**
 * Where an artifact document goes: a bare file name into the artifacts folder, a path only if it lies in
 * that folder (workspace-relative result). The write guard then judges it like any write.
 */
export function artifactTargetOf(
  input: string,
  folder: string,
  workspaceRoot: string,
): { ok: true; target: string } | { ok: false; message: string } {
  if (!/[/\\]/.test(input)) return { ok: true, target: `${folder}/${input}` };
  const rel = path.relative(workspaceRoot, path.resolve(workspaceRoot, input)).split(path.sep).join("/");
  if (folder === "." || rel === folder || rel.startsWith(`${folder}/`)) return { ok: true, target: rel };
  return {
    ok: false,
    message: `With ArtifactMetadata, TargetFile must be a file name (it is written into ${folder}/, the artifacts folder) or a path inside ${folder}/; "${input}" lies elsewhere. Give a name such as "plan.md", or write the file without ArtifactMetadata.`,
  };
}
