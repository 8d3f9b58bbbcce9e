import { looksBinary } from "../../workspace/text.js";

/** "mixed": both CRLF and lone LF; such a file is matched and written as it is, never normalised. */
export type LineEnding = "lf" | "crlf" | "mixed";

/** A text file as the edit tools work on it: `text` is in LF form unless the file mixes endings. */
export interface DecodedText {
  text: string;
  bom: boolean;
  lineEnding: LineEnding;
  finalNewline: boolean;
  /** False for an empty file: it has no final-newline convention to keep. */
  hasContent: boolean;
}

export type DecodeResult = { ok: true; decoded: DecodedText } | { ok: false; reason: string };

const BOM_BYTES = [0xef, 0xbb, 0xbf];
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export function decodeText(bytes: Uint8Array): DecodeResult {
  const bom = BOM_BYTES.every((byte, i) => bytes[i] === byte);
  const body = bom ? bytes.subarray(3) : bytes;
  if (looksBinary(body.subarray(0, 8192))) return { ok: false, reason: "it looks binary" };
  let raw: string;
  try {
    raw = strictUtf8.decode(body);
  } catch {
    return { ok: false, reason: "it is not valid UTF-8 text" };
  }
  if (raw.includes("\u0000")) return { ok: false, reason: "it contains NUL bytes" };
  const lineEnding = lineEndingOf(raw);
  const text = lineEnding === "crlf" ? raw.replaceAll("\r\n", "\n") : raw;
  return {
    ok: true,
    decoded: { text, bom, lineEnding, finalNewline: raw.endsWith("\n"), hasContent: raw.length > 0 },
  };
}

function lineEndingOf(raw: string): LineEnding {
  let crlf = 0;
  let lf = 0;
  for (let at = raw.indexOf("\n"); at >= 0; at = raw.indexOf("\n", at + 1)) {
    if (at > 0 && raw.charCodeAt(at - 1) === 13) crlf++;
    else lf++;
    if (crlf > 0 && lf > 0) return "mixed";
  }
  return crlf > 0 ? "crlf" : "lf";
}

/**
 * The forms of a piece of the model's text to look for in a file: LF for LF and CRLF files (their
 * text is held in LF form); for a mixed file, the text as given and then with CRLF endings.
 */
export function modelTextForms(modelText: string, lineEnding: LineEnding): string[] {
  const lf = modelText.replaceAll("\r\n", "\n");
  if (lineEnding !== "mixed") return [lf];
  const crlf = lf.replaceAll("\n", "\r\n");
  return [...new Set([modelText, lf, crlf])];
}

/** Converts the model's replacement text to the same form as the target text it matched. */
export function alignToForm(replacement: string, matchedForm: string): string {
  const lf = replacement.replaceAll("\r\n", "\n");
  return matchedForm.includes("\r\n") ? lf.replaceAll("\n", "\r\n") : lf;
}

/**
 * Edited text made to keep the file's conventions: no stray BOM character, and the final newline
 * present or absent as the file had it (an empty file has no convention to keep).
 */
export function conformText(text: string, original: DecodedText): string {
  let body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (original.hasContent && body.length > 0) {
    if (original.finalNewline && !body.endsWith("\n")) body += "\n";
    if (!original.finalNewline && body.endsWith("\n")) body = body.replace(/\r?\n$/, "");
  }
  return body;
}

/** Turns conformed text back into the file's bytes: its line ending (CRLF files) and its BOM. */
export function encodeText(text: string, original: DecodedText): Buffer {
  const body = original.lineEnding === "crlf" ? text.replaceAll("\r\n", "\n").replaceAll("\n", "\r\n") : text;
  return Buffer.from(original.bom ? `\uFEFF${body}` : body, "utf8");
}

/** What a text file's layout looks like, for metadata. */
export function layoutOf(decoded: DecodedText): Record<string, unknown> {
  return { lineEnding: decoded.lineEnding, bom: decoded.bom, finalNewline: decoded.finalNewline };
}
