import { createHash } from "node:crypto";
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { applyCompaction } from "../agent/context.js";
import {
  answerUnansweredCalls,
  type Conversation,
  type ConversationMessage,
  createConversation,
} from "../agent/conversation.js";
import type { AgentEvent } from "../agent/events.js";
import { randomHex } from "./random-ids.js";

/**
 * Sessions as JSONL under `~/.gantry/sessions/<workspace>-<hash>/<id>.jsonl`: a header line, then one
 * line per agent event, written synchronously as it happens, so a crash loses at most the line
 * being written. Replaying the `message` and `compaction` lines rebuilds the conversation.
 */
export interface SessionHeader {
  type: "session";
  version: 1;
  id: string;
  workspace: string;
  model?: string;
  createdAt: string;
}

export interface SessionWriter {
  readonly id: string;
  readonly file: string;
  record(event: AgentEvent): void;
  close(): void;
}

export interface SessionProblem {
  line: number;
  message: string;
}

export interface LoadedSession {
  header: SessionHeader;
  conversation: Conversation;
  /** Corrupted or unreadable lines, reported and skipped. */
  problems: SessionProblem[];
}

/** Streaming deltas are not saved: the `message` line that follows holds the whole text. */
const UNSAVED_EVENTS = new Set<AgentEvent["type"]>(["text_delta", "tool_update"]);
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function sessionsDir(home: string, workspaceRoot: string): string {
  return path.join(home, ".gantry", "sessions", workspaceFolderName(workspaceRoot));
}

/** `<folder name>-<hash of the path>`: one name per workspace for its sessions and its prompt history. */
export function workspaceFolderName(workspaceRoot: string): string {
  const hash = createHash("sha256").update(workspaceRoot).digest("hex").slice(0, 12);
  const name = path.basename(workspaceRoot).replace(/[^A-Za-z0-9._-]/g, "_") || "root";
  return `${name}-${hash}`;
}

