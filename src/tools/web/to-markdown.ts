import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { PageMarkdown } from "./html-markdown.js";
import type { MarkdownWorkerAnswer, MarkdownWorkerData } from "./markdown-worker.js";
import { MAX_CONVERTIBLE_DEPTH, nestingDepth } from "./nesting-depth.js";

export type MarkdownOutcome =
  | { ok: true; page: PageMarkdown }
  | { ok: false; reason: "aborted" | "too_deep" | "failed"; message: string };

/**
 * The compiled worker script next to this module (dist/ or the bundle); undefined under a TypeScript
 * loader, where the conversion runs on the calling thread instead.
 */
export function markdownWorkerUrl(): URL | undefined {
  const url = new URL("./markdown-worker.js", import.meta.url);
  return existsSync(fileURLToPath(url)) ? url : undefined;
}

/**
 * HTML → Markdown on a worker thread: a large page takes seconds to convert, and that must neither
 * freeze the session (other tools, the terminal, Ctrl-C) nor outlast the call's time limit. When
 * `signal` fires, the worker is ended wherever it is.
 */
export async function htmlToMarkdown(
  html: string,
  baseUrl: string,
  signal: AbortSignal,
  workerUrl: URL | undefined = markdownWorkerUrl(),
): Promise<MarkdownOutcome> {
  if (signal.aborted) return { ok: false, reason: "aborted", message: "stopped before it started" };
  const depth = nestingDepth(html);
  if (depth > MAX_CONVERTIBLE_DEPTH)
    return {
      ok: false,
      reason: "too_deep",
      message: `${depth.toLocaleString("en-US")} levels; at most ${MAX_CONVERTIBLE_DEPTH.toLocaleString("en-US")} can be converted`,
    };
  if (workerUrl === undefined) return convertHere(html, baseUrl);
  const { Worker } = process.getBuiltinModule("node:worker_threads");
  const worker = new Worker(workerUrl, {
    workerData: { gantryMarkdownWorker: true, html, baseUrl } satisfies MarkdownWorkerData,
  });
  try {
    return await new Promise<MarkdownOutcome>((resolve) => {
      const onAbort = () => resolve({ ok: false, reason: "aborted", message: "stopped" });
      signal.addEventListener("abort", onAbort, { once: true });
      worker.once("message", (answer: MarkdownWorkerAnswer) => {
        signal.removeEventListener("abort", onAbort);
        resolve(answerOutcome(answer));
      });
      worker.once("error", (cause) => {
        signal.removeEventListener("abort", onAbort);
        resolve({ ok: false, reason: "failed", message: cause.message });
      });
      worker.once("exit", (code) => {
        signal.removeEventListener("abort", onAbort);
        resolve({ ok: false, reason: "failed", message: `the converter stopped (exit code ${code})` });
      });
    });
  } finally {
    await worker.terminate();
  }
}

async function convertHere(html: string, baseUrl: string): Promise<MarkdownOutcome> {
  const { convertHtml } = await import("./html-markdown.js");
  try {
    return { ok: true, page: await convertHtml(html, baseUrl) };
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    return { ok: false, reason: cause instanceof RangeError ? "too_deep" : "failed", message };
  }
}

function answerOutcome(answer: MarkdownWorkerAnswer): MarkdownOutcome {
  if (answer.ok) return { ok: true, page: { markdown: answer.markdown, title: answer.title } };
  return { ok: false, reason: answer.tooDeep ? "too_deep" : "failed", message: answer.message };
}
