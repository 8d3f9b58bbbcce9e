import type { ParsedScript, ShNode } from "./shell-parser.js";

/** One word of a command as the shell will hand it over, as far as that is known before it runs. */
export interface ShellWord {
  /** As written (quotes kept). */
  written: string;
  /** The word after quote removal, escapes and `~`; undefined when only running tells (`$x`, `$(…)`). */
  value?: string;
  /** Instead of `value`, when the word's only expansion is a file-name pattern (`*.log`): the pattern. */
  pattern?: string;
  /** For a word known only when running: the file name it ends in, when a literal `/name` follows the last expansion. */
  name?: string;
  /** A word filled in with paths found below folders (find's `{}`): as a file, any entry below them. */
  within?: { folders: readonly ShellWord[]; onlyNames?: readonly string[] };
}

/** A word made up by Gantry (a literal string split into words): its value is what it says. */
export function literalWord(value: string): ShellWord {
  return { written: requote(value), value };
}

/**
 * Reads a syntax-tree word: `"r"m`, `r\m`, `'rm'` and `$'\x72m'` are all `rm`. Brace expansion,
 * `~user` and every `$` expansion leave the value unknown; `*`, `?` and `[` make it a pattern.
 */
export function readWord(word: ShNode, script: ParsedScript, home: string | undefined): ShellWord {
  const written = script.textOf(word);
  const parts = (word.Parts as ShNode[]).map((part, index) => partValue(part, index, script, home));
  if (parts.some((part) => part.value === undefined)) {
    // the literal end after the last expansion (`$dir/log.txt`): its file name is known
    let tail = "";
    for (let at = parts.length - 1; at >= 0 && parts[at]?.value !== undefined; at--) {
      if (parts[at]?.pattern) return { written };
      tail = parts[at]?.value + tail;
    }
    const slash = tail.lastIndexOf("/");
    return slash >= 0 && slash < tail.length - 1 ? { written, name: tail.slice(slash + 1) } : { written };
  }
  const value = parts.map((part) => part.value).join("");
  return parts.some((part) => part.pattern) ? { written, pattern: value } : { written, value };
}

/** One part of a word: its literal value (undefined for an expansion), and whether it holds a pattern. */
function partValue(part: ShNode, index: number, script: ParsedScript, home: string | undefined) {
  const type = script.typeOf(part);
  if (type === "SglQuoted") {
    return { value: part.Dollar ? decodeAnsiC(String(part.Value)) : String(part.Value) };
  }
  if (type === "DblQuoted") {
    let value = "";
    for (const inner of part.Parts as ShNode[]) {
      if (script.typeOf(inner) !== "Lit") return { value: undefined };
      value += String(inner.Value).replace(/\\([$`"\\\n])/g, (_, char: string) =>
        char === "\n" ? "" : char,
      );
    }
    return { value };
  }
  if (type !== "Lit") return { value: undefined };
  const raw = String(part.Value);
  const masked = raw.replace(/\\[\s\S]/g, "__");
  // brace expansion (`{rm,x}`) makes several words of one
  if (/\{[^}]*(,|\.\.)[^}]*\}/.test(masked)) return { value: undefined };
  const expanded = index === 0 ? expandTilde(raw, home) : raw;
  if (expanded === undefined) return { value: undefined };
  return { value: unescapeUnquoted(expanded), pattern: /[*?[]/.test(masked) };
}

/** `~` and `~/…` are the home folder; `~user`, `~+` and `~-` are known only when the shell runs. */
function expandTilde(raw: string, home: string | undefined): string | undefined {
  if (!raw.startsWith("~")) return raw;
  const slash = raw.indexOf("/");
  const name = slash < 0 ? raw.slice(1) : raw.slice(1, slash);
  if (name !== "" || home === undefined) return undefined;
  // the home folder is inserted as a literal: a backslash in it is no escape
  return home.replaceAll("\\", "\\\\") + (slash < 0 ? "" : raw.slice(slash));
}

function unescapeUnquoted(raw: string): string {
  return raw.replace(/\\([\s\S])/g, (_, char: string) => (char === "\n" ? "" : char));
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** bash's `$'…'` quoting: `\x72`, `\162`, `\u0072`, `\n`, `\cA` … */
export function decodeAnsiC(text: string): string {
  return text.replace(
    /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c[\s\S]|[\s\S])/g,
    (whole, code: string) => {
      const head = code.charAt(0);
      if (head === "x" || head === "u" || head === "U") {
        return String.fromCodePoint(Math.min(Number.parseInt(code.slice(1), 16), 0x10ffff));
      }
      if (/[0-7]/.test(head)) return String.fromCharCode(Number.parseInt(code, 8) & 0xff);
      if (head === "c" && code.length === 2) return String.fromCharCode(code.charCodeAt(1) & 0x1f);
      return SIMPLE_ESCAPES[code] ?? whole;
    },
  );
}

const NEEDS_NO_QUOTES = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** A word as rules compare it: bare when that is unambiguous, else single-quoted. */
export function requote(value: string): string {
  if (NEEDS_NO_QUOTES.test(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** The word's value, or its text as written when only running tells. */
export function spelled(word: ShellWord): string {
  return word.value !== undefined ? requote(word.value) : word.written;
}

/** Words joined by spaces, as a shell would hand them on (`eval a b`); unknown if any part is. */
export function joinWords(words: readonly (ShellWord | undefined)[]): ShellWord {
  const written = words.map((word) => word?.written ?? "").join(" ");
  if (words.some((word) => word?.value === undefined)) return { written };
  return { written, value: words.map((word) => word?.value).join(" ") };
}
