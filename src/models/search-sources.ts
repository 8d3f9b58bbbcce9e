import type { SearchHit } from "../tools/web/search/results.js";

/** The parts of a generateText result that say what a provider's own web search found. */
export interface SearchAnswer {
  sources: readonly {
    sourceType: string;
    url?: string;
    title?: string;
    providerMetadata?: Record<string, Record<string, unknown>>;
  }[];
  content: readonly { type: string }[];
  providerMetadata?: Record<string, Record<string, unknown>> | undefined;
}

interface GroundingMetadata {
  webSearchQueries?: string[] | null;
  groundingSupports?:
    | { segment?: { text?: string | null } | null; groundingChunkIndices?: number[] | null }[]
    | null;
}

interface Cited {
  title?: string;
  sentences: string[];
}

/**
 * The URL sources, each once: titles and the sentences citing them from the answer's citations (OpenAI's
 * url_citation), Gemini's grounded sentences (groundingSupports), Anthropic's page age as the date.
 */
export function hitsOf(answer: SearchAnswer, max: number): SearchHit[] {
  const grounded = groundedSentences(answer);
  const cited = citedIn(answer.content);
  const seen = new Set<string>();
  const hits: SearchHit[] = [];
  answer.sources.forEach((source, index) => {
    if (source.sourceType !== "url" || !source.url || seen.has(source.url)) return;
    seen.add(source.url);
    const citation = cited.get(source.url);
    const snippet = (grounded.get(index) ?? citation?.sentences)?.join(" ");
    const pageAge = source.providerMetadata?.anthropic?.pageAge;
    hits.push({
      title: source.title ?? citation?.title ?? source.url,
      url: source.url,
      ...(snippet ? { snippet } : {}),
      ...(typeof pageAge === "string" && pageAge ? { date: pageAge } : {}),
    });
  });
  return hits.slice(0, max);
}

/** The queries the provider ran: Gemini reports them; OpenAI and Anthropic carry them in their tool calls. */
export function queriesOf(answer: SearchAnswer): string[] {
  const queries = new Set(groundingOf(answer)?.webSearchQueries ?? []);
  for (const part of answer.content) {
    const payload =
      part.type === "tool-call"
        ? (part as { input?: unknown }).input
        : part.type === "tool-result"
          ? (part as { output?: unknown }).output
          : undefined;
    if (typeof payload !== "object" || payload === null) continue;
    const record = payload as { query?: unknown; action?: { query?: unknown; queries?: unknown } };
    const listed = Array.isArray(record.action?.queries) ? record.action.queries : [];
    for (const query of [record.query, record.action?.query, ...listed])
      if (typeof query === "string" && query.trim()) queries.add(query);
  }
  return [...queries];
}

function groundingOf(answer: SearchAnswer): GroundingMetadata | undefined {
  return (answer.providerMetadata?.google?.groundingMetadata ?? undefined) as GroundingMetadata | undefined;
}

/** Gemini's sources are its grounding chunks, in order: chunk index → the sentences grounded on it. */
function groundedSentences(answer: SearchAnswer): Map<number, string[]> {
  const sentences = new Map<number, string[]>();
  for (const support of groundingOf(answer)?.groundingSupports ?? []) {
    const sentence = support.segment?.text?.trim();
    if (!sentence) continue;
    for (const index of support.groundingChunkIndices ?? [])
      sentences.set(index, [...(sentences.get(index) ?? []), sentence]);
  }
  return sentences;
}

function citedIn(content: SearchAnswer["content"]): Map<string, Cited> {
  const cited = new Map<string, Cited>();
  for (const part of content) {
    if (part.type !== "text") continue;
    const { text, citations } = part as unknown as {
      text: string;
      citations?: { source?: { url?: string; title?: string }; startIndex?: number; endIndex?: number }[];
    };
    for (const citation of citations ?? []) {
      const url = citation.source?.url;
      if (!url) continue;
      const entry = cited.get(url) ?? { sentences: [] };
      entry.title ??= citation.source?.title;
      const sentence =
        citation.startIndex !== undefined && citation.endIndex !== undefined
          ? text.slice(citation.startIndex, citation.endIndex).trim()
          : "";
      if (sentence && !entry.sentences.includes(sentence)) entry.sentences.push(sentence);
      cited.set(url, entry);
    }
  }
  return cited;
}
