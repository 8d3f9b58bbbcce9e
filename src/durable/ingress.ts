import { randomHex } from "../session/random-ids.js";
import type { PromptInput } from "./prompt-input.js";
import type { SessionStatus, SessionSummary } from "./session-state.js";

/** The session object's and the index's names, as the ingress addresses them (services.ts defines them). */
const SESSION = "GantrySession";
const INDEX = "GantrySessions/all";

/**
 * The CLI's client of Restate's ingress: plain HTTP calls to the session object's handlers, so
 * `gantry submit`, `sessions` and `approve` load no SDK and any HTTP client can do the same.
 */
export interface IngressClient {
  submit(input: PromptInput, sessionId?: string): Promise<{ sessionId: string; invocationId: string }>;
  status(sessionId: string): Promise<SessionStatus>;
  events(
    sessionId: string,
    from: number,
  ): Promise<{ lines: unknown[]; next: number; state: SessionStatus["state"] }>;
  answer(sessionId: string, askId: string, words: string[]): Promise<unknown>;
  cancel(sessionId: string): Promise<{ cancelled: boolean; state: string }>;
  list(): Promise<SessionSummary[]>;
}

export function createIngressClient(ingress: string): IngressClient {
  const base = ingress.replace(/\/+$/, "");
  const call = async <T>(path: string, body: unknown, headers: Record<string, string> = {}): Promise<T> => {
    let response: Response;
    try {
      response = await fetch(`${base}/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body ?? null),
      });
    } catch (cause) {
      throw new Error(`cannot reach Restate's ingress at ${base}: ${(cause as Error).message}`);
    }
    const text = await response.text();
    if (!response.ok) throw new Error(`${path}: ${errorMessage(text) ?? `HTTP ${response.status}`}`);
    return (text ? JSON.parse(text) : null) as T;
  };
  const session = (id: string, handler: string) => `${SESSION}/${encodeURIComponent(id)}/${handler}`;
  return {
    async submit(input, sessionId = newSessionId()) {
      // the idempotency key makes a retried submit the same session, not a second one
      const sent = await call<{ invocationId: string }>(`${session(sessionId, "prompt")}/send`, input, {
        "idempotency-key": sessionId,
      });
      return { sessionId, invocationId: sent.invocationId };
    },
    status: (id) => call(session(id, "status"), null),
    events: (id, from) => call(session(id, "events"), { from }),
    answer: (id, askId, words) => call(session(id, "answer"), { askId, words }),
    cancel: (id) => call(session(id, "cancel"), null),
    list: () => call(`${INDEX}/list`, null),
  };
}

export function newSessionId(): string {
  const stamp = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
  return `gs-${stamp}-${randomHex(3)}`;
}

function errorMessage(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { message?: string };
    return parsed.message;
  } catch {
    return body.trim() || undefined;
  }
}
