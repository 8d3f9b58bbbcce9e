import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { listFolder } from "./folder-listing.js";

/** What a walk worker is started with (see walk-threads.ts). */
export interface WalkWorkerData {
  gantryWalkWorker: true;
}

/** A walk's channel: the worker answers on it until the walk closes it. */
export interface WalkStartMessage {
  type: "walk";
  port: MessagePort;
}

/** Folders to list (absolute paths). */
export interface ListRequest {
  type: "list";
  batch: number;
  folders: string[];
}

/**
 * `ready` once the worker holds the walk's channel, then one answer per batch: each folder's listing
 * (folder-listing.ts) with its names joined by NUL, which no name holds; null for a folder it could not
 * list as the folder the walk found.
 */
export type WalkAnswer = { type: "ready" } | { type: "listed"; batch: number; listings: (string | null)[] };

const data = workerData as WalkWorkerData | undefined;
if (parentPort && data?.gantryWalkWorker === true) {
  parentPort.on("message", (message: WalkStartMessage) => {
    const port = message.port;
    port.on("message", (request: ListRequest) => {
      // every descriptor is closed before the answer (a worker can be ended any time after)
      const listings = request.folders.map((abs) => listFolder(abs)?.join("\0") ?? null);
      port.postMessage({ type: "listed", batch: request.batch, listings } satisfies WalkAnswer);
    });
    port.postMessage({ type: "ready" } satisfies WalkAnswer);
  });
}
