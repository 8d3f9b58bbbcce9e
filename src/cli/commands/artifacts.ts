import { homedir } from "node:os";
import path from "node:path";
import { artifactLines } from "../../artifacts/format.js";
import { listWorkspaceArtifacts, readSessionArtifacts } from "../../artifacts/session-artifacts.js";
import { findSessionFile, latestSessionFile, sessionsDir } from "../../session/jsonl.js";
import { type GlobalOptions, UsageError } from "../options.js";
import { workspaceRootOf } from "./workspace-root.js";

/**
 * `gantry artifacts`: the plans, reports, images… the agent made in this workspace, session by session
 * (`--resume ID` or `--continue` for one session), read from the session logs.
 */
export async function run(args: string[], options: GlobalOptions): Promise<number> {
  if (args.length > 0) throw new UsageError(`gantry artifacts takes no arguments (got ${args.join(" ")})`);
  const root = workspaceRootOf(options);
  const dir = sessionsDir(homedir(), root);
  const sessions = selectedSessions(dir, options);
  if (sessions.length === 0) {
    process.stdout.write("No artifacts in this workspace's sessions yet.\n");
    return 0;
  }
  for (const [index, session] of sessions.entries()) {
    if (index > 0) process.stdout.write("\n");
    process.stdout.write(`session ${session.sessionId}\n`);
    for (const line of artifactLines(session.artifacts, root)) process.stdout.write(`${line}\n`);
  }
  return 0;
}

function selectedSessions(dir: string, options: GlobalOptions) {
  if (options.resume === undefined && !options.continue) return listWorkspaceArtifacts(dir);
  let file: string | undefined;
  if (options.resume !== undefined) {
    const found = findSessionFile(dir, options.resume);
    if (!found.ok) throw new UsageError(found.message);
    file = found.file;
  } else {
    file = latestSessionFile(dir);
    if (file === undefined) throw new UsageError(`no session to show in this workspace (${dir})`);
  }
  const artifacts = readSessionArtifacts(file);
  return artifacts.length > 0 ? [{ sessionId: path.basename(file, ".jsonl"), artifacts }] : [];
}
