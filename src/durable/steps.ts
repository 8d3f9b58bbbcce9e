import type { ModelClient, ModelStreamPart } from "../models/client.js";
import type { RemoteOutcome } from "../subagents/remote.js";
import type { SpawnRequest } from "../subagents/spawn.js";
import { errorResult, type ToolResult } from "../tools/contract.js";
import type { RunOptions, ToolCallRequest, ToolPipeline } from "../tools/pipeline.js";
import { type SubagentArrival, type SubagentChannel, withAgentOutcomes } from "./agent-calls.js";
import { type AskAnswer, type AskChannel, type PendingAsk, withAnswers } from "./asks.js";
import type { Journal } from "./journal.js";
import type { SessionSnapshot, WorkspaceSync } from "./session-sync.js";

/**
 * A model client whose every turn is one journaled step: the whole streamed answer is recorded, so a
 * replay hands the loop the same parts without calling the model (text arrives per turn, not per token).
 */
export function journaledModel(model: ModelClient, journal: Journal): ModelClient {
  let turns = 0;
  return {
    id: model.id,
    contextWindow: model.contextWindow,
    async *streamTurn(request) {
      const turn = ++turns;
      const parts = await journal.step(`model turn ${turn}`, async () => {
        const collected: ModelStreamPart[] = [];
        for await (const part of model.streamTurn(request)) {
          const last = collected.at(-1);
          // one text part per run of deltas keeps the journal entry small
          if (part.type === "text_delta" && last?.type === "text_delta") last.text += part.text;
          else collected.push(part.type === "text_delta" ? { ...part } : part);
        }
        return collected;
      });
      yield* parts;
    },
  };
}

export interface ToolStepDeps {
  pipeline: ToolPipeline;
  journal: Journal;
  asks: AskChannel;
  workspace: WorkspaceSync;
  /** Who runs the steps: recorded with each call so `status` says where the session last worked. */
  workerId: string;
  onStepDone?: (worker: string) => void;
  /** Runs the foreground subagents a call starts as their own invocations; absent, none can start. */
  agents?: SubagentChannel;
}

/** What one journaled execution of a call recorded. */
interface CallOutcome {
  result?: ToolResult;
  pending?: PendingAsk;
  /** Subagents the call started: they run as their own invocations, then the call runs again. */
  agents?: SpawnRequest[];
  snapshot?: SessionSnapshot;
  worker: string;
}

/**
 * The session's pipeline with every call a journaled step. A call that is not read-only first records
 * its intent: if a replay finds the intent but no result, the call was in flight when its worker
 * stopped, so it is not run again and the model is told it was interrupted (no side effect twice). A
 * read-only call simply runs again. A call that needs an answer records the question, waits for it as a
 * durable promise, and runs again through the whole pipeline with the answer.
 */
export function journaledPipeline(deps: ToolStepDeps): ToolPipeline {
  return {
    registry: deps.pipeline.registry,
    run: (request, options) => runJournaledCall(deps, request, options ?? {}),
  };
}

async function runJournaledCall(
  deps: ToolStepDeps,
  request: ToolCallRequest,
  options: RunOptions,
): Promise<ToolResult> {
  const callId = request.callId ?? "call";
  const readOnly = deps.pipeline.registry.lookup(request.name)?.spec.safety === "read_only";
  const answers: AskAnswer[] = [];
  const agents: RemoteOutcome[] = [];
  // subagents' answers whose workspace changes the next execution brings back before it runs
  let arrived: SubagentArrival[] = [];
  for (let round = 0; ; round++) {
    let fresh = readOnly;
    if (!readOnly) {
      await deps.journal.step(`intent ${request.name} ${callId}#${round}`, async () => {
        fresh = true;
        return true;
      });
    }
    const outcome = await deps.journal.step<CallOutcome>(
      `call ${request.name} ${callId}#${round}`,
      async () => {
        if (!fresh) return { result: interruptedResult(request.name), worker: deps.workerId };
        await deps.workspace.prepare();
        const outcomes = [
          ...agents.slice(0, agents.length - arrived.length),
          ...(await bringBack(deps, arrived)),
        ];
        const ran = await withAgentOutcomes(outcomes, () =>
          withAnswers([...answers], () => deps.pipeline.run(request, options)),
        );
        const changed = !readOnly || arrived.length > 0;
        const snapshot = changed ? await deps.workspace.snapshot() : undefined;
        const kept = { worker: deps.workerId, ...(snapshot ? { snapshot } : {}) };
        if (ran.value.pending) return { pending: ran.value.pending, ...kept };
        if (ran.requests.length > 0) return { agents: ran.requests, ...kept };
        return { result: ran.value.value, ...kept };
      },
    );
    arrived = [];
    if (outcome.snapshot) deps.workspace.note(outcome.snapshot);
    deps.onStepDone?.(outcome.worker);
    if (outcome.pending) answers.push(await deps.asks.ask(outcome.pending, callId));
    else if (outcome.agents) {
      arrived = await startAgents(deps, outcome.agents);
      agents.push(...arrived.map((arrival) => arrival.result));
    } else return outcome.result as ToolResult;
  }
}

async function startAgents(deps: ToolStepDeps, requests: SpawnRequest[]): Promise<SubagentArrival[]> {
  if (deps.agents) return deps.agents.call(requests);
  const message = "subagents cannot start in this session";
  return requests.map(() => ({ result: { ok: false, code: "unavailable", message } }));
}

/** Applies each arrived agent's workspace changes here; a change that does not apply is told in its report. */
async function bringBack(deps: ToolStepDeps, arrived: SubagentArrival[]): Promise<RemoteOutcome[]> {
  const outcomes: RemoteOutcome[] = [];
  for (const arrival of arrived) {
    const problem = arrival.snapshot
      ? await deps.workspace.bringBack(arrival.sent, arrival.snapshot)
      : undefined;
    const { result } = arrival;
    outcomes.push(
      problem && result.ok
        ? { ok: true, outcome: { ...result.outcome, text: `${result.outcome.text}\n\n(Note: ${problem}.)` } }
        : result,
    );
  }
  return outcomes;
}

function interruptedResult(tool: string): ToolResult {
  return errorResult(
    "interrupted",
    `${tool} was interrupted: the worker running this session stopped while the call was in flight, and the session moved to another worker. It may or may not have finished, and it was not run again. Check its effects (files, processes, remote state) before you decide to run it again.`,
    { interrupted: true },
  );
}
