import { existsSync } from "node:fs";
import path from "node:path";
import type { ArtifactRecord } from "./artifacts.js";

/** Artifacts listed in a resumed session's system prompt at most (the newest). */
const MAX_PROMPT_ARTIFACTS = 50;

/** A resumed session's artifacts for the system prompt: what exists already, so the agent updates it. */
export function artifactsPromptSection(artifacts: readonly ArtifactRecord[]): string | undefined {
  if (artifacts.length === 0) return undefined;
  const shown = artifacts.slice(-MAX_PROMPT_ARTIFACTS);
  const older = artifacts.length - shown.length;
  return [
    "# Artifacts of this session",
    "Documents and images written earlier in this session (workspace-relative). View one before you overwrite it.",
    ...(older > 0 ? [`(${older} older ones are not listed)`] : []),
    ...shown.map((artifact) => `- ${artifact.path} (${artifact.type}): ${artifact.summary}`),
  ].join("\n");
}

/** Lines for `gantry artifacts` and `/artifacts`: type, path (marked when the file is gone), summary. */
export function artifactLines(artifacts: readonly ArtifactRecord[], workspaceRoot: string): string[] {
  const width = Math.max(4, ...artifacts.map((artifact) => artifact.type.length));
  return artifacts.map((artifact) => {
    const gone = existsSync(path.join(workspaceRoot, artifact.path)) ? "" : " (missing)";
    return `  ${artifact.type.padEnd(width)}  ${artifact.path}${gone}  ${artifact.summary}`;
  });
}
