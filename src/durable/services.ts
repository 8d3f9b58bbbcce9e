import * as restate from "@restatedev/restate-sdk";
import { z } from "zod";
import { AskAnswerSchema, parseAnswerWords } from "./asks.js";
import { type DurableContext, DurableInputError, type WorkerEnv } from "./context.js";
import { readEventLog } from "./event-log.js";
import type { Journal } from "./journal.js";
import { runPrompt } from "./run-prompt.js";
import { runSubagent } from "./run-subagent.js";
import { ENDED_STATES, type SessionStatus, type SessionSummary, STATE } from "./session-state.js";

/** Restate names: the session object (keyed by session id) and the index `gantry sessions` lists. */
export const SESSION_SERVICE = "GantrySession";
export const INDEX_SERVICE = "GantrySessions";
export const INDEX_KEY = "all";

const AnswerRequestSchema = z.object({
  askId: z.string().min(1).describe("the ask's id, as `status` and the event log show it"),
  words: z
    .array(z.string())
    .optional()
    .describe("the answer as typed: yes | session | no [why], or one answer per question"),
  answer: AskAnswerSchema.optional().describe("the answer as data, instead of words"),
});

const EventsRequestSchema = z.object({ from: z.number().int().min(0).optional() }).optional();

const sessionIndex = restate.object({
  name: INDEX_SERVICE,
  handlers: {
    record: async (ctx: restate.ObjectContext, summary: SessionSummary) => {
      const all = (await ctx.get<Record<string, SessionSummary>>("sessions")) ?? {};
      all[summary.id] = summary;
      ctx.set("sessions", all);
    },
    list: restate.handlers.object.shared(async (ctx: restate.ObjectSharedContext) =>
      Object.values((await ctx.get<Record<string, SessionSummary>>("sessions")) ?? {}),
    ),
  },
});

/** The services a worker serves: one adapter over the same session, loop and pipeline as `gantry -p`. */
export function defineServices(worker: WorkerEnv) {
  const session = restate.object({
    name: SESSION_SERVICE,
    handlers: {
      prompt: async (ctx: restate.ObjectContext, input: unknown) =>
        badInputIsFinal(() => runPrompt(durableContext(ctx), input, worker)),
      // a foreground subagent of a session, as its own invocation (keyed <session>.agent-<prompt>-<n>)
      subagent: async (ctx: restate.ObjectContext, input: unknown) =>
        badInputIsFinal(() => runSubagent(durableContext(ctx), input, worker)),
      answer: restate.handlers.object.shared(answerAsk),
      cancel: restate.handlers.object.shared(cancelSession),
      status: restate.handlers.object.shared(async (ctx: restate.ObjectSharedContext) => statusOf(ctx)),
      events: restate.handlers.object.shared(async (ctx: restate.ObjectSharedContext, body: unknown) => {
        const request = EventsRequestSchema.safeParse(body);
        if (!request.success)
          throw new restate.TerminalError(`bad events request: ${request.error.message}`, { errorCode: 400 });
        const status = await statusOf(ctx);
        return { ...(await readEventLog(ctx, request.data?.from ?? 0)), state: status.state };
      }),
    },
    // the prompt handler races every wait against cancellation, so a cancel also aborts running tools
    options: { explicitCancellation: true },
  });
  return [session, sessionIndex];
}

/** Bad input is answered at once (HTTP 400) and never retried. */
async function badInputIsFinal<T>(handler: () => Promise<T>): Promise<T> {
  try {
    return await handler();
  } catch (cause) {
    if (cause instanceof DurableInputError)
      throw new restate.TerminalError(cause.message, { errorCode: 400 });
    throw cause;
  }
}

async function statusOf(ctx: restate.ObjectSharedContext): Promise<SessionStatus> {
  const status = await ctx.get<SessionStatus>(STATE.status);
  if (!status) throw new restate.TerminalError(`no session "${ctx.key}"`, { errorCode: 404 });
  return status;
}

