import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { MessageChannel, type MessagePort, receiveMessageOnPort, type Worker } from "node:worker_threads";
import type { FolderListing } from "./folder-listing.js";
import { idleWorkerCount, keepIdleWorker, takeOrStartWorker } from "./idle-workers.js";
import type { ListRequest, WalkAnswer, WalkStartMessage, WalkWorkerData } from "./walk-worker.js";

export interface WalkThreadOptions {
  /** Worker threads that list folders beside the calling thread (default: one per further CPU, at most 3). */
  workers?: number;
  /** The compiled worker script (default: walk-worker.js next to this module). */
  workerUrl?: URL;
  /** Folders per batch handed to a worker (default 32). */
  batchFolders?: number;
  /** Whether the calling thread keeps a folder for itself when it hands out batches (default true). */
  keepOne?: boolean;
}

const BATCH_FOLDERS = 32;
/** Batches a worker holds at once, so it has the next while the caller takes in the last. */
const BATCHES_AHEAD = 2;

/**
 * The worker script, when this module runs compiled (dist/ or the bundle); under a TypeScript loader
 * (tests) there is none and the calling thread lists alone.
 */
export function defaultWalkWorkerUrl(): URL | undefined {
  const url = new URL("./walk-worker.js", import.meta.url);
  return existsSync(fileURLToPath(url)) ? url : undefined;
}

/** Walk workers kept idle for the next walk (of the default script when none is named). */
export function idleWalkWorkers(url: URL | undefined = defaultWalkWorkerUrl()): number {
  return url === undefined ? 0 : idleWorkerCount(url);
}

/** A folder the walk has found and not yet listed. */
export interface FolderToList {
  abs: string;
}

/**
 * Worker threads that list folders for a walk: they take batches of its pending folders, and the
 * calling thread takes their listings in (and applies every rule to them) between folders of its own.
 * Only listings travel; which entries the walk keeps is decided on the calling thread alone.
 */
export interface ListingHelpers<F extends FolderToList> {
  /** Takes in the listings that have arrived (each passed to onListed), then hands out batches. */
  pump(): void;
  /** Whether a worker still holds folders of this walk. */
  waiting(): boolean;
  /** Resolves when an answer arrives, a worker fails or the signal aborts. */
  nextEvent(signal?: AbortSignal): Promise<void>;
  /** Workers still working for the walk (a failed one is not). */
  alive(): number;
  /** Workers that listed at least one batch. */
  helped(): number;
  /** Gives the workers back: idle for the next walk once they hold nothing. */
  close(): void;
}

interface Helper<F> {
  worker: Worker;
  port: MessagePort;
  ready: boolean;
  listed: boolean;
  out: Map<number, F[]>;
  /** Answers the event loop delivered; taken in by pump, on the walk's own stack. */
  inbox: WalkAnswer[];
  detach(): void;
}

/**
 * Starts the workers (idle ones first); undefined when none can be had (no compiled script, one CPU,
 * or no thread to be had), and the calling thread lists alone.
 */
