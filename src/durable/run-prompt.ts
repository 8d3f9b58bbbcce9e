import { homedir } from "node:os";
import path from "node:path";
import { buildSystemPrompt } from "../agent/context.js";
import { type Conversation, createConversation } from "../agent/conversation.js";
import type { AgentEvent } from "../agent/events.js";
import { loadProjectInstructions } from "../agent/instructions.js";
import { type AgentLoopOptions, type AgentRunResult, runAgentLoop } from "../agent/loop.js";
import { createSessionEvents } from "../cli/session-events.js";
import { eventLine, initLine, resultLine } from "../cli/stream-json.js";
import type { SessionHooks } from "../hooks/lifecycle.js";
import { loopHooksFor } from "../hooks/loop-bridge.js";
import type { ModelClient } from "../models/client.js";
import { modelClientFor, retryFromEnvironment } from "../session/open.js";
import { createDurableAgents } from "./agent-calls.js";
import { createAskChannel } from "./ask-channel.js";
import { checkoutWorkspace, removeWorkspace, resolveSource, type WorkspaceSource } from "./checkout.js";
import { type DurableContext, DurableInputError, type WorkerEnv } from "./context.js";
import { createEventLog, type EventLog } from "./event-log.js";
import { type DurableSession, openDurableSession } from "./open-session.js";
import { type PromptInput, PromptInputSchema } from "./prompt-input.js";
import { createSubagentChannel } from "./run-subagent.js";
import { journaledSessionHooks } from "./session-hooks.js";
import { promptHeadline, type SessionStatus, STATE, stateAfter, summaryOf } from "./session-state.js";
import { createWorkspaceSync, type SessionSnapshot } from "./session-sync.js";
import { journaledModel, journaledPipeline } from "./steps.js";

/** Everything one run of the prompt handler shares. */
interface PromptRun {
  ctx: DurableContext;
  worker: WorkerEnv;
  input: PromptInput;
  status: SessionStatus;
  log: EventLog;
}

/**
 * The `prompt` handler: the same agent loop and pipeline as `gantry -p`, with every model turn and tool
 * call a journaled step, in a workspace checked out on whichever worker runs it. A replay (another
 * worker, or a resume after an answer) rebuilds the session and takes every finished step from the journal.
 */
export async function runPrompt(
  ctx: DurableContext,
  raw: unknown,
  worker: WorkerEnv,
): Promise<SessionStatus> {
  const parsed = PromptInputSchema.safeParse(raw);
  if (!parsed.success) throw new DurableInputError(`bad prompt request: ${parsed.error.message}`);
  const started = await ctx.journal.step("started", async () => Date.now());
  ctx.set(STATE.invocation, ctx.invocationId);
  const run = await beginRun(ctx, parsed.data, worker);
  const source = await sourceOf(run);
  if ("error" in source) return endRun(run, { state: "failed", error: source.error }, started);
  const root = await checkoutWorkspace(worker.workdir, ctx.sessionId, source);
  const session = openSession(run, root);
  // a suspended attempt (waiting for an answer) never returns here: its processes end with it
  ctx.attemptEnded.addEventListener("abort", () => void session.dispose().catch(() => undefined));
  try {
    const made = modelClientFor(
      { session, baseUrl: run.input.baseUrl ?? session.settings.baseUrl, env: process.env },
      run.input.model ?? session.settings.model,
    );
    if (typeof made === "string") return endRun(run, { state: "failed", error: made }, started);
    const result = await runLoop(run, session, source, made);
    const finished = await ctx.journal.step("finished", async () => Date.now());
    run.log.push(resultLine(result, ctx.sessionId, finished - started));
    const state = stateAfter(result, ctx.signal.aborted);
    return endRun(
      run,
      { state, result: result.text, ...(result.error ? { error: result.error.message } : {}) },
      started,
    );
  } finally {
    await session
      .dispose()
      .catch((cause: Error) => worker.log(`session ${ctx.sessionId}: cleanup failed: ${cause.message}`));
    await removeWorkspace(worker.workdir, ctx.sessionId, source).catch(() => undefined);
  }
}