export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${randomHex(3)}`;
}

/** Starts a new session file with its header line. */
export function createSessionWriter(
  dir: string,
  header: Omit<SessionHeader, "type" | "version" | "id" | "createdAt">,
): SessionWriter {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const id = newSessionId();
  const full: SessionHeader = {
    type: "session",
    version: 1,
    id,
    createdAt: new Date().toISOString(),
    ...header,
  };
  const writer = appendSessionWriter(path.join(dir, `${id}.jsonl`), id);
  writeLine(writer.fd, full);
  return writer;
}

/**
 * Continues an existing session file (resume): new events are appended after the old ones. A last line
 * a crash left half-written is ended first, so it stays the only line lost, not the first new one too.
 */
export function appendSessionWriter(file: string, id: string): SessionWriter & { fd: number } {
  const fd = openSync(file, "a+", 0o600);
  if (!endsWithNewline(fd)) writeSync(fd, "\n");
  let open = true;
  return {
    id,
    file,
    fd,
    record(event) {
      if (!open || UNSAVED_EVENTS.has(event.type)) return;
      writeLine(fd, { ...event, at: new Date().toISOString() });
    },
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}

/** Whether the file is empty or its last byte is a line break. */
function endsWithNewline(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === 0x0a;
}

function writeLine(fd: number, value: unknown): void {
  writeSync(fd, `${JSON.stringify(value)}\n`);
}

/** Reads a session file; corrupted lines are reported in `problems` and skipped, never fatal. */
export function loadSession(file: string): LoadedSession {
  const lines = readFileSync(file, "utf8").split("\n");
  const problems: SessionProblem[] = [];
  const conversation = createConversation();
  let header: SessionHeader | undefined;
  lines.forEach((text, index) => {
    if (text.trim() === "") return;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(text) as Record<string, unknown>;
    } catch (cause) {
      problems.push({ line: index + 1, message: `not JSON (${(cause as Error).message}); skipped` });
      return;
    }
    if (typeof entry !== "object" || entry === null || typeof entry.type !== "string") {
      problems.push({ line: index + 1, message: "no event type; skipped" });
      return;
    }
    if (entry.type === "session") header ??= entry as unknown as SessionHeader;
    else if ((entry.agentId ?? "main") === "main") replay(conversation, entry, index + 1, problems);
  });
  answerUnansweredCalls(conversation);
  const id = path.basename(file, ".jsonl");
  header ??= { type: "session", version: 1, id, workspace: "", createdAt: "" };
  if (header.id !== id) header = { ...header, id };
  return { header, conversation, problems };
}

function replay(
  conversation: Conversation,
  entry: Record<string, unknown>,
  line: number,
  problems: SessionProblem[],
): void {
  if (entry.type === "message") {
    const message = entry.message as { role?: unknown } | undefined;
    if (message && ["user", "assistant", "tool", "summary"].includes(String(message.role)))
      conversation.messages.push(message as Conversation["messages"][number]);
    else problems.push({ line, message: "message line without a valid message; skipped" });
  } else if (entry.type === "compaction") {
    if (typeof entry.summary === "string" && typeof entry.replacedCount === "number")
      applyCompaction(conversation, entry.summary, entry.replacedCount);
    else problems.push({ line, message: "compaction line without summary or replacedCount; skipped" });
  }
}

/** `id` may be a whole session id or a unique prefix of one. */
export function findSessionFile(
  dir: string,
  id: string,
): { ok: true; file: string } | { ok: false; message: string } {
  if (!SESSION_ID.test(id)) return { ok: false, message: `"${id}" is not a session id` };
  const matches = listSessionIds(dir).filter((candidate) => candidate.startsWith(id));
  if (matches.length === 0)
    return { ok: false, message: `no session "${id}" for this workspace (in ${dir})` };
  const exact = matches.find((candidate) => candidate === id);
  if (!exact && matches.length > 1)
    return { ok: false, message: `session id "${id}" is ambiguous: ${matches.slice(0, 5).join(", ")}` };
  return { ok: true, file: path.join(dir, `${exact ?? matches[0]}.jsonl`) };
}

/** The most recently written session of this workspace. */
export function latestSessionFile(dir: string): string | undefined {
  let best: { file: string; mtime: number } | undefined;
  for (const id of listSessionIds(dir)) {
    const file = path.join(dir, `${id}.jsonl`);
    const mtime = statSync(file).mtimeMs;
    if (!best || mtime > best.mtime || (mtime === best.mtime && file > best.file)) best = { file, mtime };
  }
  return best?.file;
}

export interface SessionSummary {
  id: string;
  file: string;
  /** Last written (ms since epoch). */
  modifiedAt: number;
  /** The first prompt the user typed, on one line; "" when there is none yet. */
  firstPrompt: string;
  /** Prompts the user typed (schedules and agents not counted). */
  prompts: number;
}

/** This workspace's sessions, the most recent first (the `/resume` picker). */
export function listSessions(dir: string): SessionSummary[] {
  const summaries: SessionSummary[] = [];
  for (const id of listSessionIds(dir)) {
    const file = path.join(dir, `${id}.jsonl`);
    try {
      summaries.push({ id, file, modifiedAt: statSync(file).mtimeMs, ...promptsOf(file) });
    } catch {
      // vanished or unreadable: not offered
    }
  }
  return summaries.sort((a, b) => b.modifiedAt - a.modifiedAt || b.id.localeCompare(a.id));
}

function promptsOf(file: string): { firstPrompt: string; prompts: number } {
  let firstPrompt = "";
  let prompts = 0;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    // cheap pre-filter: most lines are tool events
    if (!line.includes('"role":"user"')) continue;
    try {
      const entry = JSON.parse(line) as { type?: string; agentId?: string; message?: ConversationMessage };
      const message = entry.message;
      if (entry.type !== "message" || (entry.agentId ?? "main") !== "main") continue;
      if (message?.role !== "user" || message.source !== undefined) continue;
      prompts++;
      if (firstPrompt === "") firstPrompt = message.text.replace(/\s+/g, " ").trim();
    } catch {
      // damaged lines are skipped, as when loading
    }
  }
  return { firstPrompt, prompts };
}

export function listSessionIds(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith(".jsonl"))
      .map((name) => name.slice(0, -".jsonl".length))
      .sort();
  } catch {
    return [];
  }
}

export interface OpenSessionRequest {
  /** From sessionsDir(home, workspaceRoot). */
  dir: string;
  workspace: string;
  model?: string;
  /** `--resume <id>`: that session (an id or a unique prefix). */
  resume?: string;
  /** `--continue`: the workspace's most recent session. */
  continueLatest?: boolean;
}

export type OpenedSession =
  | { ok: true; conversation: Conversation; writer: SessionWriter; problems: SessionProblem[]; file: string }
  | { ok: false; message: string };

/** What `--resume`, `--continue` or neither mean for a run (the headless runner and the terminal UI). */
export function openSession(request: OpenSessionRequest): OpenedSession {
  let file: string | undefined;
  if (request.resume !== undefined) {
    const found = findSessionFile(request.dir, request.resume);
    if (!found.ok) return found;
    file = found.file;
  } else if (request.continueLatest) {
    file = latestSessionFile(request.dir);
    if (file === undefined)
      return { ok: false, message: `no earlier session to continue in this workspace (${request.dir})` };
  }
  if (file === undefined) {
    const writer = createSessionWriter(request.dir, {
      workspace: request.workspace,
      ...(request.model ? { model: request.model } : {}),
    });
    return { ok: true, conversation: createConversation(), writer, problems: [], file: writer.file };
  }
  const loaded = loadSession(file);
  const writer = appendSessionWriter(file, loaded.header.id);
  return { ok: true, conversation: loaded.conversation, writer, problems: loaded.problems, file };
}
