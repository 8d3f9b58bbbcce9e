import path from "node:path";
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
  };
}

/** The artifacts folder, workspace-relative ("/"-separated), as settings name it. */
export function artifactsDirOf(settings: Settings): string {
  const dir = settings.images?.dir ?? DEFAULT_ARTIFACTS_DIR;
  return path.posix.normalize(dir.replaceAll("\\", "/")).replace(/\/+$/, "") || ".";
}
