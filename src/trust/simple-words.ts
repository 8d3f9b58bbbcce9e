import { UNKNOWN, type WordValues } from "./command-words.js";

/**
 * The words of a plain command line (`python3 .agents/gate.py`, `sh "$CLAUDE_PROJECT_DIR"/check.sh`,
 * `bash -c 'node x.js'`) read without the shell parser, which costs about 100 ms to load: blanks between
 * words, single and double quotes, backslash escapes and `$NAME` / `${NAME}`. Anything else the shell
 * gives a meaning to outside quotes (operators, redirections, substitutions, braces, `~`, comments,
 * assignments, reserved words, other expansions) returns undefined, and the parser reads the line. The values are the
 * ones the parser's reading gives (test/trust/simple-words.test.ts checks both on generated lines).
 */
export function simpleWords(line: string, known: Record<string, string>): WordValues[] | undefined {
  const words: WordValues[] = [];
  let at = 0;
  while (at < line.length) {
    if (line[at] === " " || line[at] === "\t") {
      at++;
      continue;
    }
    const word = readWord(line, at, known);
    if (word === undefined) return undefined;
    if (words.length === 0 && startsLikeAnAssignmentOrKeyword(line.slice(at, word.end))) return undefined;
    words.push([word.value]);
    at = word.end;
  }
  return words;
}

/** Unquoted, these mean more than a character of a word: operators, redirections, substitutions, braces, `~`, comments. */
const SHELL_SYNTAX = /[\n\r;&|<>()`#{}~]/;

const RESERVED = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "do",
  "done",
  "case",
  "esac",
  "while",
  "until",
  "for",
  "in",
  "function",
  "select",
  "time",
  "coproc",
  "!",
  "[[",
  "]]",
]);

function startsLikeAnAssignmentOrKeyword(raw: string): boolean {
  return RESERVED.has(raw) || /^[A-Za-z_][A-Za-z0-9_]*(\[|\+?=)/.test(raw);
}

/** A stretch of a word as read, with where reading goes on. */
interface Piece {
  value: string;
  end: number;
}

function readWord(line: string, start: number, known: Record<string, string>): Piece | undefined {
  let value = "";
  let at = start;
  while (at < line.length && line[at] !== " " && line[at] !== "\t") {
    const piece = unquotedPiece(line, at, known);
    if (piece === undefined) return undefined;
    value += piece.value;
    at = piece.end;
  }
  return { value, end: at };
}

function unquotedPiece(line: string, at: number, known: Record<string, string>): Piece | undefined {
  const c = line[at] as string;
  if (c === "'") {
    const close = line.indexOf("'", at + 1);
    return close < 0 ? undefined : { value: line.slice(at + 1, close), end: close + 1 };
  }
  if (c === '"') return readDoubleQuoted(line, at + 1, known);
  if (c === "\\") {
    const next = line[at + 1];
    return next === undefined || next === "\n" || next === "\r" ? undefined : { value: next, end: at + 2 };
  }
  if (c === "$") return readParameter(line, at, known);
  return SHELL_SYNTAX.test(c) ? undefined : { value: c, end: at + 1 };
}

/** From just after an opening `"` to just after its closing one. */
function readDoubleQuoted(line: string, start: number, known: Record<string, string>): Piece | undefined {
  let value = "";
  let at = start;
  while (line[at] !== '"') {
    const piece = quotedPiece(line, at, known);
    if (piece === undefined) return undefined;
    value += piece.value;
    at = piece.end;
  }
  return { value, end: at + 1 };
}

function quotedPiece(line: string, at: number, known: Record<string, string>): Piece | undefined {
  const c = line[at];
  if (c === undefined || c === "`") return undefined;
  const next = line[at + 1];
  if (c === "\\" && next !== undefined && '$`"\\\n'.includes(next)) return { value: next, end: at + 2 };
  if (c === "$") return readParameter(line, at, known);
  return { value: c, end: at + 1 };
}

/** `$NAME` or `${NAME}`: its value when known, else the unknown mark; undefined for any other `$`. */
function readParameter(line: string, start: number, known: Record<string, string>): Piece | undefined {
  const match = /^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})/.exec(line.slice(start));
  if (match === null) return undefined;
  const name = (match[1] ?? match[2]) as string;
  return { value: known[name] ?? UNKNOWN, end: start + match[0].length };
}