async function beginRun(ctx: DurableContext, input: PromptInput, worker: WorkerEnv): Promise<PromptRun> {
  const previous = await ctx.get<SessionStatus>(STATE.status);
  const repo = previous?.repo ?? input.repo;
  if (!repo) throw new DurableInputError("the first prompt of a session needs a repository (--repo)");
  const status: SessionStatus = {
    id: ctx.sessionId,
    state: "running",
    repo,
    ...((input.ref ?? previous?.ref) ? { ref: input.ref ?? previous?.ref } : {}),
    prompt: promptHeadline(input.prompt),
    prompts: (previous?.prompts ?? 0) + 1,
    turns: previous?.turns ?? 0,
    asks: [],
  };
  const log = createEventLog(ctx, (await ctx.get<number>(STATE.eventCount)) ?? 0);
  const run = { ctx, worker, input: { ...input, repo }, status, log };
  saveStatus(run, true);
  return run;
}

/** The commit the session works on: resolved once (journaled) for its first prompt, kept for the next ones. */
async function sourceOf(run: PromptRun): Promise<WorkspaceSource | { error: string }> {
  const kept = await run.ctx.get<WorkspaceSource>(STATE.source);
  if (kept?.mode === "git") run.status.commit = kept.commit;
  if (kept) return kept;
  const { repo = "", ref } = run.input;
  const source = await run.ctx.journal.step<WorkspaceSource | { error: string }>(
    "resolve repository",
    async () => {
      try {
        return await resolveSource(run.worker.workdir, repo, ref);
      } catch (cause) {
        return { error: (cause as Error).message };
      }
    },
  );
  if ("error" in source) return source;
  run.ctx.set(STATE.source, source);
  if (source.mode === "git") run.status.commit = source.commit;
  return source;
}

function openSession(run: PromptRun, root: string): DurableSession {
  return openDurableSession(run.worker, {
    sessionId: run.ctx.sessionId,
    root,
    ...(run.input.trust ? { trust: true } : {}),
    ...(run.input.approvalMode ? { approvalMode: run.input.approvalMode } : {}),
    ...(run.input.model ? { model: run.input.model } : {}),
    ...(run.input.baseUrl ? { baseUrl: run.input.baseUrl } : {}),
    remoteAgents: createDurableAgents(),
  });
}

async function runLoop(
  run: PromptRun,
  session: DurableSession,
  source: WorkspaceSource,
  model: ModelClient,
): Promise<AgentRunResult> {
  const { ctx } = run;
  const root = session.workspace.root;
  // as `gantry -p`: the MCP servers start before the first turn, so their tools are declared
  for (const failure of await session.mcp.startMain()) run.worker.log(`session ${ctx.sessionId}: ${failure}`);
  const declarations = session.registry.declarations();
  const init = initLine({
    sessionId: ctx.sessionId,
    model: model.id,
    cwd: root,
    tools: declarations.map((d) => d.name),
    approvalMode: run.input.approvalMode ?? session.permissions.mode ?? "default",
  });
  // recorded, so a replay on another worker logs the first worker's line
  run.log.push(await ctx.journal.step("init", async () => init));
  const { pipeline, sync } = await journaledSteps(run, session, source);
  const stored = await ctx.get<Conversation>(STATE.conversation);
  const conversation = createConversation(stored?.messages ?? []);
  const turnsBefore = run.status.turns;
  const onEvent = (event: AgentEvent) => recordEvent(run, event, turnsBefore);
  // the same session events as `gantry -p`: SessionStart, UserPromptSubmit, the loop's hooks, SessionEnd
  const hooks = journaledSessionHooks(session.hooks, ctx.journal);
  const events = createSessionEvents({ hooks, model: () => model.id, interactive: false });
  await events.start(conversation.messages.length > 0 ? "resume" : "startup");
  const admitted = await events.admit([{ role: "user", text: run.input.prompt }], ctx.signal);
  const result =
    "refused" in admitted
      ? events.refuse(admitted.refused, conversation, onEvent)
      : await runAgentLoop(conversation, journaledModel(model, ctx.journal), pipeline, {
          system: buildSystemPrompt({
            workspaceRoot: root,
            declarations,
            // the worker's home: its own instructions, as its settings and hooks are
            instructions: loadProjectInstructions(root, {
              home: homedir(),
              isSecret: (rel) => session.workspace.secrets.isSecret(rel),
            }),
            skills: session.skills.skills,
          }),
          tools: declarations,
          input: admitted.input,
          signal: ctx.signal,
          compaction: { contextWindow: model.contextWindow },
          retry: retryFromEnvironment(process.env),
          ...loopOptions(run, session, hooks, model, admitted.prompt),
          onEvent,
        });
  await events.end("other");
  // the next prompt (on any worker) continues this conversation in this workspace
  ctx.set(STATE.conversation, conversation);
  ctx.set(STATE.snapshot, sync.current());
  return result;
}

