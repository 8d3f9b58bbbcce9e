import { parentPort, workerData } from "node:worker_threads";
import { absolutePath, createFileScanner, scanCode } from "./file-scanner.js";
import { compileMatcher } from "./matcher.js";

/** What a scan worker is started with (see scan-pool.ts): it is told each search's query in a job. */
export interface ScanWorkerData {
  gantryScanWorker: true;
}

/** One search a worker scans for: its batches follow, tagged with the same number. */
export interface ScanJobMessage {
  type: "job";
  job: number;
  root: string;
  query: string;
  isRegex: boolean;
  caseInsensitive: boolean;
  maxFileBytes: number;
}

/** A batch to scan: workspace-relative paths; the answer is one scan code per path, in order. */
export interface ScanBatch {
  type: "batch";
  job: number;
  start: number;
  files: string[];
}

/** A worker's answer: `ready` once booted, then the counts of each batch. */
export type ScanAnswer =
  | { type: "ready" }
  | { type: "counts"; job: number; start: number; counts: Int32Array };

const data = workerData as ScanWorkerData | undefined;
if (parentPort && data?.gantryScanWorker === true) {
  const port = parentPort;
  let current: { job: ScanJobMessage; scanner: ReturnType<typeof createFileScanner> } | undefined;
  port.on("message", (message: ScanJobMessage | ScanBatch) => {
    if (message.type === "job") {
      const compiled = compileMatcher(message.query, message.isRegex, message.caseInsensitive);
      if (!compiled.ok) throw new Error(compiled.message);
      current = { job: message, scanner: createFileScanner(compiled.matcher, message.maxFileBytes) };
      return;
    }
    if (current?.job.job !== message.job) throw new Error(`scan batch of job ${message.job} before its job`);
    const { job, scanner } = current;
    const counts = new Int32Array(message.files.length);
    for (let i = 0; i < message.files.length; i++) {
      counts[i] = scanCode(scanner.scan(absolutePath(job.root, message.files[i] as string), 0));
    }
    // descriptors belong to the whole process: none may outlive the batch (a worker can be ended any time)
    scanner.release();
    const answer: ScanAnswer = { type: "counts", job: message.job, start: message.start, counts };
    port.postMessage(answer, [counts.buffer]);
  });
  port.postMessage({ type: "ready" } satisfies ScanAnswer);
}
