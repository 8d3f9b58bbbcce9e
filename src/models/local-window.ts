/**
 * A local server knows its own context window better than any table (issue 18: a llama-server started
 * with `-c 8192` is not the 32,768 Gantry assumed). Each server says it in its own place; the first that
 * answers wins, in this order.
 */
export interface ServerWindow {
  tokens: number;
  /** Where it was read, for messages: `llama.cpp /props`. */
  source: string;
}

const PROBE_TIMEOUT_MS = 2_000;

type Probe = (
  root: string,
  baseUrl: string,
  modelId: string,
  signal: AbortSignal,
) => Promise<number | undefined>;

const PROBES: [source: string, probe: Probe][] = [
  [
    "llama.cpp /props",
    async (root, _base, _model, signal) => {
      const props = await getJson(`${root}/props`, signal);
      const settings = record(props?.default_generation_settings);
      return positive(settings?.n_ctx) ?? positive(props?.n_ctx);
    },
  ],
  [
    "Ollama /api/show",
    async (root, _base, model, signal) => {
      const shown = await getJson(`${root}/api/show`, signal, { model });
      // num_ctx is what the server runs with; the model's trained length is only the ceiling
      const numCtx = /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(String(shown?.parameters ?? ""))?.[1];
      if (numCtx) return positive(Number(numCtx));
      const info = record(shown?.model_info) ?? {};
      const key = Object.keys(info).find((name) => name.endsWith(".context_length"));
      return key ? positive(info[key]) : undefined;
    },
  ],
  [
    "LM Studio /api/v0/models",
    async (root, _base, model, signal) => {
      const listed = await getJson(`${root}/api/v0/models`, signal);
      const entry = modelEntry(listed, model);
      return positive(entry?.loaded_context_length) ?? positive(entry?.max_context_length);
    },
  ],
  [
    "the server's /models (max_model_len)",
    async (_root, base, model, signal) => {
      const entry = modelEntry(await getJson(`${base}/models`, signal), model);
      return positive(entry?.max_model_len);
    },
  ],
];

/** Asks an OpenAI-compatible server for its context window; undefined when none of them says. */
export async function probeServerWindow(baseUrl: string, modelId: string): Promise<ServerWindow | undefined> {
  const base = baseUrl.replace(/\/+$/, "");
  const root = base.replace(/\/v\d+$/, "");
  const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  const answers = await Promise.all(
    PROBES.map(([, probe]) => probe(root, base, modelId, signal).catch(() => undefined)),
  );
  const index = answers.findIndex((tokens) => tokens !== undefined);
  const tokens = answers[index];
  return tokens === undefined ? undefined : { tokens, source: PROBES[index]?.[0] ?? "the server" };
}

async function getJson(
  url: string,
  signal: AbortSignal,
  post?: unknown,
): Promise<Record<string, unknown> | undefined> {
  const response = await fetch(url, {
    signal,
    ...(post === undefined
      ? {}
      : { method: "POST", body: JSON.stringify(post), headers: { "content-type": "application/json" } }),
  });
  if (!response.ok) {
    await response.body?.cancel();
    return undefined;
  }
  return record(await response.json());
}

function modelEntry(
  listed: Record<string, unknown> | undefined,
  model: string,
): Record<string, unknown> | undefined {
  const data = Array.isArray(listed?.data) ? (listed.data as unknown[]) : [];
  const entries = data.map(record).filter((entry) => entry !== undefined);
  return entries.find((entry) => entry.id === model) ?? (entries.length === 1 ? entries[0] : undefined);
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function positive(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}
