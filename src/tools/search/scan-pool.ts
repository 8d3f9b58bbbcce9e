import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import type { Worker } from "node:worker_threads";
import { absolutePath, createFileScanner, scanCode } from "./file-scanner.js";
import { idleWorkerCount, keepIdleWorker, takeOrStartWorker } from "./idle-workers.js";
import type { LineMatcher } from "./matcher.js";
import type { ScanAnswer, ScanBatch, ScanJobMessage, ScanWorkerData } from "./scan-worker.js";

/** The files of one Node-engine search, to be scanned for their match counts. */
export interface ScanJob {
  root: string;
  /** Workspace-relative paths. */
  files: readonly string[];
  query: string;
  isRegex: boolean;
  caseInsensitive: boolean;
  maxFileBytes: number;
  signal: AbortSignal;
}

export interface PoolOptions {
  /** Scan workers besides the calling thread (default: one per further CPU, at most 7). */
  workers?: number;
  /**
   * Workers start once the walk has found this many files (default 10,000): one takes ~50-90 ms to boot,
   * and one that boots too late to help still delays the process's exit by about as much.
   */
  minFiles?: number;
  /** The compiled worker script (default: scan-worker.js next to this module). */
  workerUrl?: URL;
  /** Files per batch (default 512). */
  batchFiles?: number;
  /** false: the calling thread only hands out batches (tests use it to make the workers do all). */
  callerScans?: boolean;
}

export interface PoolCounts {
  /** One scan code per file (file-scanner.ts): a match count, or large / binary / unreadable. */
  counts: Int32Array;
  /** Threads that scanned, the calling one included. */
  threads: number;
}

const BATCH_FILES = 512;
const DEFAULT_MIN_FILES = 10_000;
/** Batches a worker holds at once, so it never waits on the busy calling thread for its next one. */
const BATCHES_AHEAD = 2;

/**
 * The worker script, when this module runs compiled (dist/ or the bundle); under a TypeScript loader
 * (tests) there is none and the caller scans alone.
 */
export function defaultWorkerUrl(): URL | undefined {
  const url = new URL("./scan-worker.js", import.meta.url);
  return existsSync(fileURLToPath(url)) ? url : undefined;
}

/** How many scan workers a search of this many files should use (0: the calling thread alone). */
export function plannedWorkers(fileCount: number, options: PoolOptions = {}): number {
  const workers = options.workers ?? Math.min(7, availableParallelism() - 1);
  const url = options.workerUrl ?? defaultWorkerUrl();
  if (workers <= 0 || url === undefined || fileCount < (options.minFiles ?? DEFAULT_MIN_FILES)) return 0;
  return workers;
}

/** Files to scan, fed while the walk finds them; batches go to whichever thread is free. */
export interface ScanPool {
  /** The files added so far, in that order (the counts follow it). */
  readonly files: string[];
  add(rel: string): void;
  /** Whether workers were started (enough files were added); if not, the caller may scan alone. */
  usesWorkers(): boolean;
  /** After the last add: scans what is left on every thread and returns one code per file. */
  finish(): Promise<PoolCounts>;
  /** Stops the workers (finish does it too); safe to call more than once. */
  close(): void;
}

type Range = readonly [start: number, end: number];

/** The files in batches: whole batches while the walk goes on, the rest once it is done. */
function createBatchQueue(files: readonly string[], batchFiles: number) {
  let nextStart = 0;
  const orphaned: Range[] = [];
  const queue = {
    walkDone: false,
    /** A batch a failed worker left unscanned. */
    giveBack: (range: Range) => orphaned.push(range),
    take(): Range | undefined {
      const left = files.length - nextStart;
      if (left <= 0 || (!queue.walkDone && left < batchFiles)) return undefined;
      const range = [nextStart, Math.min(files.length, nextStart + batchFiles)] as const;
      nextStart = range[1];
      return range;
    },
    takeOrphan: () => orphaned.pop(),
    isDrained: () => nextStart >= files.length && orphaned.length === 0,
  };
  return queue;
}

type BatchQueue = ReturnType<typeof createBatchQueue>;

