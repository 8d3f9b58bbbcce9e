import type { SubagentHost } from "./host.js";
import type { AgentRecord } from "./registry.js";
import { type RunOutcome, type SpawnRequest, type SpawnResult, startAgent } from "./spawn.js";
import { loadTranscript } from "./transcript.js";

/**
 * A background run: the parent gets the agent's id now and a notification on its next turn; until
 * then the run holds the inbox open, so a headless session does not end and lose the result.
 */
export function runInBackground(host: SubagentHost, started: Extract<SpawnResult, { ok: true }>): void {
  const release = host.deps.inbox.holdOpen();
  started.finished
    .then((outcome) => {
      host.deps.inbox.post({
        source: `agent ${outcome.id}`,
        agentId: started.record.parentId,
        text: completionNotification(started.record, outcome),
      });
    })
    .finally(release);
}

export function completionNotification(record: AgentRecord, outcome: RunOutcome): string {
  const head = `Background agent ${outcome.id} ("${record.description}") ${outcome.state} after ${outcome.turns} turn(s).`;
  const lines = [head];
  if (outcome.error) lines.push(`Error: ${outcome.error}`);
  if (outcome.worktree) lines.push(describeWorktree(outcome.worktree));
  lines.push(outcome.text ? `Its report:\n${outcome.text}` : "It gave no report.");
  if (outcome.state !== "killed") lines.push(`Use send_message with task_id "${outcome.id}" to continue it.`);
  return lines.join("\n");
}

export function describeWorktree(worktree: NonNullable<RunOutcome["worktree"]>): string {
  if (worktree.files.length === 0) return `Its worktree ${worktree.path} had no changes and was removed.`;
  return [
    `Its worktree ${worktree.path} was removed; changes (${worktree.files.length} file(s)):`,
    ...worktree.files.map((line) => `  ${line.replace("\t", " ")}`),
    worktree.patchFile ? `Full patch: ${worktree.patchFile} (apply with git apply)` : "",
  ]
    .filter(Boolean)
    .join("\n");
}

export type MessageOutcome =
  | { kind: "delivered"; record: AgentRecord }
  | { kind: "resumed"; record: AgentRecord; finished: Promise<RunOutcome>; background: boolean }
  | { kind: "blocked"; id: string; reason: string }
  | { kind: "unknown"; id: string };

/**
 * send_message (seed 003): a running agent reads the message at its next tool round; a paused or
 * finished one is revived from its saved transcript; otherwise the reason it cannot continue.
 */
export async function messageAgent(
  host: SubagentHost,
  id: string,
  message: string,
  callerId: string,
): Promise<MessageOutcome> {
  const record = host.agents.get(id);
  if (!record) return { kind: "unknown", id };
  if (record.state === "running") {
    host.deps.inbox.post({ source: `agent ${callerId}`, agentId: id, text: message });
    return { kind: "delivered", record };
  }
  if (record.state === "killed") return block(record, `it was killed (${record.error ?? "no reason given"})`);
  if (record.resumeBlockedReason) return block(record, record.resumeBlockedReason);
  const saved = loadTranscript(record.transcriptFile);
  if (!saved.ok) return block(record, saved.reason);
  // nested agents cannot receive notifications, so a subagent's follow-up runs in the foreground;
  // a working_dir agent runs in the foreground whoever calls (as when it was started)
  const background = callerId === "main" && !saved.meta.workingDir;
  const request: SpawnRequest = {
    callerId: record.parentId,
    description: record.description,
    prompt: message,
    type: saved.meta.type,
    background,
    ...(saved.meta.forkTools ? { forkTools: saved.meta.forkTools } : {}),
    ...(saved.meta.model ? { model: saved.meta.model } : {}),
    ...(saved.meta.role ? { role: saved.meta.role } : {}),
    ...(saved.meta.workingDir ? { workingDir: saved.meta.workingDir } : {}),
  };
  const started = await startAgent(host, request, {
    id,
    conversation: saved.conversation,
    message: `[agent ${callerId}] ${message}`,
  });
  if (!started.ok) return { kind: "blocked", id, reason: started.message };
  if (background) runInBackground(host, started);
  return { kind: "resumed", record: started.record, finished: started.finished, background };
}

function block(record: AgentRecord, reason: string): MessageOutcome {
  record.resumeBlockedReason ??= reason;
  return { kind: "blocked", id: record.id, reason };
}
