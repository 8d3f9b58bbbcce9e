import { showControls } from "../tools/exec/ansi.js";
import { isSecretVariable } from "../tools/exec/sandbox-env.js";

const CREDENTIAL_HEADERS = /^(proxy-)?authorization$|^cookie$|^x-api-key$/i;

/**
 * An environment or header value as the trust review and `gantry config` show it: as written where it
 * names a variable (`Bearer ${OPENAI_API_KEY}`: trusting it would send that variable) or holds no
 * credential (`NODE_OPTIONS=--require ./x.js`); `…` for a literal credential, which can only be the
 * file's own and should not be printed.
 */
export function shownValue(name: string, value: string): string {
  if (value.includes("$")) return value;
  return isSecretVariable(name, value) || CREDENTIAL_HEADERS.test(name) ? "…" : value;
}

/** `A=1 B='x y'`-style pairs, or `Name: value; …` for headers, with values as shownValue shows them. */
export function shownPairs(
  record: Record<string, string> | undefined,
  format: (name: string, value: string) => string,
): string[] {
  return Object.entries(record ?? {}).map(([name, value]) => format(name, shownValue(name, value)));
}

// what showControls leaves: line breaks and tabs (a value is one line here), bidirectional overrides and isolates
const LINE_AND_BIDI = /[\n\t\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text from a workspace file as a terminal may show it: control characters spelt out as showControls
 * does (`\x1b`, `\x0d`), and line breaks and bidirectional overrides too (`\u202e`), so a command
 * cannot erase, split or reorder what the trust review shows.
 */
export function printable(text: string): string {
  return showControls(text).replace(
    LINE_AND_BIDI,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