/** The worker threads of one pool: each holds up to BATCHES_AHEAD batches and answers with counts. */
function createWorkerSet(
  job: ScanJobMessage,
  files: readonly string[],
  queue: BatchQueue,
  onCounts: (start: number, counts: Int32Array) => void,
  onLost: () => void,
) {
  const held = new Map<Worker, Map<number, number>>();
  const leases = new Map<Worker, WorkerLease>();
  const ready = new Set<Worker>();
  const helped = new Set<Worker>();
  let closed = false;
  const topUp = () => {
    for (const worker of ready) {
      const batches = held.get(worker);
      while (batches && batches.size < BATCHES_AHEAD) {
        const range = queue.take();
        if (range === undefined) return;
        batches.set(range[0], range[1]);
        const batch: ScanBatch = {
          type: "batch",
          job: job.job,
          start: range[0],
          files: files.slice(range[0], range[1]),
        };
        worker.postMessage(batch);
      }
    }
  };
  const events: WorkerEvents = {
    onReady(worker) {
      if (closed) return;
      ready.add(worker);
      topUp();
    },
    onCounts(worker, start, counts) {
      held.get(worker)?.delete(start);
      helped.add(worker);
      onCounts(start, counts);
      topUp();
    },
    onFailure(worker) {
      if (closed) return;
      for (const range of held.get(worker) ?? []) queue.giveBack(range);
      held.delete(worker);
      ready.delete(worker);
      leases.get(worker)?.release(false);
      leases.delete(worker);
      onLost(); // the caller takes the batches back
    },
  };
  return {
    topUp,
    /** Starts the workers (idle ones first); false when none could be started. */
    start(url: URL, count: number): boolean {
      for (let i = 0; i < count; i++) {
        try {
          const lease = leaseWorker(url, job, events);
          held.set(lease.worker, new Map());
          leases.set(lease.worker, lease);
        } catch {
          break; // no thread to be had (resource limits): the calling thread scans
        }
      }
      return held.size > 0;
    },
    alive: () => held.size,
    busy: () => [...held.values()].some((batches) => batches.size > 0),
    helped: () => helped.size,
    /** Workers holding no batch are kept for the next search; one still scanning (an abort) is ended. */
    close() {
      closed = true;
      for (const [worker, lease] of leases) lease.release(held.get(worker)?.size === 0);
      leases.clear();
    },
  };
}

/**
 * Match counts of many files, scanned by worker threads and the calling thread together. Workers start
 * once enough files are known, so they boot and scan while the walk goes on. Only counts travel back;
 * the few files whose lines are shown are read again by the caller. A failed worker's batches fall
 * back to the calling thread.
 */
export function createScanPool(
  job: Omit<ScanJob, "files">,
  matcher: LineMatcher,
  options: PoolOptions = {},
): ScanPool {
  const files: string[] = [];
  const counts: number[] = [];
  const url = options.workerUrl ?? defaultWorkerUrl();
  const batchFiles = options.batchFiles ?? BATCH_FILES;
  const minFiles = Math.max(1, options.minFiles ?? DEFAULT_MIN_FILES);
  const queue = createBatchQueue(files, batchFiles);
  let wake: (() => void) | undefined;
  const wakeUp = () => wake?.();
  const message: ScanJobMessage = {
    type: "job",
    job: ++jobsStarted,
    root: job.root,
    query: job.query,
    isRegex: job.isRegex,
    caseInsensitive: job.caseInsensitive,
    maxFileBytes: job.maxFileBytes,
  };
  const workers = createWorkerSet(
    message,
    files,
    queue,
    (start, answer) => {
      for (let i = 0; i < answer.length; i++) counts[start + i] = answer[i] as number;
      wakeUp();
    },
    wakeUp,
  );
  let started = false;
  const start = () => {
    const count = plannedWorkers(Number.POSITIVE_INFINITY, options);
    started = url !== undefined && count > 0 && workers.start(url, count);
  };
  const close = () => {
    job.signal.removeEventListener("abort", wakeUp);
    workers.close();
  };
  job.signal.addEventListener("abort", wakeUp, { once: true });

  async function finish(): Promise<PoolCounts> {
    queue.walkDone = true;
    if (!started && files.length >= minFiles) start();
    workers.topUp();
    const callerScans = options.callerScans !== false;
    try {
      await scanOnCaller({ job, matcher, files, counts, queue, workers, callerScans }, () => {
        return new Promise<void>((resolve) => {
          wake = resolve;
        });
      });
    } finally {
      close();
    }
    return { counts: Int32Array.from(counts), threads: (callerScans ? 1 : 0) + workers.helped() };
  }

  return {
    files,
    add(rel) {
      files.push(rel);
      if (files.length === minFiles) start();
      else if (started) workers.topUp();
    },
    usesWorkers: () => started,
    finish,
    close,
  };
}

