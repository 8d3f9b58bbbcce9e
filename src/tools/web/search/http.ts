import { readBounded } from "../../../net/read-bounded.js";
import type { SearchOutcome } from "./results.js";

/** A search API's answer is JSON of a few KB; more than this is not an answer. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
const EXCERPT_CHARS = 300;

export interface JsonCall {
  /** For messages: "Brave Search". */
  service: string;
  url: URL;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
  signal: AbortSignal;
  /** Says which setting or variable fixes a refused key (401/403). */
  keyHint?: string;
}

export type JsonAnswer = { ok: true; value: unknown } | Extract<SearchOutcome, { ok: false }>;

/**
 * One request to a search API and its JSON answer, or a tool error a model can act on: rate limits
 * (with the wait the service asks for), refused keys, server errors, timeouts, redirects (never followed:
 * the endpoint is the user's setting, so the setting should name the final address).
 */
export async function requestJson(call: JsonCall): Promise<JsonAnswer> {
  const deadline = AbortSignal.timeout(call.timeoutMs);
  const signal = AbortSignal.any([call.signal, deadline]);
  let response: Response;
  let text: string;
  try {
    response = await fetch(call.url, {
      method: call.method ?? "GET",
      redirect: "manual",
      signal,
      headers: {
        accept: "application/json",
        "user-agent": "Gantry search_web",
        ...(call.body !== undefined ? { "content-type": "application/json" } : {}),
        ...call.headers,
      },
      ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
    });
    const body = await readBounded(response, MAX_ANSWER_BYTES);
    if (!body.ok)
      return failure(
        "execution_failed",
        `${call.service} sent an answer too large to be one: ${body.failure}.`,
      );
    text = body.text;
  } catch (cause) {
    if (call.signal.aborted) return failure("aborted", `The ${call.service} search was aborted.`);
    if (deadline.aborted)
      return failure(
        "timeout",
        `${call.service} did not answer within ${call.timeoutMs} ms (web.timeoutMs); try again later.`,
      );
    return failure("unavailable", `Cannot reach ${call.service} at ${call.url.origin}: ${describe(cause)}.`);
  }
  if (response.status >= 300 && response.status < 400) {
    const location = response.headers.get("location") ?? "(no Location)";
    return failure(
      "unavailable",
      `${call.service} at ${call.url.origin} answered a redirect (${response.status}) to ${location}, which is not followed; set web.search.baseUrl to the final address.`,
    );
  }
  if (!response.ok) return statusFailure(call, response, text);
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return failure(
      "execution_failed",
      `${call.service} answered ${response.status} with something that is not JSON (${response.headers.get("content-type") ?? "no content type"}): ${excerpt(text)}`,
    );
  }
}

function statusFailure(call: JsonCall, response: Response, text: string): JsonAnswer {
  const status = response.status;
  const detail = errorDetail(text);
  const metadata = { status };
  if (status === 429) {
    const wait = retryAfterSeconds(response.headers);
    const when =
      wait !== undefined ? ` Wait ${wait} s before searching again.` : " Wait before searching again.";
    return failure("unavailable", `${call.service} rate limit reached (HTTP 429)${ending(detail)}${when}`, {
      ...metadata,
      ...(wait !== undefined ? { retryAfterSeconds: wait } : {}),
    });
  }
  if (status === 401 || status === 403) {
    return failure(
      "denied",
      `${call.service} refused the request (HTTP ${status})${ending(detail)}${call.keyHint ? ` ${call.keyHint}` : ""}`,
      metadata,
    );
  }
  const code = status >= 500 || status === 408 ? "unavailable" : "execution_failed";
  return failure(code, `${call.service} answered HTTP ${status}${ending(detail)}`, metadata);
}

/** `: detail.` or `.`, with one full stop whatever the detail ends with. */
function ending(detail: string): string {
  if (!detail) return ".";
  return /[.!?]$/.test(detail) ? `: ${detail}` : `: ${detail}.`;
}

/** The message inside an API's error body (Brave's `error.detail`, Tavily's `detail.error`, …), or its start. */
function errorDetail(text: string): string {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const found = [body.error, body.detail, body.message].map(messageOf).find((m) => m !== undefined);
    if (found) return found;
  } catch {
    // not JSON: shown as it is below
  }
  return excerpt(text.replace(/<[^>]*>/g, " "));
}

function messageOf(value: unknown): string | undefined {
  if (typeof value === "string" && value.trim() !== "") return value.trim();
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown>;
  return [record.detail, record.message, record.error].map(messageOf).find((m) => m !== undefined);
}

/** `Retry-After` in seconds or as a date, else the reset of Brave's rate-limit window. */
function retryAfterSeconds(headers: Headers): number | undefined {
  const retry = headers.get("retry-after");
  if (retry !== null) {
    const seconds = Number(retry);
    if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
    const date = Date.parse(retry);
    if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - Date.now()) / 1000));
  }
  // Brave: "1, 1000" = seconds until the per-second and the monthly window reset; the first is what binds now
  const reset = headers.get("x-ratelimit-reset")?.split(",")[0]?.trim();
  const seconds = reset === undefined ? Number.NaN : Number(reset);
  return Number.isFinite(seconds) ? Math.max(0, Math.ceil(seconds)) : undefined;
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat;
}

function describe(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner = (cause as Error & { cause?: unknown }).cause;
  const error = inner instanceof Error ? inner : cause;
  const code = (error as NodeJS.ErrnoException).code;
  return code && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
}

export function failure(
  code: Extract<SearchOutcome, { ok: false }>["code"],
  message: string,
  metadata?: Record<string, unknown>,
): Extract<SearchOutcome, { ok: false }> {
  return { ok: false, code, message, ...(metadata ? { metadata } : {}) };
}
