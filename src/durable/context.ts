import type { AskAnswer } from "./asks.js";
import type { StateReader, StateWriter } from "./event-log.js";
import type { Journal } from "./journal.js";
import type { SessionSummary } from "./session-state.js";

/**
 * What the prompt handler needs from Restate, as a narrow interface (services.ts gives it from an
 * ObjectContext): the journal, the object's state, durable promises and the cancellation signal.
 */
export interface DurableContext extends StateReader, StateWriter {
  readonly sessionId: string;
  readonly invocationId: string;
  readonly journal: Journal;
  /** Aborted when the session is cancelled: the loop, the model stream and running tools stop. */
  readonly signal: AbortSignal;
  /** Aborted when this attempt ends: suspended to wait for an answer, finished, or cut off. */
  readonly attemptEnded: AbortSignal;
  /** A durable promise for one ask: its id (resolvable at the ingress) and a wait that outlives any process. */
  durablePromise(): { id: string; wait(): Promise<AskAnswer | { cancelled: true } | { invalid: string }> };
  /**
   * Calls the `subagent` handler of the session objects `calls` name, each its own invocation on any
   * worker, and waits for all their answers (journaled: a replay never starts them again). A cancel of
   * this session cancels them too. An invocation that failed for good answers `{ failed: why }`.
   */
  callSubagents(calls: { key: string; input: unknown }[]): Promise<unknown[] | { cancelled: true }>;
  /** Tells the session index (gantry sessions) how this session stands. */
  notifyIndex(summary: SessionSummary): void;
}

/** The worker the handler runs on. */
export interface WorkerEnv {
  /** Where sessions' repositories and folders live on this worker. */
  workdir: string;
  /** The home folder whose ~/.agents configures sessions on this worker. */
  home: string;
  workerId: string;
  log(line: string): void;
}

/** Bad input to a handler: answered at once and never retried. */
export class DurableInputError extends Error {}
