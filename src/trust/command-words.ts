import { type ParsedScript, parseShellScript, type ShNode } from "../policy/shell-parser.js";
import { simpleWords } from "./simple-words.js";

/**
 * A command line read for the files it may run (trust pins them; nothing is run): every simple
 * command's words, each as the values it can take, through the shell's own grammar (quotes, escapes,
 * `$PWD`, brace expansion, `bash -c '…'` strings, here-strings and here-documents), leaving out the
 * targets of output redirections (`> log`).
 */
export interface CommandRead {
  /** Each simple command's words (`cd x`, `sh gate.sh`), in order; a word is every value it may expand to. */
  commands: WordValues[][];
  /** Words that are not a command's arguments but may name a file it reads: input redirections, assignments. */
  loose: WordValues[];
}

/**
 * The values one word may take. A part known only when the command runs (`$X`, `$(pwd)`) is the
 * UNKNOWN character: what follows the last one (`${X:-.}/.agents/gate.sh`) is a path below some folder.
 */
export type WordValues = string[];

export const UNKNOWN = "\u0001";

export interface ReadOptions {
  /** Variables whose value is known (`PWD`, the project-dir variables, `HOME`). */
  known: Record<string, string>;
  home?: string;
  /**
   * "parser": every line through the shell parser. By default a plain line (words, quotes, `$NAME`) is
   * read without it (simple-words.ts), and the parser, about 100 ms to load, only for the rest.
   */
  grammar?: "parser";
}

