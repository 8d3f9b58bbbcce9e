import type { AgentEvent } from "../../agent/events.js";
import type { DisplayGroup } from "../../tools/contract.js";
import { describeTarget, progressLabel, type ToolCallView } from "./tool-lines.js";

/**
 * What the agent is doing right now, for the spinner line: thinking, writing, running a command (with
 * its latest output), waiting for approval, retrying. Pure state, fed the loop's events.
 */
export interface RunningCall {
  view: ToolCallView;
  startedAt: number;
  /** The command's latest output (tool_update), for its live tail. */
  output: string;
}

export type Phase = "thinking" | "writing" | "tools" | "approval" | "compacting" | "retrying";

export interface Activity {
  /** When the current job began; undefined when idle. */
  startedAt: number | undefined;
  phase: Phase;
  running: Map<string, RunningCall>;
  /** For `retrying`: when the next attempt starts and why. */
  retry?: { at: number; why: string };
}

export function idleActivity(): Activity {
  return { startedAt: undefined, phase: "thinking", running: new Map() };
}

export function startActivity(activity: Activity, now: number, phase: Phase = "thinking"): void {
  activity.startedAt = now;
  activity.phase = phase;
  activity.running.clear();
  delete activity.retry;
}

export function stopActivity(activity: Activity): void {
  activity.startedAt = undefined;
  activity.running.clear();
  delete activity.retry;
}

export function activityEvent(
  activity: Activity,
  event: AgentEvent,
  now: number,
  context: { workspaceRoot: string; groupOf(name: string): DisplayGroup | undefined },
): void {
  if (event.agentId !== "main") return;
  switch (event.type) {
    case "turn_start":
      activity.phase = "thinking";
      delete activity.retry;
      return;
    case "text_delta":
      if (event.text !== "") activity.phase = "writing";
      return;
    case "tool_call": {
      const { callId, name, args } = event.call;
      const view = {
        group: context.groupOf(name),
        name,
        target: describeTarget(name, args, context.workspaceRoot),
      };
      activity.running.set(callId, { view, startedAt: now, output: "" });
      activity.phase = "tools";
      return;
    }
    case "tool_update": {
      const running = activity.running.get(event.callId);
      if (running) running.output = event.partial;
      return;
    }
    case "tool_result":
      activity.running.delete(event.call.callId);
      if (activity.running.size === 0) activity.phase = "thinking";
      return;
    case "error":
      if (event.retryInMs !== undefined)
        activity.retry = { at: now + event.retryInMs, why: event.error.kind.replace("_", " ") };
      return;
    default:
      return;
  }
}

/** The spinner's words: `Running npm test`, `Reading 3 files`, `Waiting for your approval`. */
export function describeActivity(activity: Activity, now: number): string {
  if (activity.retry && activity.retry.at > now)
    return `Retrying in ${((activity.retry.at - now) / 1000).toFixed(0)}s (${activity.retry.why})`;
  switch (activity.phase) {
    case "approval":
      return "Waiting for your approval";
    case "compacting":
      return "Compacting the conversation";
    case "writing":
      return "Writing";
    case "tools": {
      const calls = [...activity.running.values()];
      const first = calls[0];
      if (!first) return "Working";
      return calls.length === 1
        ? progressLabel(first.view)
        : `${progressLabel(first.view)} and ${calls.length - 1} more`;
    }
    default:
      return "Thinking";
  }
}