async function answerAsk(ctx: restate.ObjectSharedContext, body: unknown) {
  const request = AnswerRequestSchema.safeParse(body);
  if (!request.success)
    throw new restate.TerminalError(`bad answer: ${request.error.message}`, { errorCode: 400 });
  const { askId, words = [], answer } = request.data;
  const status = await statusOf(ctx);
  const open = status.asks.find((ask) => ask.askId === askId);
  if (!open) {
    const waiting = status.asks.map((ask) => ask.askId).join(", ") || "none";
    throw new restate.TerminalError(`session ${ctx.key} has no open ask "${askId}" (open asks: ${waiting})`, {
      errorCode: 404,
    });
  }
  const given = answer ?? parseAnswerWords(open.pending, words);
  if (typeof given === "string") throw new restate.TerminalError(given, { errorCode: 400 });
  ctx.resolveAwakeable(open.awakeableId, given);
  return { askId, answer: given };
}

async function cancelSession(ctx: restate.ObjectSharedContext) {
  const status = await statusOf(ctx);
  const invocation = await ctx.get<string>(STATE.invocation);
  if (ENDED_STATES.includes(status.state) || !invocation) return { cancelled: false, state: status.state };
  ctx.cancel(restate.InvocationIdParser.fromString(invocation));
  return { cancelled: true, state: status.state };
}

const CANCELLED = { cancelled: true } as const;

/** With explicit cancellation Restate leaves a cancelled session's calls running: they are cancelled here. */
async function cancelCalls(ctx: restate.ObjectContext): Promise<typeof CANCELLED> {
  await (ctx as unknown as restate.internal.ContextInternal).cancelPreviousCalls();
  return CANCELLED;
}

/** The prompt handler's view of Restate: every wait is raced against cancellation, which aborts the loop. */
function durableContext(ctx: restate.ObjectContext): DurableContext {
  const controller = new AbortController();
  // a worker that lost its attempt (its connection to Restate) stops what it runs: the step is not recorded anyway
  ctx.request().attemptCompletedSignal.addEventListener("abort", () => controller.abort());
  const cancellation = () =>
    (ctx as unknown as restate.internal.ContextInternal).cancellation().map(() => {
      controller.abort();
      return CANCELLED;
    });
  const journal: Journal = {
    async step(name, action) {
      const running = ctx.run(name, action);
      if (controller.signal.aborted) return await running;
      const first = await restate.RestatePromise.race([running, cancellation()]);
      // cancelled mid-step: the abort ends the action, and its (aborted) result is still recorded
      return first === CANCELLED ? await running : (first as Awaited<typeof running>);
    },
  };
  return {
    sessionId: ctx.key,
    invocationId: ctx.request().id,
    journal,
    signal: controller.signal,
    attemptEnded: ctx.request().attemptCompletedSignal,
    get: (key) => ctx.get(key),
    set: (key, value) => ctx.set(key, value),
    durablePromise() {
      const awakeable = ctx.awakeable<unknown>();
      return {
        id: awakeable.id,
        async wait() {
          if (controller.signal.aborted) return CANCELLED;
          try {
            const value = await restate.RestatePromise.race([awakeable.promise, cancellation()]);
            if (value === CANCELLED) return CANCELLED;
            const parsed = AskAnswerSchema.safeParse(value);
            return parsed.success ? parsed.data : { invalid: parsed.error.message };
          } catch (cause) {
            return { invalid: (cause as Error).message };
          }
        },
      };
    },
    async callSubagents(calls) {
      const answers = calls.map((call) =>
        ctx
          .genericCall<unknown, unknown>({
            service: SESSION_SERVICE,
            method: "subagent",
            key: call.key,
            parameter: call.input,
            inputSerde: restate.serde.json,
            outputSerde: restate.serde.json,
          })
          // an invocation that failed for good is that agent's failure, not the session's
          .map((answer, failure) => (failure ? { failed: failure.message } : answer)),
      );
      if (controller.signal.aborted) return cancelCalls(ctx);
      const first = await restate.RestatePromise.race([restate.RestatePromise.all(answers), cancellation()]);
      return first === CANCELLED ? cancelCalls(ctx) : (first as unknown[]);
    },
    notifyIndex: (summary) => ctx.objectSendClient(sessionIndex, INDEX_KEY).record(summary),
  };
}
