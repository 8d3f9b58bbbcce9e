import type { McpServerConfig } from "./config.js";
import type { McpSdk } from "./load-sdk.js";

/**
 * Why a server did not start, in words that name the fix: the SDK's errors read by their codes and
 * HTTP statuses (a timeout, a missing command, an address nobody answers at, refused credentials).
 */
export async function startError(sdk: McpSdk, cause: unknown, config: McpServerConfig): Promise<string> {
  if (cause instanceof sdk.SdkError && cause.code === sdk.SdkErrorCode.RequestTimeout)
    return `no answer within ${config.startupTimeoutMs} ms (set "startupTimeout" for the server to wait longer)`;
  const text = messageOf(cause);
  if (/needs you to sign in/.test(text)) return text;
  const transport = config.transport;
  if (transport.kind === "stdio") {
    if ((cause as NodeJS.ErrnoException).code === "ENOENT")
      return `"${transport.command}" was not found (is it installed and on the PATH?)`;
    return text;
  }
  if (config.oauth && (cause instanceof sdk.OAuthError || cause instanceof sdk.OAuthClientFlowError))
    return explainOAuthFailure(sdk, cause, transport.url);
  // fetch refuses some ports outright (the WHATWG "bad port" list: 1, 21, 25, 6000, ...)
  if (/\bbad port\b/.test(deepestMessage(cause)))
    return `fetch refuses the port of ${transport.url} (it is on the "bad port" list browsers and Node share): serve the server on another port`;
  const network = networkCode(cause);
  if (network) return unreachable(network, transport.url, text);
  const status = httpStatus(sdk, cause);
  if (status !== undefined) return refusedWith(status, config, transport.url, transport.headers, text);
  if ((cause as Error).name === "UnauthorizedError") return refusedWith(401, config, transport.url, {}, text);
  return deepestMessage(cause);
}

/**
 * A sign-in that failed before the browser step: where the server publishes no OAuth metadata at all,
 * OAuth cannot work (the SDK guessed endpoints and was refused), and a header credential is the way.
 */
export async function explainOAuthFailure(sdk: McpSdk, cause: unknown, url: string): Promise<string> {
  const info = await sdk.discoverOAuthServerInfo(url).catch(() => undefined);
  if (info?.resourceMetadata || info?.authorizationServerMetadata)
    return `the OAuth sign-in failed: ${messageOf(cause)}`;
  const origin = new URL(url).origin;
  return `the server asks for sign-in (HTTP 401) but publishes no OAuth metadata (nothing at ${origin}/.well-known/oauth-protected-resource or /.well-known/oauth-authorization-server), so Gantry cannot sign in to it: if it takes a token or key, give it in the server's "headers" (e.g. "Authorization": "Bearer \${TOKEN}")`;
}

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** The network error under a failed fetch (Node puts it in `cause`; the SSE transport only in its message). */
function networkCode(cause: unknown): string | undefined {
  for (let at = cause, depth = 0; at && depth < 5; at = (at as Error).cause, depth++) {
    const code = (at as NodeJS.ErrnoException).code;
    if (typeof code === "string" && NETWORK_CODES.has(code)) return code;
  }
  return messageOf(cause).match(
    /\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|ETIMEDOUT|EHOSTUNREACH)\b/,
  )?.[1];
}

function unreachable(code: string, url: string, text: string): string {
  if (code === "ECONNREFUSED")
    return `nothing answers at ${url} (connection refused): is the server running, and is that its address?`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN")
    return `the host "${new URL(url).hostname}" was not found (check the url ${url} and the network)`;
  return `could not reach ${url} (${code}: ${text}); check the url and the network`;
}

/** The HTTP status of a refused request: the SDK's SdkHttpError has `status`, the SSE transport's error `code`. */
function httpStatus(sdk: McpSdk, cause: unknown): number | undefined {
  if (cause instanceof sdk.SdkHttpError) return cause.status;
  const code = (cause as { code?: unknown } | undefined)?.code;
  return typeof code === "number" && code >= 400 && code < 600 ? code : undefined;
}

function refusedWith(
  status: number,
  config: McpServerConfig,
  url: string,
  headers: Record<string, string>,
  text: string,
): string {
  const names = Object.keys(headers).map((name) => `"${name}"`);
  const inHeaders = names.length > 0 ? `in its ${names.join(", ")} header${names.length > 1 ? "s" : ""}` : "";
  if (status === 401) {
    if (config.oauth)
      return `the server refused the sign-in (HTTP 401); sign in again with "gantry mcp login ${config.name}"`;
    if (inHeaders)
      return `the server refused the credentials ${inHeaders} (HTTP 401): check the value (and the variable it names, if any)`;
    return `the server asks for credentials (HTTP 401): give them in "headers", or let Gantry sign in with OAuth (drop "oauth": {"enabled": false})`;
  }
  if (status === 403) {
    const whose = inHeaders ? `the credentials ${inHeaders}` : config.oauth ? "your sign-in" : "this client";
    return `the server denied access (HTTP 403): ${whose} do not give access to ${url} (check the account's rights or the token's scopes)`;
  }
  if (status === 404 || status === 405)
    return `no MCP endpoint at ${url} (HTTP ${status}): check the url's path (servers usually serve streamable HTTP at /mcp and SSE at /sse)`;
  return `the server answered HTTP ${status} at ${url}: ${text}`;
}

/** The message at the bottom of a cause chain, where Node's fetch says what went wrong. */
function deepestMessage(cause: unknown): string {
  const messages: string[] = [];
  for (let at = cause, depth = 0; at && depth < 5; at = (at as Error).cause, depth++)
    messages.push(messageOf(at));
  return messages.join(": ");
}

function messageOf(cause: unknown): string {
  return (cause as Error)?.message ?? String(cause);
}
