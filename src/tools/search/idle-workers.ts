import { Worker } from "node:worker_threads";

/**
 * Worker threads a finished search left idle, by script: the next search takes one instead of booting
 * a new one (~20-90 ms each). They are unref'd (the process exits without waiting for them) and ended
 * after IDLE_MS unused.
 */
const idleWorkers = new Map<string, IdleWorker[]>();
const IDLE_MS = 30_000;

interface IdleWorker {
  worker: Worker;
  timer: NodeJS.Timeout;
  gone: () => void;
}

/** An idle worker of this script, now the caller's; undefined when there is none. */
function takeIdleWorker(url: URL): Worker | undefined {
  const idle = idleWorkers.get(url.href)?.pop();
  if (idle === undefined) return undefined;
  clearTimeout(idle.timer);
  idle.worker.off("exit", idle.gone).off("error", idle.gone);
  return idle.worker;
}

/**
 * An idle worker of this script, or a new one started with `workerData` (unref'd, its stdout dropped,
 * its stderr kept from the process's own); `idle` tells which.
 */
export function takeOrStartWorker(url: URL, workerData: unknown): { worker: Worker; idle: boolean } {
  const idle = takeIdleWorker(url);
  if (idle) return { worker: idle, idle: true };
  const worker = new Worker(url, { workerData, stdout: false, stderr: true });
  worker.unref();
  return { worker, idle: false };
}

/** Keeps a worker that holds no work for the next search of its script. */
export function keepIdleWorker(url: URL, worker: Worker): void {
  const list = idleWorkers.get(url.href) ?? [];
  idleWorkers.set(url.href, list);
  const entry: IdleWorker = {
    worker,
    gone: () => {
      const at = list.indexOf(entry);
      if (at >= 0) list.splice(at, 1);
    },
    timer: setTimeout(() => {
      entry.gone();
      void worker.terminate();
    }, IDLE_MS).unref(),
  };
  worker.on("exit", entry.gone).on("error", entry.gone);
  list.push(entry);
}

/** Workers of this script kept idle. */
export function idleWorkerCount(url: URL): number {
  return idleWorkers.get(url.href)?.length ?? 0;
}
