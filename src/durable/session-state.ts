import type { AgentRunResult } from "../agent/loop.js";
import type { PendingAsk } from "./asks.js";

/** Restate state of one session object (keyed by session id): what its handlers read and write. */
export const STATE = {
  status: "status",
  asks: "asks",
  conversation: "conversation",
  invocation: "invocation",
  source: "source",
  snapshot: "snapshot",
  eventCount: "events.count",
  eventChunk: (n: number) => `events.${n}`,
} as const;

export type SessionState = "running" | "waiting" | "completed" | "max_turns" | "failed" | "cancelled";

export const ENDED_STATES: readonly SessionState[] = ["completed", "max_turns", "failed", "cancelled"];

/** An ask waiting for its answer, as `status` shows it and `gantry approve` answers it. */
export interface OpenAsk {
  askId: string;
  /** Resolvable directly at Restate's ingress: POST /restate/awakeables/<id>/resolve. */
  awakeableId: string;
  pending: PendingAsk;
}

export interface SessionStatus {
  id: string;
  state: SessionState;
  repo: string;
  ref?: string;
  commit?: string;
  /** The latest prompt's first line, shortened. */
  prompt: string;
  prompts: number;
  turns: number;
  /** The worker that ran the session's latest step. */
  worker?: string;
  asks: OpenAsk[];
  /** The session objects of the subagents this prompt started (`<id>.agent-<prompt>-<n>`). */
  subagents?: string[];
  result?: string;
  error?: string;
}

/** A session as `gantry sessions` lists it. */
export type SessionSummary = Pick<SessionStatus, "id" | "state" | "repo" | "prompt" | "worker" | "turns">;

export function summaryOf(status: SessionStatus): SessionSummary {
  const { id, state, repo, prompt, worker, turns } = status;
  return { id, state, repo, prompt, turns, ...(worker ? { worker } : {}) };
}

export function stateAfter(result: AgentRunResult, cancelled: boolean): SessionState {
  if (cancelled || result.reason === "aborted") return "cancelled";
  // a hook that ended the run (continue: false) ends it as done, as `gantry -p` reports it
  if (result.reason === "completed" || result.reason === "stopped") return "completed";
  if (result.reason === "max_turns") return "max_turns";
  return "failed";
}

export function promptHeadline(prompt: string): string {
  const line = prompt.trim().split("\n")[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}
