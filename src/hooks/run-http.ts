import { readBounded } from "../net/read-bounded.js";

export interface HttpHookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Total deadline: connecting, the status and the whole body. */
  timeoutMs: number;
  maxBodyBytes: number;
  signal?: AbortSignal;
}

export type HttpHookOutcome = { ok: true; status: number; body: string } | { ok: false; failure: string };

/** POSTs one event; redirects are never followed (a 307 would re-send the payload elsewhere). */
export async function runHttpHook(request: HttpHookRequest): Promise<HttpHookOutcome> {
  const deadline = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal ? AbortSignal.any([deadline, request.signal]) : deadline;
  try {
    const response = await fetch(request.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...request.headers },
      body: request.body,
      redirect: "manual",
      signal,
    });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      const location = response.headers.get("location");
      return {
        ok: false,
        failure: `HTTP ${response.status} redirect${location ? ` to ${location}` : ""} not followed`,
      };
    }
    const body = await readBounded(response, request.maxBodyBytes);
    if (!body.ok) return body;
    if (response.status < 200 || response.status > 299) {
      return { ok: false, failure: `HTTP ${response.status}${body.text ? `: ${firstLine(body.text)}` : ""}` };
    }
    return { ok: true, status: response.status, body: body.text };
  } catch (cause) {
    if (deadline.aborted) return { ok: false, failure: `timed out after ${request.timeoutMs / 1000} s` };
    if (request.signal?.aborted) return { ok: false, failure: "aborted" };
    const reason = (cause as Error & { cause?: Error }).cause?.message ?? (cause as Error).message;
    return { ok: false, failure: `request failed: ${reason}` };
  }
}

/** `${NAME}` (and `$NAME`) in a header value → the environment variable; unset names are reported. */
export function expandHeaderValues(
  headers: Record<string, string>,
  env: NodeJS.ProcessEnv,
  allowed?: readonly string[],
): { headers: Record<string, string>; missing: string[] } {
  const missing: string[] = [];
  const expanded: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    expanded[key] = value.replace(
      /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
      (_m, a, b) => {
        const name = (a ?? b) as string;
        const found = allowed && !allowed.includes(name) ? undefined : env[name];
        if (found === undefined) missing.push(name);
        return found ?? "";
      },
    );
  }
  return { headers: expanded, missing };
}

function firstLine(text: string): string {
  return text.split("\n", 1)[0]?.slice(0, 200) ?? "";
}
