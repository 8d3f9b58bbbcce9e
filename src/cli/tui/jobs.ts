import type { AgentInbox } from "../../agent/inbox.js";
import { watchInboxWhileIdle } from "./inbox-watch.js";

/** What waits to run, in order: a prompt the user typed, or a message in the session's inbox. */
export type Job = { kind: "prompt"; text: string } | { kind: "inbox" };

export interface JobRunnerOptions {
  inbox: AgentInbox;
  /** Runs one job to its end; a thrown error is handed to `onError`. */
  run(job: Job, signal: AbortSignal): Promise<void>;
  onError(error: Error): void;
  /** A job started or ended, or the queue changed: redraw. */
  onChange(): void;
  onIdle(): void;
}

/**
 * One job at a time, the rest queued (shown as queued until they run). A schedule or background agent
 * that posts to the inbox while nothing runs starts a job of its own.
 */
export function createJobRunner(options: JobRunnerOptions) {
  const queue: Job[] = [];
  let running: AbortController | undefined;
  let stopped = false;
  const inboxWatch = watchInboxWhileIdle(options.inbox, () => {
    queue.push({ kind: "inbox" });
    pump();
  });

  function pump(): void {
    if (running || stopped) return;
    const job = queue.shift();
    if (!job) {
      inboxWatch.start();
      options.onIdle();
      return options.onChange();
    }
    void start(job);
  }

  async function start(job: Job): Promise<void> {
    inboxWatch.stop();
    const controller = new AbortController();
    running = controller;
    options.onChange();
    try {
      await options.run(job, controller.signal);
    } catch (error) {
      options.onError(error as Error);
    } finally {
      running = undefined;
      pump();
    }
  }

  return {
    submit(text: string): void {
      queue.push({ kind: "prompt", text });
      pump();
      options.onChange();
    },
    get busy(): boolean {
      return running !== undefined;
    },
    get queued(): string[] {
      return queue.flatMap((job) => (job.kind === "prompt" ? [job.text] : []));
    },
    /**
     * Aborts the running job and takes the queued prompts out (they go back to the editor rather than
     * start on their own). "again" when the job was already aborted: the user insists.
     */
    interrupt(): { outcome: "idle" | "aborted" | "again"; queued: string[] } {
      if (!running) return { outcome: "idle", queued: [] };
      if (running.signal.aborted) return { outcome: "again", queued: [] };
      running.abort(new Error("interrupted"));
      const queued = queue.flatMap((job) => (job.kind === "prompt" ? [job.text] : []));
      queue.splice(0, queue.length, ...queue.filter((job) => job.kind !== "prompt"));
      return { outcome: "aborted", queued };
    },
    start: pump,
    stop(why: string): void {
      stopped = true;
      running?.abort(new Error(why));
      inboxWatch.stop();
    },
  };
}
