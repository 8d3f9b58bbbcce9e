import { parentPort, workerData } from "node:worker_threads";
import { absolutePath, createFileScanner, scanCode } from "./file-scanner.js";
import { compileMatcher } from "./matcher.js";

/** What a scan worker is started with (see scan-pool.ts). */
export interface ScanWorkerData {
  gantryScanWorker: true;
  root: string;
  query: string;
  isRegex: boolean;
  caseInsensitive: boolean;
  maxFileBytes: number;
}

/** A batch to scan: workspace-relative paths; the answer is one scan code per path, in order. */
export interface ScanBatch {
  start: number;
  files: string[];
}

const data = workerData as ScanWorkerData | undefined;
if (parentPort && data?.gantryScanWorker === true) {
  const port = parentPort;
  const compiled = compileMatcher(data.query, data.isRegex, data.caseInsensitive);
  if (!compiled.ok) throw new Error(compiled.message);
  const scanner = createFileScanner(compiled.matcher, data.maxFileBytes);
  port.on("message", (batch: ScanBatch) => {
    const counts = new Int32Array(batch.files.length);
    for (let i = 0; i < batch.files.length; i++) {
      counts[i] = scanCode(scanner.scan(absolutePath(data.root, batch.files[i] as string), 0));
    }
    // descriptors belong to the whole process: none may outlive the batch (a worker can be ended any time)
    scanner.release();
    port.postMessage({ type: "counts", start: batch.start, counts }, [counts.buffer]);
  });
  port.postMessage({ type: "ready" });
}
