import path from "node:path";
import { z } from "zod";
import type { AgentEvent } from "../agent/events.js";
import { eventLine } from "../cli/stream-json.js";
import type { ModelClient } from "../models/client.js";
import { APPROVAL_MODES } from "../policy/modes.js";
import { modelClientFor } from "../session/open.js";
import { createSubagentHost, type SubagentHost } from "../subagents/host.js";
import type { RemoteOutcome } from "../subagents/remote.js";
import { type SpawnRequest, startAgent } from "../subagents/spawn.js";
import type { SubagentAnswer, SubagentArrival, SubagentChannel } from "./agent-calls.js";
import { createAskChannel } from "./ask-channel.js";
import { checkoutWorkspace, removeWorkspace, type WorkspaceSource } from "./checkout.js";
import { type DurableContext, DurableInputError, type WorkerEnv } from "./context.js";
import { createEventLog, type EventLog } from "./event-log.js";
import type { Journal } from "./journal.js";
import { type DurableSession, openDurableSession } from "./open-session.js";
import { journaledSessionHooks } from "./session-hooks.js";
import { promptHeadline, type SessionStatus, STATE, summaryOf } from "./session-state.js";
import { createWorkspaceSync, type SessionSnapshot, type WorkspaceSync } from "./session-sync.js";
import { journaledModel, journaledPipeline } from "./steps.js";

const SnapshotSchema = z.object({
  patch: z.string().optional(),
  patchTooLarge: z.boolean().optional(),
  grants: z.array(z.object({ text: z.string(), source: z.string() })),
  reads: z.array(z.object({ path: z.string(), sha256: z.string() })),
});

/** What a session sends the `subagent` handler: the agent to run, and the parent's workspace and permissions. */
const SubagentInputSchema = z.object({
  request: z.object({
    description: z.string(),
    prompt: z.string().min(1),
    type: z.string().min(1),
    role: z.string().optional(),
    model: z.string().optional(),
  }),
  parent: z.object({
    repo: z.string().min(1),
    /** The parent's workspace folder: paths in the prompt under it mean the same files in the child's. */
    root: z.string().min(1),
    trust: z.boolean().optional(),
    model: z.string().optional(),
    baseUrl: z.string().optional(),
  }),
  approvalMode: z.enum(APPROVAL_MODES),
  source: z.discriminatedUnion("mode", [
    z.object({ mode: z.literal("git"), repo: z.string(), commit: z.string() }),
    z.object({ mode: z.literal("shared"), root: z.string() }),
  ]),
  snapshot: SnapshotSchema,
});

type SubagentInput = z.infer<typeof SubagentInputSchema>;

/** A subagent's own session object, beside its parent's (never a session's own key). */
const SUBAGENT_KEY = /\.agent-\d+-\d+$/;

export interface SubagentChannelDeps {
  ctx: DurableContext;
  /** The children's keys start with it: `<session>.agent-<prompt>`. */
  prefix: string;
  source: WorkspaceSource;
  sync: WorkspaceSync;
  parent: Omit<SubagentInput["parent"], "root">;
  /** The parent's workspace folder on this worker. */
  root: string;
  approvalMode: () => SubagentInput["approvalMode"];
  /** Tells the parent's log and status which session objects its agents run as (to follow or answer them). */
  announce: (agents: { key: string; description: string }[]) => void;
}

/**
 * The parent's side: each agent a call starts becomes a call to the `subagent` handler of its own
 * session object, with the workspace as the parent's journal left it.
 */
export function createSubagentChannel(deps: SubagentChannelDeps): SubagentChannel {
  let started = 0;
  return {
    async call(requests) {
      const sent = deps.sync.current();
      // as the worker that first made the call saw it: the journaled call holds it, wherever it replays
      const root = await deps.ctx.journal.step("workspace root", async () => deps.root);
      const calls = requests.map((request) => ({
        key: `${deps.prefix}-${++started}`,
        input: {
          request: pickRequest(request),
          parent: { ...deps.parent, root },
          approvalMode: deps.approvalMode(),
          source: deps.source,
          snapshot: sent,
        } satisfies SubagentInput,
      }));
      deps.announce(calls.map(({ key, input }) => ({ key, description: input.request.description })));
      const answers = await deps.ctx.callSubagents(calls);
      if ("cancelled" in answers) {
        const result: RemoteOutcome = { ok: false, code: "aborted", message: "the session was cancelled" };
        return requests.map(() => ({ result }));
      }
      return answers.map((answer): SubagentArrival => {
        if (typeof answer === "object" && answer !== null && "failed" in answer) {
          const message = `its invocation failed: ${String(answer.failed)}`;
          return { result: { ok: false, code: "execution_failed", message } };
        }
        return { ...(answer as SubagentAnswer), sent };
      });
    },
  };
}

