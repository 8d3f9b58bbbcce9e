import type { ModelClient } from "../models/client.js";
import type { ToolPipeline } from "../tools/pipeline.js";
import type { ToolDeclaration } from "../tools/registry.js";
import type { Conversation, ConversationMessage } from "./conversation.js";
import type { AgentEvent, TurnUsage } from "./events.js";
import type { AgentLoopOptions } from "./loop.js";
import type { RetryPolicy } from "./retry.js";

/** Distributes Omit over the event union, so callers emit events without their agentId. */
export type EventBody = AgentEvent extends infer E
  ? E extends AgentEvent
    ? Omit<E, "agentId">
    : never
  : never;

/** One run's state, shared by the steps below. */
export interface LoopRun {
  conversation: Conversation;
  model: ModelClient;
  pipeline: ToolPipeline;
  options: AgentLoopOptions;
  agentId: string;
  signal: AbortSignal;
  retry: RetryPolicy;
  tools: readonly ToolDeclaration[];
  emit(event: EventBody): void;
  turns: number;
  usage: TurnUsage;
  /** The provider's token count after the last turn, and how many messages it covered. */
  measured: { tokens: number; messageCount: number };
  /** Set once the run compacted because the provider said the context was too long. */
  compactedForOverflow: boolean;
  /** Stops a hook has blocked in a row in this run (see MAX_STOP_BLOCKS). */
  stopBlocks: number;
  /** A hook has sent the agent on after it would have stopped (Claude's stop_hook_active). */
  stopHookActive: boolean;
  /** Calls the model client cut off (arguments past the limit), by call id: answered with this error, never run. */
  refusedCalls: Map<string, string>;
  /** A tool call's hook ended the run (`continue: false`): the turn's later calls do not start. */
  stopRequested: string | undefined;
}

export function append(run: LoopRun, message: ConversationMessage): void {
  run.conversation.messages.push(message);
  run.emit({ type: "message", message });
}
