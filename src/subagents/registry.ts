import type { AgentWorktree } from "./worktree.js";

/** running → completed | failed | killed; paused = stopped at its turn limit, resumable by a message. */
export type AgentState = "running" | "paused" | "completed" | "failed" | "killed";

export interface AgentRecord {
  id: string;
  /** The subagent type, or `fork`. */
  type: string;
  description: string;
  /** "main" or the id of the agent that started it. */
  parentId: string;
  /** 1 for an agent the main agent started. */
  depth: number;
  background: boolean;
  state: AgentState;
  startedAt: number;
  endedAt?: number;
  /** The final answer of its last run. */
  result?: string;
  error?: string;
  /** Aborting it stops the agent and, through the signals it hands down, its foreground children. */
  controller: AbortController;
  /** Where its conversation is saved, beside the parent session. */
  transcriptFile?: string;
  worktree?: AgentWorktree;
  workingDir?: string;
  /** The tools it may call: its own list, within its parent's (what its children are held to as well). */
  allowTool?: (canonicalName: string) => boolean;
  /** Why `send_message` cannot continue it (seed 003's resume_blocked_reason). */
  resumeBlockedReason?: string;
  /** Settles when the current run ends. */
  settled: Promise<void>;
}

export interface AgentSummary {
  task_id: string;
  type: string;
  description: string;
  state: AgentState;
  parent: string;
  background: boolean;
  result_preview?: string;
  resume_blocked_reason?: string;
  worktree?: string;
}

/** The session's agents, running and finished, by id. */
export interface RunningAgents {
  nextId(): string;
  add(record: AgentRecord): void;
  get(id: string): AgentRecord | undefined;
  list(): AgentRecord[];
  /** The agent and, recursively, the foreground agents it started; returns the ids that were stopped. */
  kill(id: string, why: string): string[];
  killAll(why: string): string[];
}

export function createRunningAgents(): RunningAgents {
  const records = new Map<string, AgentRecord>();
  let counter = 0;

  function kill(id: string, why: string): string[] {
    const record = records.get(id);
    if (!record) return [];
    const stopped: string[] = [];
    for (const child of records.values()) {
      if (child.parentId === id && !child.background)
        stopped.push(...kill(child.id, `its parent ${id} was killed`));
    }
    if (record.state === "running" || record.state === "paused") {
      record.state = "killed";
      record.error = why;
      record.endedAt = Date.now();
      record.controller.abort(new Error(why));
      stopped.push(id);
    }
    return stopped;
  }

  return {
    nextId() {
      // agents restored from an earlier run of the session keep their ids
      let id = `agent-${++counter}`;
      while (records.has(id)) id = `agent-${++counter}`;
      return id;
    },
    add: (record) => void records.set(record.id, record),
    get: (id) => records.get(id),
    list: () => [...records.values()],
    kill,
    killAll(why) {
      return [...records.values()].flatMap((record) => kill(record.id, why));
    },
  };
}

export function summarizeAgent(record: AgentRecord): AgentSummary {
  const summary: AgentSummary = {
    task_id: record.id,
    type: record.type,
    description: record.description,
    state: record.state,
    parent: record.parentId,
    background: record.background,
  };
  const text = record.result ?? record.error;
  if (text) summary.result_preview = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  if (record.resumeBlockedReason) summary.resume_blocked_reason = record.resumeBlockedReason;
  if (record.worktree) summary.worktree = record.worktree.path;
  return summary;
}