export function startListingHelpers<F extends FolderToList>(
  pending: F[],
  onListed: (folder: F, listing: FolderListing | undefined) => void,
  options: WalkThreadOptions = {},
): ListingHelpers<F> | undefined {
  const url = options.workerUrl ?? defaultWalkWorkerUrl();
  const count = options.workers ?? Math.min(3, availableParallelism() - 1);
  if (url === undefined || count <= 0) return undefined;
  const batchFolders = Math.max(1, options.batchFolders ?? BATCH_FOLDERS);
  const kept = options.keepOne === false ? 0 : 1;
  const helpers = new Set<Helper<F>>();
  let batches = 0;
  let helpedCount = 0;
  let wake: (() => void) | undefined;
  const wakeUp = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };

  const answer = (helper: Helper<F>, message: WalkAnswer) => {
    if (message.type === "ready") {
      helper.ready = true;
    } else {
      const folders = helper.out.get(message.batch);
      if (folders === undefined) return; // a failed worker's batch, already given back
      helper.out.delete(message.batch);
      if (!helper.listed) helpedCount++;
      helper.listed = true;
      folders.forEach((folder, i) => {
        const listing = message.listings[i];
        onListed(folder, listing === null || listing === undefined ? undefined : splitListing(listing));
      });
    }
  };
  const fail = (helper: Helper<F>) => {
    if (!helpers.delete(helper)) return;
    helper.detach();
    for (const folders of helper.out.values()) pending.push(...folders); // the caller lists them
    helper.out.clear();
    helper.port.close();
    void helper.worker.terminate();
    wakeUp();
  };

  for (let i = 0; i < count; i++) {
    let worker: Worker;
    try {
      worker = takeOrStartWorker(url, { gantryWalkWorker: true } satisfies WalkWorkerData).worker;
    } catch {
      break; // no thread to be had (resource limits)
    }
    const { port1, port2 } = new MessageChannel();
    const helper: Helper<F> = {
      worker,
      port: port1,
      ready: false,
      listed: false,
      out: new Map(),
      inbox: [],
      detach() {},
    };
    // never taken in here: onListed visits entries, and what it throws belongs to the walk, not the loop
    const onMessage = (message: WalkAnswer) => {
      helper.inbox.push(message);
      wakeUp();
    };
    const onFailure = () => fail(helper);
    port1.on("message", onMessage).on("messageerror", onFailure);
    worker.on("error", onFailure).on("exit", onFailure);
    helper.detach = () => {
      port1.off("message", onMessage).off("messageerror", onFailure);
      worker.off("error", onFailure).off("exit", onFailure);
    };
    worker.postMessage({ type: "walk", port: port2 } satisfies WalkStartMessage, [port2]);
    helpers.add(helper);
  }
  if (helpers.size === 0) return undefined;

  return {
    pump() {
      for (const helper of helpers) {
        // one at a time: what a visit throws leaves the answers after it for release to account for
        for (let message = helper.inbox.shift(); message; message = helper.inbox.shift())
          answer(helper, message);
        for (let got = receiveMessageOnPort(helper.port); got; got = receiveMessageOnPort(helper.port)) {
          answer(helper, got.message as WalkAnswer);
        }
      }
      for (const helper of helpers) {
        // the calling thread keeps one folder at least, so it never only waits
        while (helper.ready && helper.out.size < BATCHES_AHEAD && pending.length > kept) {
          const folders = pending.splice(0, Math.min(batchFolders, pending.length - kept));
          const batch = ++batches;
          helper.out.set(batch, folders);
          const request: ListRequest = { type: "list", batch, folders: folders.map((folder) => folder.abs) };
          helper.port.postMessage(request);
        }
      }
    },
    waiting: () => [...helpers].some((helper) => helper.out.size > 0),
    nextEvent: (signal) =>
      new Promise<void>((resolve) => {
        if (signal?.aborted) return resolve();
        const done = () => {
          signal?.removeEventListener("abort", done);
          resolve();
        };
        wake = done;
        signal?.addEventListener("abort", done, { once: true });
      }),
    alive: () => helpers.size,
    helped: () => helpedCount,
    close() {
      for (const helper of helpers) {
        helpers.delete(helper);
        release(url, helper);
      }
      wakeUp();
    },
  };
}

/**
 * A worker that holds no batch is kept idle; one still listing (the walk was aborted or failed) is
 * kept once its last answer is in, so none is ended while it holds a descriptor.
 */
function release<F>(url: URL, helper: Helper<F>): void {
  helper.detach();
  const answered = (message: WalkAnswer) => {
    if (message.type === "listed") helper.out.delete(message.batch);
  };
  helper.inbox.forEach(answered);
  for (let got = receiveMessageOnPort(helper.port); got; got = receiveMessageOnPort(helper.port)) {
    answered(got.message as WalkAnswer);
  }
  const keep = () => {
    helper.port.close();
    keepIdleWorker(url, helper.worker);
  };
  if (helper.out.size === 0) return keep();
  const drop = () => {
    helper.port.close();
    void helper.worker.terminate();
  };
  helper.port.on("message", (message: WalkAnswer) => {
    answered(message);
    if (helper.out.size > 0) return;
    helper.worker.off("error", drop).off("exit", drop);
    keep();
  });
  helper.port.unref(); // waiting for the last answers keeps no process alive
  helper.worker.on("error", drop).on("exit", drop);
}

function splitListing(joined: string): FolderListing {
  return joined === "" ? [] : joined.split("\0");
}
