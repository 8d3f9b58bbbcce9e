/**
 * Mistakes in a model endpoint's URL, named with the fix (issue 18): a base URL without a scheme, an
 * HTML page or a plain JSON answer where the provider's stream should be, a 404. These are permanent:
 * the loop does not retry them.
 */

/** A response that cannot be the provider's API: the wrong URL, not a passing failure. */
export class EndpointError extends Error {
  override readonly name = "EndpointError";
}

/** The request paths the providers append to a base URL. */
const API_SUFFIXES = [/\/chat\/completions$/, /\/messages$/, /\/models\/[^/]+:\w+$/, /\/responses$/];

/** The base URL a request URL was made from (the request URL without the provider's own path). */
export function baseUrlOf(requestUrl: string): string {
  const [withoutQuery = requestUrl] = requestUrl.split("?");
  for (const suffix of API_SUFFIXES) if (suffix.test(withoutQuery)) return withoutQuery.replace(suffix, "");
  return withoutQuery;
}

/** ` The base URL probably needs "/v1" at its end: --base-url http://host/v1` when that looks like the fix. */
export function missingVersionHint(requestUrl: string): string {
  const base = baseUrlOf(requestUrl).replace(/\/+$/, "");
  if (/\/v\d+(beta)?$/.test(base)) return "";
  const version = /:\w+$/.test(requestUrl.split("?")[0] ?? "") ? "/v1beta" : "/v1";
  return ` The base URL probably needs "${version}" at its end: --base-url ${base}${version} (Ollama, llama.cpp, LM Studio and vLLM serve their OpenAI-compatible API under /v1).`;
}

/** Checks a base URL before any request: http or https, with a host. Undefined when it is fine. */
export function baseUrlProblem(baseUrl: string): string | undefined {
  let parsed: URL | undefined;
  try {
    parsed = new URL(baseUrl);
  } catch {
    parsed = undefined;
  }
  if (parsed && (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.host !== "")
    return undefined;
  const guess = `http://${baseUrl.replace(/^[a-z]+:\/\//i, "")}`;
  return `the base URL "${baseUrl}" is not an http:// or https:// URL: use --base-url ${guess} (or "baseUrl": "${guess}" in .agents/settings.json)`;
}

/**
 * Wraps fetch so that an answer that is not the provider's API (an HTML page, JSON where a stream was
 * asked for) fails at once with the URL and the likely fix, instead of as "the stream ended without a
 * finish reason" after five retries.
 */
export function endpointCheckingFetch(inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const type = response.headers.get("content-type") ?? "";
    if (/text\/html/i.test(type)) {
      const text = await response.text().catch(() => "");
      const title = /<title>([^<]{1,120})<\/title>/i.exec(text)?.[1]?.trim();
      throw new EndpointError(
        `the model endpoint ${url} answered with an HTML page (HTTP ${response.status}${title ? `, "${title}"` : ""}), not the provider's API.${missingVersionHint(url)}`,
      );
    }
    // the content type first: the request body, searched by wantsStream, grows with the conversation
    if (response.ok && /application\/json/i.test(type) && wantsStream(init)) {
      const text = await response.text().catch(() => "");
      throw new EndpointError(
        `the model endpoint ${url} answered with JSON instead of a stream (HTTP ${response.status}): ${text.slice(0, 300)}.${missingVersionHint(url)}`,
      );
    }
    return response;
  };
}

function wantsStream(init: RequestInit | undefined): boolean {
  return typeof init?.body === "string" && /"stream"\s*:\s*true/.test(init.body);
}
