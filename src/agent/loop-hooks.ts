import type { ModelCallSettings } from "../models/client.js";
import type { ToolResult } from "../tools/contract.js";
import type { ToolDeclaration } from "../tools/registry.js";
import type { ConversationMessage } from "./conversation.js";

/** What the model is about to be asked. */
export interface ModelRequestView {
  system: string;
  messages: readonly ConversationMessage[];
  tools: readonly ToolDeclaration[];
}

/** A hook's way to end the run (`continue: false`, a block that ends the turn): the reason, for the user. */
export interface RunStop {
  stop?: string;
}

export interface BeforeModelOutcome extends RunStop {
  /** A reply that replaces the model call (Gemini's synthetic `llm_response`). */
  response?: string;
  /** The tools the model may call this turn (BeforeToolSelection); [] = none. */
  tools?: readonly ToolDeclaration[];
  /** Context to add to the conversation before this call (what `async` hooks left since the last one). */
  context?: string[];
  /** What this call sends instead (Gemini's `llm_request`); the conversation itself is unchanged. */
  request?: ModelRequestOverride;
}

export interface ModelRequestOverride {
  system?: string;
  messages?: readonly ConversationMessage[];
  settings?: ModelCallSettings;
}

export interface AfterModelOutcome extends RunStop {
  /** The reply's text as a hook rewrote it. */
  text?: string;
  /** The reply is discarded and the turn ends. */
  discard?: boolean;
}

/**
 * The lifecycle moments of one agent's run that hooks may act on (src/hooks/loop-bridge.ts fills it).
 * Plain data in and out, so the loop stays without I/O; every method may be absent.
 */
export interface LoopHooks {
  /** Streamed text waits for `afterModel` (a hook may rewrite it before anyone sees it). */
  readonly holdsText?: boolean;
  beforeModel?(request: ModelRequestView, signal: AbortSignal): Promise<BeforeModelOutcome>;
  afterModel?(request: ModelRequestView, text: string, signal: AbortSignal): Promise<AfterModelOutcome>;
  /**
   * The agent would stop. `continueWith`: a hook blocked the stop, and the agent goes on with this as
   * its next message. `stopHookActive` is true once a hook has sent the agent on in this run.
   * `clearContext` (Gemini's AfterAgent): the conversation so far is dropped first.
   */
  beforeStop?(
    facts: { lastAssistantMessage: string; stopHookActive: boolean },
    signal: AbortSignal,
  ): Promise<RunStop & { continueWith?: string; clearContext?: boolean }>;
  /** Before a compaction: `skip` keeps the conversation as it is; `instructions` go to the summariser. */
  beforeCompact?(signal: AbortSignal): Promise<{ skip?: boolean; instructions: string[] }>;
  /** After a compaction: context to add to the conversation (SessionStart with source "compact"). */
  afterCompact?(summary: string, signal: AbortSignal): Promise<{ context: string[] }>;
}

/** Who ends a run at most this many times in a row by blocking its stop, before the stop goes through. */
export const MAX_STOP_BLOCKS = 8;

/** A tool result's `continue: false` (metadata.stopRun), if any result of the turn carries one. */
export function stopRequestedBy(results: readonly ToolResult[]): string | undefined {
  for (const result of results) {
    const stop = result.metadata.stopRun as { source?: string; reason?: string } | undefined;
    if (stop)
      return stop.source ? `${stop.source}: ${stop.reason ?? ""}` : (stop.reason ?? "a hook stopped the run");
  }
  return undefined;
}

/** How a hook's context reaches the model: a message of its own, marked as not the user's words. */
export function hookContextMessage(texts: readonly string[]): ConversationMessage {
  return { role: "user", text: texts.join("\n\n"), source: "hook context" };
}
