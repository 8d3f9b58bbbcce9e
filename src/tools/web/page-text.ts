import { looksBinary } from "../../workspace/text.js";

export type PageKind = "html" | "text" | "refused";

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);
const TEXT_APPLICATION_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/x-ndjson",
]);

/** The media type of a Content-Type header, lower case, without parameters. */
export function mediaTypeOf(contentType: string): string {
  return (contentType.split(";")[0] ?? "").trim().toLowerCase();
}

/** HTML becomes Markdown, text-like types stay text, the rest (images, PDFs, binaries) is refused. */
export function classifyPage(contentType: string, body: Uint8Array): PageKind {
  const media = mediaTypeOf(contentType);
  if (HTML_TYPES.has(media)) return "html";
  if (media === "") return looksBinary(body.subarray(0, 8192)) ? "refused" : "text";
  if (media.startsWith("text/") || TEXT_APPLICATION_TYPES.has(media)) return "text";
  if (media.endsWith("+json") || media.endsWith("+xml")) return "text";
  return "refused";
}

export interface DecodedText {
  text: string;
  charset: string;
  /** Set when the named charset is unknown and utf-8 was used instead. */
  unknownCharset?: string;
}

/** Decodes with the Content-Type charset, else an HTML page's own <meta charset>, else utf-8. */
export function decodeBody(contentType: string, body: Uint8Array, kind: PageKind): DecodedText {
  const named = charsetParameter(contentType) ?? (kind === "html" ? metaCharset(body) : undefined);
  const charset = named ?? "utf-8";
  try {
    return { text: new TextDecoder(charset).decode(body), charset };
  } catch {
    return { text: new TextDecoder("utf-8").decode(body), charset: "utf-8", unknownCharset: charset };
  }
}

function charsetParameter(contentType: string): string | undefined {
  const found = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType);
  return found?.[1]?.toLowerCase();
}

function metaCharset(body: Uint8Array): string | undefined {
  // the declaration must sit in the first 1024 bytes (HTML's prescan), which are ASCII in every charset we read
  const head = new TextDecoder("latin1").decode(body.subarray(0, 1024));
  const found = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head);
  return found?.[1]?.toLowerCase();
}

export function titleOf(html: string): string | undefined {
  const found = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html.slice(0, 65_536));
  const title = found?.[1]?.replace(/\s+/g, " ").trim();
  return title ? decodeBasicEntities(title) : undefined;
}

function decodeBasicEntities(text: string): string {
  const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, entity: string) => {
    if (!entity.startsWith("#")) return named[entity.toLowerCase()] ?? whole;
    const hex = entity[1] === "x" || entity[1] === "X";
    const codePoint = Number.parseInt(entity.slice(hex ? 2 : 1), hex ? 16 : 10);
    return codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : whole;
  });
}
