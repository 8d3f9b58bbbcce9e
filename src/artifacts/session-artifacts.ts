import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { listSessionIds } from "../session/jsonl.js";
import { transcriptDirFor } from "../subagents/transcript.js";
import { type ArtifactRecord, artifactOfMetadata, createArtifactLog } from "./artifacts.js";

/**
 * The artifacts a saved session made: every successful tool result carrying `metadata.artifact`, in
 * the session file and in its subagents' transcripts beside it. A later write of the same path replaces
 * the earlier entry. Unreadable files and lines are skipped (the session reader reports them).
 */
export function readSessionArtifacts(sessionFile: string): ArtifactRecord[] {
  const log = createArtifactLog();
  for (const file of [sessionFile, ...transcriptFiles(sessionFile)]) {
    for (const record of artifactsInFile(file)) log.add(record);
  }
  return log.list();
}

export interface SessionArtifacts {
  sessionId: string;
  artifacts: ArtifactRecord[];
}

/** Every session of a workspace that made artifacts, oldest first (ids sort by time). */
export function listWorkspaceArtifacts(sessionsDir: string): SessionArtifacts[] {
  return listSessionIds(sessionsDir)
    .map((sessionId) => ({
      sessionId,
      artifacts: readSessionArtifacts(path.join(sessionsDir, `${sessionId}.jsonl`)),
    }))
    .filter((session) => session.artifacts.length > 0);
}

function artifactsInFile(file: string): ArtifactRecord[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const found: ArtifactRecord[] = [];
  for (const line of text.split("\n")) {
    // most lines hold no artifact: only those naming one are parsed
    if (!line.includes('"artifact"')) continue;
    let entry: { type?: unknown; result?: { error?: unknown; metadata?: unknown } };
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (entry.type !== "tool_result" || entry.result?.error !== false) continue;
    const record = artifactOfMetadata(entry.result.metadata);
    if (record) found.push(record);
  }
  return found;
}

function transcriptFiles(sessionFile: string): string[] {
  const dir = transcriptDirFor(sessionFile);
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith(".jsonl"))
      .sort()
      .map((name) => path.join(dir, name));
  } catch {
    return [];
  }
}
