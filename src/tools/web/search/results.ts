import type { ToolErrorCode } from "../../contract.js";

/** One result of a web search, whichever backend found it. */
export interface SearchHit {
  title: string;
  url: string;
  snippet?: string;
  /** As the backend gives it (an ISO date, "2 days ago", a page age). */
  date?: string;
}

export interface SearchRequest {
  query: string;
  /** A host name: results are restricted to it and its subdomains. */
  domain?: string;
  maxResults: number;
  signal: AbortSignal;
  timeoutMs: number;
}

export type SearchOutcome =
  | {
      ok: true;
      hits: SearchHit[];
      /** The backend's own answer or summary (Tavily's answer, the model's grounded text). */
      answer?: string;
      /** The queries the backend actually ran, when it says (a model rewrites them). */
      queries?: string[];
    }
  | { ok: false; code: ToolErrorCode; message: string; metadata?: Record<string, unknown> };

/** One search service: SearXNG, Brave, Tavily or a model provider's own search. */
export interface SearchBackend {
  /** For metadata and messages: `brave`, `model:google:gemini-2.5-flash`. */
  readonly id: string;
  readonly label: string;
  search(request: SearchRequest): Promise<SearchOutcome>;
}

const SNIPPET_CHARS = 400;

/**
 * A `domain` argument as a bare host name: `https://docs.python.org/3/` → `docs.python.org`. Undefined
 * when it is not a host name at all.
 */
export function normalizeDomain(input: string): string | undefined {
  let text = input.trim().toLowerCase();
  if (text === "") return undefined;
  if (!/^[a-z][a-z0-9+.-]*:\/\//.test(text)) text = `https://${text}`;
  let host: string;
  try {
    host = new URL(text).hostname;
  } catch {
    return undefined;
  }
  host = host.replace(/^www\./, "").replace(/\.$/, "");
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(host) ? host : undefined;
}

/** Whether a hit lies on `domain` or below it (a grounding redirect is judged by its title, which names the site). */
export function hitOnDomain(hit: SearchHit, domain: string): boolean {
  const covers = (host: string) => {
    const bare = host.toLowerCase().replace(/^www\./, "");
    return bare === domain || bare.endsWith(`.${domain}`);
  };
  let host = "";
  try {
    host = new URL(hit.url).hostname;
  } catch {
    return false;
  }
  return covers(host) || (/^[\w.-]+\.[a-z]{2,}$/i.test(hit.title) && covers(hit.title));
}

/** Plain text from a snippet some APIs send with `<strong>` marks and entities, in one short line. */
export function plainSnippet(text: string | undefined | null): string | undefined {
  if (!text) return undefined;
  const plain = text
    .replace(/<[^>]*>/g, "")
    .replace(/&(amp|lt|gt|quot|#39|apos|nbsp);/g, (_, name: string) => ENTITIES[name] ?? "")
    .replace(/\s+/g, " ")
    .trim();
  if (plain === "") return undefined;
  return plain.length > SNIPPET_CHARS ? `${plain.slice(0, SNIPPET_CHARS - 1)}…` : plain;
}

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  "#39": "'",
  apos: "'",
  nbsp: " ",
};

/** The results as the model reads them: a numbered Markdown list, the backend's answer after it. */
export function formatSearchResults(
  request: { query: string; domain?: string },
  backend: SearchBackend,
  outcome: Extract<SearchOutcome, { ok: true }>,
): string {
  const where = request.domain ? ` on ${request.domain}` : "";
  const count = outcome.hits.length;
  const head = `Web search for "${request.query}"${where} (${backend.label}): ${count} result${count === 1 ? "" : "s"}.`;
  const lines = [head];
  if (outcome.queries && outcome.queries.length > 0)
    lines.push(`Queries run: ${outcome.queries.map((q) => `"${q}"`).join(", ")}`);
  outcome.hits.forEach((hit, index) => {
    lines.push("", `${index + 1}. [${escapeTitle(hit.title || hit.url)}](${hit.url})`);
    if (hit.snippet) lines.push(`   ${hit.snippet}`);
    if (hit.date) lines.push(`   Date: ${hit.date}`);
  });
  if (count === 0) lines.push("", "No results. Try other words, or drop the domain.");
  if (outcome.answer?.trim()) lines.push("", `Summary from ${backend.label}:`, outcome.answer.trim());
  if (count > 0) lines.push("", "Read a result with read_url_content.");
  return lines.join("\n");
}

function escapeTitle(title: string): string {
  return title.replace(/[[\]]/g, (bracket) => `\\${bracket}`).replace(/\s+/g, " ");
}
