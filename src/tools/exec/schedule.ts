import type { Cron } from "croner";
import { z } from "zod";
import type { AgentInbox } from "../../agent/inbox.js";
import { lazySchema } from "../../config/lazy-schema.js";
import { defineTool, errorResult, okResult } from "../contract.js";
import type { ExecRuntime } from "./runtime.js";

export const ScheduleArgs = lazySchema(() =>
  z.object({
    Prompt: z
      .string()
      .min(1)
      .describe("What to tell the agent (as a new turn) each time the schedule fires."),
    DurationSeconds: z
      .number()
      .positive()
      .max(24 * 24 * 3600)
      .optional()
      .describe("Fire once after this many seconds (every this many seconds when MaxIterations > 1)."),
    CronExpression: z
      .string()
      .min(1)
      .optional()
      .describe('Cron schedule, 5 fields or 6 with seconds first (e.g. "*/10 * * * *"), in local time.'),
    TimerCondition: z
      .string()
      .min(1)
      .optional()
      .describe(
        "A bash command run in the workspace root when the schedule is due; it fires only once the command exits 0, re-running it every few seconds until then (poll until ready, e.g. `curl -sf localhost:3000/health`). Alone, it fires as soon as the condition holds.",
      ),
    MaxIterations: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("Most times the schedule fires (default 1 for timers and conditions, unlimited for cron)."),
  }),
);
export type ScheduleInput = z.infer<ReturnType<typeof ScheduleArgs>>;

export type ScheduleState = "active" | "done" | "cancelled";

export interface ScheduleEntry {
  readonly id: string;
  readonly prompt: string;
  readonly kind: "timer" | "cron" | "condition";
  readonly trigger: string;
  readonly maxIterations: number | undefined;
  readonly condition: string | undefined;
  fired: number;
  state: ScheduleState;
  /** When it is next due (ms since epoch), if known. */
  nextDueAt: number | undefined;
  /** Set while the condition is being polled and has not held yet. */
  waitingForCondition: boolean;
  lastConditionExit: number | null | undefined;
}

export interface ScheduleBook {
  add(args: ScheduleInput, agentId: string): Promise<ScheduleEntry>;
  get(id: string): ScheduleEntry | undefined;
  list(): ScheduleEntry[];
  cancel(id: string): boolean;
  dispose(): void;
}

export function createScheduleBook(runtime: ExecRuntime, inbox: AgentInbox): ScheduleBook {
  const entries = new Map<string, ScheduleEntry & { stop: () => void }>();
  let counter = 0;

  async function add(args: ScheduleInput, agentId: string): Promise<ScheduleEntry> {
    if (args.DurationSeconds !== undefined && args.CronExpression !== undefined) {
      throw new Error("give DurationSeconds or CronExpression, not both");
    }
    const kind = args.CronExpression ? "cron" : args.DurationSeconds !== undefined ? "timer" : "condition";
    if (kind === "condition" && !args.TimerCondition) {
      throw new Error("give DurationSeconds, CronExpression or TimerCondition");
    }
    // loaded by the first cron schedule, not by every start; before anything of the entry exists
    const Croner = kind === "cron" ? (await import("croner")).Cron : undefined;
    counter++;
    const release = inbox.holdOpen();
    const timers = new Set<ReturnType<typeof setTimeout>>();
    let cron: Cron | undefined;
    const entry = {
      id: `s${counter}`,
      prompt: args.Prompt,
      kind,
      trigger:
        kind === "cron"
          ? `cron "${args.CronExpression}"`
          : kind === "timer"
            ? `after ${args.DurationSeconds}s`
            : "when the condition holds",
      maxIterations: args.MaxIterations ?? (kind === "cron" ? undefined : 1),
      condition: args.TimerCondition,
      fired: 0,
      state: "active" as ScheduleState,
      nextDueAt: undefined as number | undefined,
      waitingForCondition: false as boolean,
      lastConditionExit: undefined as number | null | undefined,
      stop() {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        cron?.stop();
        release();
      },
    } satisfies ScheduleEntry & { stop: () => void };

    const later = (ms: number, run: () => void) => {
      entry.nextDueAt = Date.now() + ms;
      const timer = setTimeout(() => {
        timers.delete(timer);
        run();
      }, ms);
      timers.add(timer);
    };
    const finishIfDone = () => {
      if (entry.maxIterations !== undefined && entry.fired >= entry.maxIterations) {
        entry.state = "done";
        entry.nextDueAt = undefined;
        entry.stop();
        return true;
      }
      return false;
    };
    const deliver = () => {
      if (entry.state !== "active") return;
      entry.fired++;
      inbox.post({ source: `schedule ${entry.id}`, text: entry.prompt, agentId });
      if (finishIfDone()) return;
      if (kind === "timer") later((args.DurationSeconds ?? 0) * 1000, due);
      else if (cron) entry.nextDueAt = cron.nextRun()?.getTime();
    };
    // a due time: fire, or poll the condition until it holds (cron occurrences meanwhile are skipped)
    const due = () => {
      if (entry.state !== "active" || entry.waitingForCondition) return;
      if (!entry.condition) return deliver();
      entry.waitingForCondition = true;
      const poll = async () => {
        if (entry.state !== "active") return;
        entry.lastConditionExit = await runCondition(runtime, entry.condition as string);
        if (entry.state !== "active") return;
        if (entry.lastConditionExit === 0) {
          entry.waitingForCondition = false;
          deliver();
        } else {
          later(runtime.settings.conditionPollMs, () => void poll());
        }
      };
      void poll();
    };

    if (kind === "cron") {
      try {
        cron = new (Croner as typeof Cron)(args.CronExpression as string, () => due());
      } catch (cause) {
        entry.stop();
        throw new Error(`CronExpression "${args.CronExpression}" is invalid: ${(cause as Error).message}`);
      }
      entry.nextDueAt = cron.nextRun()?.getTime();
    } else if (kind === "timer") {
      later((args.DurationSeconds as number) * 1000, due);
    } else {
      due();
    }
    entries.set(entry.id, entry);
    return entry;
  }

  return {
    add,
    get: (id) => entries.get(id),
    list: () => [...entries.values()],
    cancel(id) {
      const entry = entries.get(id);
      if (!entry || entry.state !== "active") return false;
      entry.state = "cancelled";
      entry.stop();
      return true;
    },
    dispose() {
      for (const entry of entries.values()) {
        if (entry.state === "active") entry.state = "cancelled";
        entry.stop();
      }
    },
  };
}

