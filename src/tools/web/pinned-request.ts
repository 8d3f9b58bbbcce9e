import type { LookupAddress } from "node:dns";
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import type { Readable } from "node:stream";

/** One address a host name resolved to. */
export type ResolvedAddress = LookupAddress;

/** How a host name becomes addresses: the system resolver (getaddrinfo, so /etc/hosts counts) unless a test gives its own. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: HostResolver = async (hostname) => {
  const { lookup } = process.getBuiltinModule("node:dns/promises");
  return lookup(hostname, { all: true, verbatim: true });
};

export interface PinnedResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  /** The body, decompressed (gzip, deflate, br). */
  body: Readable;
}

/**
 * GETs `url` connecting only to `addresses`, the ones the caller judged: the connection never asks the
 * resolver again, so a name that answers differently the second time (DNS rebinding) reaches nothing
 * new. Redirects are not followed. `signal` aborts the request and the body.
 */
export function requestPinned(
  url: URL,
  addresses: readonly ResolvedAddress[],
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<PinnedResponse> {
  // loaded on the first fetch, not with every start of the tools
  const client =
    url.protocol === "https:"
      ? process.getBuiltinModule("node:https")
      : process.getBuiltinModule("node:http");
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: "GET",
        headers: { ...headers, "accept-encoding": "gzip, deflate, br" },
        signal,
        lookup: pinnedLookup(addresses),
      },
      (response) => resolve(decoded(response)),
    );
    request.once("error", reject);
    request.end();
  });
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A `lookup` for net.connect that answers with the judged addresses only. */
function pinnedLookup(addresses: readonly ResolvedAddress[]) {
  return (_hostname: string, options: { all?: boolean }, callback: LookupCallback) => {
    const first = addresses[0];
    if (!first)
      return callback(Object.assign(new Error("no address to connect to"), { code: "ENOTFOUND" }), "");
    if (options.all) return callback(null, [...addresses]);
    callback(null, first.address, first.family);
  };
}

function decoded(response: IncomingMessage): PinnedResponse {
  const zlib = process.getBuiltinModule("node:zlib");
  const encoding = String(response.headers["content-encoding"] ?? "")
    .trim()
    .toLowerCase();
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? zlib.createGunzip()
      : encoding === "deflate"
        ? zlib.createInflate()
        : encoding === "br"
          ? zlib.createBrotliDecompress()
          : undefined;
  let body: Readable = response;
  if (decoder) {
    body = response.pipe(decoder);
    response.once("error", (cause) => decoder.destroy(cause));
    // the caller stops reading at its byte limit: ending the decoder ends the download too
    decoder.once("close", () => response.destroy());
  }
  return {
    status: response.statusCode ?? 0,
    statusText: response.statusMessage ?? "",
    headers: response.headers,
    body,
  };
}
