import { isIP } from "node:net";
import type { Readable } from "node:stream";
import { isIpAddress, normalizeHost } from "./address.js";
import { type HostResolver, type ResolvedAddress, requestPinned, systemResolver } from "./pinned-request.js";

/** Redirects read_url_content follows itself, all on the host the permission rules already judged. */
export const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface FetchedPage {
  kind: "page";
  requestedUrl: string;
  finalUrl: string;
  status: number;
  statusText: string;
  contentType: string;
  body: Uint8Array;
  /** The body went past maxBytes and only its head was kept. */
  truncated: boolean;
  /** Same-host redirects followed on the way. */
  redirects: number;
}

/** A redirect to another host (or off https): not followed, so the policy judges the new URL first. */
export interface CrossHostRedirect {
  kind: "redirect";
  fromUrl: string;
  location: string;
  status: number;
  redirects: number;
}

export type FetchFailure = {
  kind: "failure";
  code: "timeout" | "aborted" | "unavailable" | "execution_failed" | "denied";
  message: string;
};

export type FetchOutcome = FetchedPage | CrossHostRedirect | FetchFailure;

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
}

/** Judges where a fetch may connect: asked on every hop, before the connection, with the addresses it will use. */
export interface AddressGuard {
  /** Why `url` may not be fetched from these addresses (a refusal for the model), or undefined when it may. */
  refuse(url: URL, addresses: readonly ResolvedAddress[]): string | undefined;
  /** How names become addresses (default: the system resolver). */
  resolve?: HostResolver;
}

const REQUEST_HEADERS = {
  accept: "text/html, application/xhtml+xml, text/markdown, text/plain, application/json, */*;q=0.5",
  "user-agent": "Gantry read_url_content",
};

/**
 * GETs `url`, following at most MAX_REDIRECTS redirects that stay on its host, and reads at most
 * `maxBytes` of the body. Every hop resolves its host once, lets `guard` judge those addresses and
 * connects to exactly them. One deadline covers redirects and the body; `signal` aborts it all.
 */
export async function fetchPage(
  url: URL,
  limits: FetchLimits,
  signal: AbortSignal,
  guard: AddressGuard,
): Promise<FetchOutcome> {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const combined = AbortSignal.any([signal, deadline]);
  try {
    let current = url;
    for (let redirects = 0; ; redirects++) {
      const addresses = await addressesOf(current, guard.resolve ?? systemResolver);
      const refusal = guard.refuse(current, addresses);
      if (refusal !== undefined) return failure("denied", refusal);
      const response = await requestPinned(current, addresses, REQUEST_HEADERS, combined);
      if (!REDIRECT_STATUSES.has(response.status)) {
        const { body, truncated } = await readCapped(response.body, limits.maxBytes);
        return {
          kind: "page",
          requestedUrl: url.href,
          finalUrl: current.href,
          status: response.status,
          statusText: response.statusText,
          contentType: headerText(response.headers["content-type"]),
          body,
          truncated,
          redirects,
        };
      }
      response.body.destroy();
      const location = headerText(response.headers.location);
      if (!location) {
        return failure("execution_failed", `${current.href} answered ${response.status} without a Location.`);
      }
      const target = resolveLocation(location, current);
      if (!target || !staysOnHost(current, target)) {
        const shown = target?.href ?? location;
        return {
          kind: "redirect",
          fromUrl: current.href,
          location: shown,
          status: response.status,
          redirects,
        };
      }
      if (redirects === MAX_REDIRECTS) {
        return failure("execution_failed", `${url.href} redirected more than ${MAX_REDIRECTS} times.`);
      }
      current = target;
    }
  } catch (cause) {
    if (signal.aborted) return failure("aborted", `fetching ${url.href} was aborted.`);
    if (deadline.aborted) {
      return failure(
        "timeout",
        `fetching ${url.href} took longer than ${limits.timeoutMs} ms and was stopped.`,
      );
    }
    return failure("unavailable", `cannot fetch ${url.href}: ${describeFetchError(cause)}`);
  }
}

/** The addresses a URL's host stands for: an address literal as it is, a name through the resolver. */
async function addressesOf(url: URL, resolve: HostResolver): Promise<ResolvedAddress[]> {
  const host = normalizeHost(url.hostname);
  if (isIpAddress(host)) return [{ address: host, family: isIP(host) }];
  return resolve(host);
}

function headerText(value: string | string[] | undefined): string {
  return Array.isArray(value) ? (value[0] ?? "") : (value ?? "");
}

/** Reads the body chunk by chunk and stops (ending the download) once past `maxBytes`. */
async function readCapped(body: Readable, maxBytes: number) {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size + chunk.byteLength > maxBytes) {
      chunks.push(chunk.subarray(0, maxBytes - size));
      size = maxBytes;
      truncated = true;
      body.destroy();
      break;
    }
    chunks.push(chunk);
    size += chunk.byteLength;
  }
  return { body: concatChunks(chunks, size), truncated };
}

function concatChunks(chunks: Uint8Array[], size: number): Uint8Array {
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

function resolveLocation(location: string, base: URL): URL | undefined {
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
}

/** Same host and port, or the same host moved from http to https on the default port. */
export function staysOnHost(from: URL, to: URL): boolean {
  if (from.hostname.toLowerCase() !== to.hostname.toLowerCase()) return false;
  if (from.protocol === to.protocol) return from.port === to.port;
  return from.protocol === "http:" && to.protocol === "https:" && from.port === "" && to.port === "";
}

function describeFetchError(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner = (cause as Error & { cause?: unknown }).cause;
  const error = inner instanceof Error ? inner : cause;
  const code = (error as NodeJS.ErrnoException).code;
  return code && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
}

function failure(code: FetchFailure["code"], message: string): FetchFailure {
  return { kind: "failure", code, message };
}
