import { isIP } from "node:net";
import { isIpAddress, isLoopbackHost, normalizeHost } from "../address.js";
import type { AddressGuard } from "../fetch-page.js";
import type { SearchHit } from "./results.js";

/**
 * Results read_url_content would refuse to fetch, judged by the same guard (web.allowPrivateNetwork,
 * WebFetch(domain:…) rules and grants): results on this machine, private networks or metadata addresses,
 * as far as the URL itself says (an address, or a localhost name; other names are judged when fetched,
 * on what they resolve to), and results that are not http(s) at all. A search cannot hand the model a
 * link into the user's network that a fetch could not reach anyway.
 */
export function withoutUnreachableHits(
  hits: readonly SearchHit[],
  guard: AddressGuard,
): { hits: SearchHit[]; dropped: number } {
  const kept = hits.filter((hit) => reachable(hit.url, guard));
  return { hits: kept, dropped: hits.length - kept.length };
}

function reachable(text: string, guard: AddressGuard): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  const host = normalizeHost(url.hostname);
  const literal = isIpAddress(host)
    ? [{ address: host, family: isIP(host) }]
    : isLoopbackHost(host)
      ? [{ address: "127.0.0.1", family: 4 }]
      : undefined;
  return literal === undefined || guard.refuse(url, literal) === undefined;
}
