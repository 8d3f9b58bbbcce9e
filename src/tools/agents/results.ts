import { describeWorktree } from "../../subagents/background.js";
import type { SubagentHost } from "../../subagents/host.js";
import type { AgentRecord } from "../../subagents/registry.js";
import type { RunOutcome, SpawnResult } from "../../subagents/spawn.js";
import { errorResult, okResult, type ToolResult } from "../contract.js";

export function backgroundStarted(record: AgentRecord): ToolResult {
  return okResult(
    `Started background agent ${record.id} ("${record.description}"). Its report arrives as a notification on a ` +
      "later turn; do not assume its result before then. Use list_agents to see it and send_message to add instructions.",
    { taskId: record.id, state: record.state, background: true },
  );
}

/** Waits for a foreground agent; aborting the parent's call kills it (and its own foreground children). */
export async function awaitForeground(
  host: SubagentHost,
  started: Extract<SpawnResult, { ok: true }>,
  signal: AbortSignal,
): Promise<ToolResult> {
  const kill = () => host.agents.kill(started.record.id, "the parent's call was aborted");
  if (signal.aborted) kill();
  signal.addEventListener("abort", kill, { once: true });
  try {
    return foregroundResult(await started.finished);
  } finally {
    signal.removeEventListener("abort", kill);
  }
}

export function foregroundResult(outcome: RunOutcome): ToolResult {
  const metadata: Record<string, unknown> = {
    taskId: outcome.id,
    state: outcome.state,
    turns: outcome.turns,
  };
  if (outcome.worktree) metadata.worktree = outcome.worktree;
  const parts = [outcome.text || "(the agent gave no report)"];
  if (outcome.worktree) parts.push(describeWorktree(outcome.worktree));
  if (outcome.state === "paused")
    parts.push(`(Agent ${outcome.id} stopped at its turn limit; send_message continues it.)`);
  const text = `Agent ${outcome.id} ${outcome.state}:\n${parts.join("\n\n")}`;
  if (outcome.state === "failed" || outcome.state === "killed") {
    return errorResult(
      outcome.state === "killed" ? "aborted" : "execution_failed",
      `${text}${outcome.error ? `\nError: ${outcome.error}` : ""}`,
      metadata,
    );
  }
  return okResult(text, metadata);
}
