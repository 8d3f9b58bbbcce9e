import { parentPort, workerData } from "node:worker_threads";
import { convertHtml } from "./html-markdown.js";

/** What the Markdown worker is started with (see to-markdown.ts). */
export interface MarkdownWorkerData {
  gantryMarkdownWorker: true;
  html: string;
  baseUrl: string;
}

export type MarkdownWorkerAnswer =
  | { ok: true; markdown: string; title?: string }
  | { ok: false; message: string; tooDeep: boolean };

const data = workerData as MarkdownWorkerData | undefined;
if (parentPort && data?.gantryMarkdownWorker === true) {
  const port = parentPort;
  convertHtml(data.html, data.baseUrl).then(
    (page) => port.postMessage({ ok: true, ...page } satisfies MarkdownWorkerAnswer),
    (cause: unknown) =>
      port.postMessage({
        ok: false,
        message: cause instanceof Error ? cause.message : String(cause),
        tooDeep: cause instanceof RangeError,
      } satisfies MarkdownWorkerAnswer),
  );
}