function pickRequest(request: SpawnRequest): SubagentInput["request"] {
  const { description, prompt, type, role, model } = request;
  return { description, prompt, type, ...(role ? { role } : {}), ...(model ? { model } : {}) };
}

/** Everything one run of the subagent handler shares. */
interface ChildRun {
  ctx: DurableContext;
  worker: WorkerEnv;
  input: SubagentInput;
  status: SessionStatus;
  log: EventLog;
  /** When the invocation started (journaled), for the result line's duration. */
  started: number;
}

/**
 * The `subagent` handler: one foreground agent of a session as its own invocation, on whichever worker
 * Restate picks. The same startAgent as locally (type, tools, model) over a session opened like the
 * parent's (trust, approval mode, grants), in a checkout of the parent's workspace; every model turn and
 * tool call journaled. As locally, a call that would ask the user is denied (SPEC §6: subagents never ask).
 * Answers the agent's outcome and its workspace.
 */
export async function runSubagent(
  ctx: DurableContext,
  raw: unknown,
  worker: WorkerEnv,
): Promise<SubagentAnswer> {
  if (!SUBAGENT_KEY.test(ctx.sessionId))
    throw new DurableInputError(
      `the subagent handler runs a session's agents under keys <session>.agent-<prompt>-<n>, not "${ctx.sessionId}"`,
    );
  const parsed = SubagentInputSchema.safeParse(raw);
  if (!parsed.success) throw new DurableInputError(`bad subagent request: ${parsed.error.message}`);
  const run = await beginRun(ctx, parsed.data, worker);
  const { input } = run;
  const root = await checkoutWorkspace(worker.workdir, ctx.sessionId, input.source);
  const session = openDurableSession(worker, {
    sessionId: ctx.sessionId,
    root,
    approvalMode: input.approvalMode,
    ...(input.parent.trust ? { trust: true } : {}),
    ...(input.parent.model ? { model: input.parent.model } : {}),
    ...(input.parent.baseUrl ? { baseUrl: input.parent.baseUrl } : {}),
  });
  ctx.attemptEnded.addEventListener("abort", () => void session.dispose().catch(() => undefined));
  let host: SubagentHost | undefined;
  try {
    const model = childModel(session, input, input.parent.model);
    if (typeof model === "string") return end(run, { ok: false, code: "unavailable", message: model });
    const sync = childSync(run, session);
    host = childHost(run, session, sync, model);
    for (const failure of await session.mcp.startMain()) worker.log(`session ${ctx.sessionId}: ${failure}`);
    const paths = pathMapping(input.parent.root, session.workspace.root);
    const { prompt, role } = input.request;
    const request = {
      ...input.request,
      prompt: paths.toChild(prompt),
      ...(role ? { role: paths.toChild(role) } : {}),
      callerId: "main",
      background: false,
    };
    const agent = await startAgent(host, request);
    if (!agent.ok) return end(run, agent);
    const outcome = await agent.finished;
    const answer = { ...outcome, id: ctx.sessionId, text: paths.toParent(outcome.text) };
    return end(run, { ok: true, outcome: answer }, sync.current());
  } finally {
    await host?.shutdown("the subagent's invocation ended");
    await session
      .dispose()
      .catch((cause: Error) => worker.log(`session ${ctx.sessionId}: cleanup failed: ${cause.message}`));
    await removeWorkspace(worker.workdir, ctx.sessionId, input.source).catch(() => undefined);
  }
}

/**
 * The child works in its own checkout: a path under the parent's folder in its task means the same file
 * in its own folder, and a path under its folder in its report means the parent's file.
 */
function pathMapping(parentRoot: string, childRoot: string) {
  return {
    toChild: (text: string) => swapFolder(text, parentRoot, childRoot),
    toParent: (text: string) => swapFolder(text, childRoot, parentRoot),
  };
}

/** Replaces the folder `from` by `to` as a whole name: /w/sessions/gs-1 is not the start of /w/sessions/gs-12. */
function swapFolder(text: string, from: string, to: string): string {
  if (from === to) return text;
  let swapped = "";
  let copied = 0;
  for (let at = text.indexOf(from); at >= 0; at = text.indexOf(from, at + from.length)) {
    // a longer name goes on (gs-12, gs-1.agent-1-1); a full stop ends a sentence
    if (/^([\w-]|\.[\w-])/.test(text.slice(at + from.length, at + from.length + 2))) continue;
    swapped += text.slice(copied, at) + to;
    copied = at + from.length;
  }
  return swapped + text.slice(copied);
}

function childModel(session: DurableSession, input: SubagentInput, spec: string | undefined) {
  return modelClientFor(
    { session, baseUrl: input.parent.baseUrl ?? session.settings.baseUrl, env: process.env },
    spec ?? session.settings.model,
  );
}

