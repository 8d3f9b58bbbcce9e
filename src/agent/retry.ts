import type { ModelErrorInfo } from "./events.js";

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 1_000, maxDelayMs: 30_000 };

/** Rate limits, server errors and dropped connections pass; auth and bad requests never do. */
export function isRetryable(error: ModelErrorInfo): boolean {
  return error.kind === "rate_limit" || error.kind === "server" || error.kind === "network";
}

/**
 * The wait before attempt `attempt + 1` (attempt counts from 1), or undefined when the loop
 * should stop: exponential backoff with jitter, or the provider's Retry-After when it asked.
 */
export function retryDelay(error: ModelErrorInfo, attempt: number, policy: RetryPolicy): number | undefined {
  if (!isRetryable(error) || attempt >= policy.maxAttempts) return undefined;
  if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, policy.maxDelayMs);
  const exponential = policy.baseDelayMs * 2 ** (attempt - 1);
  const jitter = 0.8 + Math.random() * 0.4;
  return Math.min(Math.round(exponential * jitter), policy.maxDelayMs);
}

/** Resolves after `ms`, or rejects at once when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
