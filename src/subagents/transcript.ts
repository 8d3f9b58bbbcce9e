import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Conversation } from "../agent/conversation.js";
import type { AgentEvent } from "../agent/events.js";
import { appendSessionWriter, loadSession, type SessionWriter } from "../session/jsonl.js";

/** What revival needs besides the messages: seed 003 persists the resolved fork tool list. */
export interface TranscriptMeta {
  id: string;
  type: string;
  description: string;
  parentId: string;
  depth: number;
  background: boolean;
  /** Validated fork_tools / profile patterns; absent = no fork restriction. */
  forkTools?: string[];
  model?: string;
  role?: string;
  workingDir?: string;
  isolation?: "worktree";
}

/** Subagent transcripts live beside the parent session: `<session>.agents/<agent id>.jsonl`. */
export function transcriptDirFor(sessionFile: string): string {
  return sessionFile.replace(/\.jsonl$/, "") + ".agents";
}

/**
 * A subagent transcript is a session file of its own (src/session/jsonl.ts format): a header line
 * carrying the meta, then the agent's events, recorded as the file's "main" agent so loadSession
 * replays them.
 */
export function openTranscript(dir: string, meta: TranscriptMeta, workspace: string): SessionWriter {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `${meta.id}.jsonl`);
  if (!existsSync(file)) {
    const header = {
      type: "session",
      version: 1,
      id: meta.id,
      workspace,
      createdAt: new Date().toISOString(),
      subagent: meta,
    };
    writeFileSync(file, `${JSON.stringify(header)}\n`, { mode: 0o600 });
  }
  const writer = appendSessionWriter(file, meta.id);
  return {
    id: writer.id,
    file: writer.file,
    record: (event: AgentEvent) => {
      if (event.agentId === meta.id) writer.record({ ...event, agentId: "main" });
    },
    close: () => writer.close(),
  };
}

export type LoadedTranscript =
  | { ok: true; meta: TranscriptMeta; conversation: Conversation }
  | { ok: false; reason: string };

/** The saved conversation of a finished agent, or why it cannot be revived. */
export function loadTranscript(file: string | undefined): LoadedTranscript {
  if (file === undefined || !existsSync(file))
    return { ok: false, reason: "its saved transcript is missing" };
  try {
    const loaded = loadSession(file);
    const meta = (loaded.header as unknown as { subagent?: TranscriptMeta }).subagent;
    if (!meta) return { ok: false, reason: "its transcript has no subagent header" };
    if (loaded.conversation.messages.length === 0)
      return { ok: false, reason: "its transcript holds no messages" };
    return { ok: true, meta, conversation: loaded.conversation };
  } catch (cause) {
    return { ok: false, reason: `its transcript cannot be read: ${(cause as Error).message}` };
  }
}

/** The agents saved in a transcript folder (a resumed parent session finds its agents here). */
export function listSavedAgents(dir: string): { file: string; meta: TranscriptMeta }[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith(".jsonl"));
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const file = path.join(dir, name);
    const meta = readHeaderMeta(file);
    return meta ? [{ file, meta }] : [];
  });
}

function readHeaderMeta(file: string): TranscriptMeta | undefined {
  const fd = openSync(file, "r");
  try {
    const buffer = Buffer.alloc(16 * 1024);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    const line = buffer.subarray(0, read).toString("utf8").split("\n")[0] ?? "";
    const meta = (JSON.parse(line) as { subagent?: TranscriptMeta }).subagent;
    return meta && typeof meta.id === "string" && typeof meta.type === "string" ? meta : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