/** The child's workspace starts as the parent's (its changes, grants and reads) and is carried the same way. */
function childSync(run: ChildRun, session: DurableSession): WorkspaceSync {
  const { ctx, worker } = run;
  const sync = createWorkspaceSync({
    root: session.workspace.root,
    source: run.input.source,
    grants: session.permissions.grants,
    ledger: session.ledger,
    scratchIndex: path.join(worker.workdir, "sessions", `.${ctx.sessionId}.index`),
    warn: (line) => worker.log(`session ${ctx.sessionId}: ${line}`),
  });
  sync.note(run.input.snapshot as SessionSnapshot);
  return sync;
}

/** A subagent host over the child session whose pipeline, model and hooks are journaled steps. */
function childHost(run: ChildRun, session: DurableSession, sync: WorkspaceSync, model: ModelClient) {
  const { ctx, worker } = run;
  const journal: Journal = ctx.journal;
  const hooks = journaledSessionHooks(session.hooks, journal);
  const host = createSubagentHost({ ...session.subagents.deps, hooks });
  host.mcp = session.subagents.mcp;
  host.pipeline = journaledPipeline({
    pipeline: session.pipeline,
    journal,
    // a subagent's consent denies instead of asking; an ask that still came would wait on this object
    asks: createAskChannel(ctx, run.status, run.log, () => save(run, true)),
    workspace: sync,
    workerId: worker.workerId,
    onStepDone: (ranOn) => {
      run.status.worker = ranOn;
    },
  });
  host.bind({
    model: journaledModel(model, journal),
    modelFor: (spec) => {
      const other = childModel(session, run.input, spec);
      return typeof other === "string" ? other : journaledModel(other, journal);
    },
    onEvent: (event) => recordEvent(run, event),
  });
  ctx.signal.addEventListener("abort", () => host.agents.killAll("the session was cancelled"));
  return host;
}

/** The child's stream-json lines, as a prompt's: `gantry sessions <key> --follow` shows them. */
function recordEvent(run: ChildRun, event: AgentEvent): void {
  // live signs of a running step come only from its first execution, never from a replay
  if (event.type === "tool_update" || event.type === "tool_start") return;
  run.log.push(eventLine(event, run.ctx.sessionId));
  if (event.type === "turn_end") {
    run.status.turns = event.turn;
    save(run, false);
  }
  if (event.type === "turn_end" || event.type === "tool_result") run.log.flush();
}

async function beginRun(ctx: DurableContext, input: SubagentInput, worker: WorkerEnv): Promise<ChildRun> {
  const status: SessionStatus = {
    id: ctx.sessionId,
    state: "running",
    repo: input.parent.repo,
    prompt: promptHeadline(input.request.description || input.request.prompt),
    prompts: 1,
    turns: 0,
    asks: [],
  };
  const started = await ctx.journal.step("started", async () => Date.now());
  const run: ChildRun = { ctx, worker, input, status, log: createEventLog(ctx, 0), started };
  ctx.set(STATE.invocation, ctx.invocationId);
  save(run, true);
  return run;
}

/** The child's state as `gantry sessions` shows it: killed = cancelled; paused (its turn limit) = max_turns. */
function stateOf(result: RemoteOutcome): SessionStatus["state"] {
  if (!result.ok) return "failed";
  const ended = {
    completed: "completed",
    paused: "max_turns",
    failed: "failed",
    killed: "cancelled",
  } as const;
  return result.outcome.state === "running" ? "failed" : ended[result.outcome.state];
}

async function end(
  run: ChildRun,
  result: RemoteOutcome,
  snapshot?: SessionSnapshot,
): Promise<SubagentAnswer> {
  const error = result.ok ? result.outcome.error : result.message;
  const state = stateOf(result);
  Object.assign(run.status, {
    state,
    asks: [],
    ...(result.ok ? { result: result.outcome.text } : {}),
    ...(error ? { error } : {}),
  });
  // the closing line of `gantry sessions <key> --follow`, shaped as stream-json's
  const finished = await run.ctx.journal.step("finished", async () => Date.now());
  run.log.push({
    type: "result",
    subtype:
      state === "completed"
        ? "success"
        : state === "max_turns"
          ? "error_max_turns"
          : "error_during_execution",
    is_error: state !== "completed",
    result: result.ok ? result.outcome.text : "",
    session_id: run.ctx.sessionId,
    num_turns: result.ok ? result.outcome.turns : 0,
    duration_ms: finished - run.started,
    ...(error ? { error } : {}),
  });
  run.log.flush();
  save(run, true);
  return { result, ...(snapshot ? { snapshot } : {}) };
}

function save(run: ChildRun, notify: boolean): void {
  run.ctx.set(STATE.status, run.status);
  if (notify) run.ctx.notifyIndex(summaryOf(run.status));
}