function loopOptions(
  run: PromptRun,
  session: DurableSession,
  hooks: SessionHooks,
  model: ModelClient,
  prompt: string,
): Pick<AgentLoopOptions, "maxTurns" | "hooks"> {
  const maxTurns = run.input.maxTurns ?? session.settings.maxTurns;
  const loopHooks = loopHooksFor(hooks, {
    agentId: "main",
    model: model.id,
    prompt: () => prompt,
    toolSpec: (name) => session.registry.lookup(name)?.spec,
  });
  return { ...(maxTurns ? { maxTurns } : {}), ...(loopHooks ? { hooks: loopHooks } : {}) };
}

/** The session's pipeline with journaled calls, and the sync that carries its workspace between workers. */
async function journaledSteps(run: PromptRun, session: DurableSession, source: WorkspaceSource) {
  const { ctx, worker } = run;
  const sync = createWorkspaceSync({
    root: session.workspace.root,
    source,
    grants: session.permissions.grants,
    ledger: session.ledger,
    scratchIndex: path.join(worker.workdir, "sessions", `.${ctx.sessionId}.index`),
    warn: (line) => worker.log(`session ${ctx.sessionId}: ${line}`),
  });
  const kept = await ctx.get<SessionSnapshot>(STATE.snapshot);
  if (kept) sync.note(kept);
  const pipeline = journaledPipeline({
    pipeline: session.pipeline,
    journal: ctx.journal,
    asks: createAskChannel(ctx, run.status, run.log, () => saveStatus(run, true)),
    workspace: sync,
    workerId: worker.workerId,
    onStepDone: (ranOn) => {
      run.status.worker = ranOn;
    },
    agents: createSubagentChannel({
      ctx,
      prefix: `${ctx.sessionId}.agent-${run.status.prompts}`,
      root: session.workspace.root,
      source,
      sync,
      parent: {
        repo: run.status.repo,
        ...(run.input.trust ? { trust: true } : {}),
        ...(run.input.model ? { model: run.input.model } : {}),
        ...(run.input.baseUrl ? { baseUrl: run.input.baseUrl } : {}),
      },
      // the mode as it is at the call: a child never gets more than its parent has then
      approvalMode: () => session.permissions.mode ?? "default",
      announce: (agents) => announceAgents(run, agents),
    }),
  });
  return { pipeline, sync };
}

/** A subagent's line in the parent's log, and its key in the status: follow it or answer its asks there. */
function announceAgents(run: PromptRun, agents: { key: string; description: string }[]): void {
  for (const { key, description } of agents) {
    run.log.push({
      type: "system",
      subtype: "subagent",
      subagent_session_id: key,
      description,
      session_id: run.ctx.sessionId,
    });
  }
  run.status.subagents = [...(run.status.subagents ?? []), ...agents.map((agent) => agent.key)];
  run.log.flush();
  saveStatus(run, false);
}

/** Every loop event but live tool output becomes its stream-json line; a result or a turn's end flushes them. */
function recordEvent(run: PromptRun, event: AgentEvent, turnsBefore: number): void {
  // live signs of a running step (its start, its output so far) come only from the step's first
  // execution, never from a replay: logging them would make a replay write different chunks
  if (event.type === "tool_update" || event.type === "tool_start") return;
  run.log.push(eventLine(event, run.ctx.sessionId));
  if (event.type === "turn_end") {
    run.status.turns = turnsBefore + event.turn;
    saveStatus(run, false);
  }
  if (event.type === "turn_end" || event.type === "tool_result") run.log.flush();
}

async function endRun(
  run: PromptRun,
  end: Pick<SessionStatus, "state" | "result" | "error">,
  started: number,
): Promise<SessionStatus> {
  Object.assign(run.status, end, { asks: [] });
  if (end.error && end.result === undefined) {
    run.log.push({
      type: "result",
      subtype: "error_during_execution",
      is_error: true,
      result: "",
      error: end.error,
      session_id: run.ctx.sessionId,
      num_turns: 0,
      duration_ms: (await run.ctx.journal.step("failed", async () => Date.now())) - started,
    });
    run.log.flush();
  }
  run.log.flush();
  saveStatus(run, true);
  return run.status;
}

/** Writes the status; `notify` also tells the index (state changes, not every turn). */
function saveStatus(run: PromptRun, notify: boolean): void {
  run.ctx.set(STATE.status, run.status);
  if (notify) run.ctx.notifyIndex(summaryOf(run.status));
}