interface CallerShare {
  job: Omit<ScanJob, "files">;
  matcher: LineMatcher;
  files: readonly string[];
  counts: number[];
  queue: BatchQueue;
  workers: ReturnType<typeof createWorkerSet>;
  callerScans: boolean;
}

/** The calling thread's share: batches while the workers are busy, the workers' leftovers, then done. */
async function scanOnCaller(share: CallerShare, nextEvent: () => Promise<void>): Promise<void> {
  const { job, files, counts, queue, workers } = share;
  const scanner = createFileScanner(share.matcher, job.maxFileBytes);
  for (;;) {
    job.signal.throwIfAborted();
    const mayTake = share.callerScans || workers.alive() === 0;
    const range = queue.takeOrphan() ?? (mayTake ? queue.take() : undefined);
    if (range !== undefined) {
      try {
        for (let i = range[0]; i < range[1]; i++) {
          counts[i] = scanCode(scanner.scan(absolutePath(job.root, files[i] as string), 0));
        }
      } finally {
        scanner.release();
      }
      await new Promise((resolve) => setImmediate(resolve)); // lets the workers' answers in
      continue;
    }
    if (queue.isDrained() && !workers.busy()) return;
    await nextEvent();
  }
}

/** Counts of a known list of files (the pool fed at once). */
export function countInPool(job: ScanJob, matcher: LineMatcher, options: PoolOptions = {}) {
  const pool = createScanPool(job, matcher, options);
  for (const rel of job.files) pool.add(rel);
  return pool.finish();
}

interface WorkerEvents {
  onReady(worker: Worker): void;
  onCounts(worker: Worker, start: number, counts: Int32Array): void;
  onFailure(worker: Worker): void;
}

/** Searches started in this process: each one's batches and answers carry its number. */
let jobsStarted = 0;

/** A worker a search holds: released when the search ends, kept idle or ended. */
interface WorkerLease {
  worker: Worker;
  release(keep: boolean): void;
}

function leaseWorker(url: URL, job: ScanJobMessage, pool: WorkerEvents): WorkerLease {
  const workerData: ScanWorkerData = { gantryScanWorker: true };
  const { worker, idle } = takeOrStartWorker(url, workerData);
  const onMessage = (message: ScanAnswer) => {
    if (message.type === "ready") pool.onReady(worker);
    else if (message.job === job.job) pool.onCounts(worker, message.start, message.counts);
  };
  const onFailure = () => pool.onFailure(worker);
  worker.on("message", onMessage).on("error", onFailure).on("messageerror", onFailure).on("exit", onFailure);
  worker.postMessage(job);
  // a kept worker booted long ago: it is ready once the caller holds its lease
  if (idle) setImmediate(() => pool.onReady(worker));
  return {
    worker,
    release(keep) {
      worker
        .off("message", onMessage)
        .off("error", onFailure)
        .off("messageerror", onFailure)
        .off("exit", onFailure);
      if (keep) keepIdleWorker(url, worker);
      else void worker.terminate();
    },
  };
}

/** Workers kept idle for the next search of this script (the default one when none is named). */
export function idleScanWorkers(url: URL | undefined = defaultWorkerUrl()): number {
  return url === undefined ? 0 : idleWorkerCount(url);
}