const MAX_LEVELS = 4;
const MAX_VALUES = 64;
/** A value that is itself a command line (`bash -c "sh x.sh"`, `NODE_OPTIONS="-r ./x"`): read as one too. */
const LOOKS_LIKE_A_LINE = /[\s;&|<>()`]/;

export function readCommandLine(line: string, options: ReadOptions): CommandRead {
  const read: CommandRead = { commands: [], loose: [] };
  readLine(line, options, read, 0);
  return read;
}

function readLine(line: string, options: ReadOptions, read: CommandRead, level: number): void {
  const nested = (values: WordValues) => {
    if (level >= MAX_LEVELS) return;
    for (const value of values)
      if (LOOKS_LIKE_A_LINE.test(value))
        readLine(value.replaceAll(UNKNOWN, "${__unknown}"), options, read, level + 1);
  };
  const simple = options.grammar === "parser" ? undefined : simpleWords(line, options.known);
  if (simple !== undefined) {
    if (simple.length > 0) read.commands.push(simple);
    for (const word of simple) nested(word);
    return;
  }
  const parsed = parseShellScript(line);
  if (!parsed.ok) {
    // what does not parse is still searched for paths: every blank-separated piece, quotes removed
    const words = line.split(/[\s;&|<>()`]+/).map((word) => word.replace(/["'\\]/g, ""));
    read.commands.push(words.filter((word) => word !== "").map((word) => [word]));
    return;
  }
  const script = parsed.parsed;
  script.walk(script.file, (node) => {
    const type = script.typeOf(node);
    if (type === "CallExpr") {
      const words = ((node.Args as ShNode[] | null) ?? []).map((word) => wordValues(word, script, options));
      read.commands.push(words);
      for (const word of words) nested(word);
    } else if (type === "Assign" && node.Value) {
      const values = wordValues(node.Value as ShNode, script, options);
      read.loose.push(values);
      nested(values);
    } else if (type === "Redirect") {
      readRedirect(node, script, options, read, nested);
    }
    return true;
  });
}

const OUTPUT_OPERATORS = /^(?:>|>>|>\||&>|&>>|<>)$/;

function readRedirect(
  node: ShNode,
  script: ParsedScript,
  options: ReadOptions,
  read: CommandRead,
  nested: (values: WordValues) => void,
): void {
  const word = node.Word as ShNode | null;
  const hdoc = node.Hdoc as ShNode | null;
  if (hdoc) {
    nested([script.textOf(hdoc)]);
    return;
  }
  if (!word) return;
  const operator = script
    .between(node.Pos().Offset(), word.Pos().Offset())
    .trim()
    .replace(/^(?:\d+|\{\w+\})/, "");
  // a file only written (a hook's log) changes at every run; it is output, not a script
  if (OUTPUT_OPERATORS.test(operator) || operator === ">&") return;
  const values = wordValues(word, script, options);
  if (operator === "<<<") nested(values);
  else read.loose.push(values);
}

/** The values a word may take: quotes removed, known variables filled in, braces expanded. */
function wordValues(word: ShNode, script: ParsedScript, options: ReadOptions): WordValues {
  let values = [""];
  const parts = (word.Parts as ShNode[] | null) ?? [];
  parts.forEach((part, index) => {
    const choices = partValues(part, index, script, options);
    values = values.flatMap((value) => choices.map((choice) => value + choice)).slice(0, MAX_VALUES);
  });
  return values;
}

function partValues(part: ShNode, index: number, script: ParsedScript, options: ReadOptions): string[] {
  const type = script.typeOf(part);
  if (type === "SglQuoted") return [String(part.Value)];
  if (type === "DblQuoted") {
    let value = "";
    for (const inner of (part.Parts as ShNode[] | null) ?? []) {
      if (script.typeOf(inner) === "Lit") value += String(inner.Value).replace(/\\([$`"\\\n])/g, "$1");
      else value += parameterValue(inner, script, options) ?? UNKNOWN;
    }
    return [value];
  }
  if (type === "Lit") {
    const raw = String(part.Value);
    const tilde = index === 0 && options.home !== undefined ? raw.replace(/^~(?=\/|$)/, options.home) : raw;
    return expandBraces(tilde).map((value) => value.replace(/\\([\s\S])/g, "$1"));
  }
  return [parameterValue(part, script, options) ?? UNKNOWN];
}

/** `$PWD`, `${PWD}`, `${PWD:-x}` of a known variable; undefined for anything else. */
function parameterValue(part: ShNode, script: ParsedScript, options: ReadOptions): string | undefined {
  if (script.typeOf(part) !== "ParamExp") return undefined;
  const param = part.Param as ShNode | null;
  const name = param ? String(param.Value) : "";
  const known = options.known[name];
  if (known === undefined || part.Excl || part.Length || part.Index || part.Slice || part.Repl)
    return undefined;
  const expansion = part.Exp as ShNode | null;
  // `${PWD:-…}` and `${PWD-…}` are PWD itself; other operators change it
  return expansion && !/^:?-/.test(operatorText(part, script)) ? undefined : known;
}

function operatorText(part: ShNode, script: ParsedScript): string {
  return script.textOf(part).replace(/^\$\{[A-Za-z_][A-Za-z0-9_]*/, "");
}

/** bash's brace expansion of one unquoted piece (`{gate,x}.sh`, `x{1..3}`), bounded. */
export function expandBraces(text: string): string[] {
  const open = findBrace(text);
  if (!open) return [text];
  const { start, end, choices } = open;
  const head = text.slice(0, start);
  const rest = expandBraces(text.slice(end + 1));
  const out: string[] = [];
  for (const choice of choices)
    for (const inner of expandBraces(choice))
      for (const tail of rest) {
        if (out.length >= MAX_VALUES) return out;
        out.push(head + inner + tail);
      }
  return out;
}

function findBrace(text: string): { start: number; end: number; choices: string[] } | undefined {
  for (let start = text.indexOf("{"); start >= 0; start = text.indexOf("{", start + 1)) {
    if (text[start - 1] === "\\" || text[start - 1] === "$") continue;
    let depth = 0;
    const commas: number[] = [];
    for (let at = start; at < text.length; at++) {
      const c = text[at];
      if (c === "\\") at++;
      else if (c === "{") depth++;
      else if (c === "," && depth === 1) commas.push(at);
      else if (c === "}" && --depth === 0) {
        const body = text.slice(start + 1, at);
        if (commas.length > 0) {
          const cuts = [start, ...commas, at];
          return {
            start,
            end: at,
            choices: cuts.slice(1).map((cut, i) => text.slice((cuts[i] ?? 0) + 1, cut)),
          };
        }
        const range = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])$/.exec(body);
        if (range) return { start, end: at, choices: rangeOf(range[1] ?? "", range[2] ?? "") };
        break;
      }
    }
  }
  return undefined;
}

function rangeOf(from: string, to: string): string[] {
  const numeric = /\d/.test(from);
  const a = numeric ? Number(from) : from.charCodeAt(0);
  const b = numeric ? Number(to) : to.charCodeAt(0);
  const step = a <= b ? 1 : -1;
  const out: string[] = [];
  for (let at = a; out.length < MAX_VALUES; at += step) {
    out.push(numeric ? String(at) : String.fromCharCode(at));
    if (at === b) break;
  }
  return out;
}