/** Runs a TimerCondition once; its exit code, or null when it could not run or timed out. */
async function runCondition(runtime: ExecRuntime, command: string): Promise<number | null> {
  if (runtime.disposed) return null;
  try {
    const running = await runtime.start(command, runtime.workspace.root);
    running.closeInput();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), runtime.settings.conditionTimeoutMs);
    });
    const outcome = await Promise.race([running.finished, timedOut]);
    clearTimeout(timer);
    if (outcome === "timeout") {
      await running.kill(runtime.settings.killGraceMs);
      return null;
    }
    return outcome.exitCode;
  } catch {
    return null;
  }
}

export function describeSchedule(entry: ScheduleEntry): string {
  const cap = entry.maxIterations === undefined ? "" : `/${entry.maxIterations}`;
  const next =
    entry.state === "active" && entry.nextDueAt !== undefined
      ? `, next ${new Date(entry.nextDueAt).toISOString()}`
      : "";
  const waiting = entry.waitingForCondition
    ? `, waiting for its condition (last exit ${entry.lastConditionExit ?? "none yet"})`
    : "";
  return `${entry.id} [schedule ${entry.state}] ${entry.trigger}${entry.condition ? ` if \`${entry.condition}\`` : ""}, fired ${entry.fired}${cap}${next}${waiting}: ${oneLine(entry.prompt)}`;
}

function oneLine(text: string, max = 80): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function createScheduleTool(book: ScheduleBook, root: string) {
  return defineTool({
    spec: {
      name: "schedule",
      description:
        "Sets a one-shot timer (DurationSeconds) or a cron schedule (CronExpression) that delivers Prompt to you as a new turn when it fires, optionally only once TimerCondition (a shell command) exits 0. List and cancel schedules with manage_task; they last as long as the session.",
      parameters: ScheduleArgs,
      safety: "execute",
      group: "Command",
      // the condition is a shell command like any other, judged when the schedule is set
      shellCommands: (args) =>
        args.TimerCondition ? [{ commandLine: args.TimerCondition, folders: [root] }] : [],
    },
    async execute(args, ctx) {
      let entry: ScheduleEntry;
      try {
        entry = await book.add(args, ctx.agentId);
      } catch (cause) {
        return errorResult("invalid_arguments", `schedule: ${(cause as Error).message}.`);
      }
      return okResult(
        `Scheduled ${describeSchedule(entry)}\nCancel it with manage_task kill "${entry.id}".`,
        {
          scheduleId: entry.id,
          kind: entry.kind,
          nextDueAt: entry.nextDueAt,
        },
      );
    },
  });
}
