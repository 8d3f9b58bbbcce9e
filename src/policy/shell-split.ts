import { createRequire } from "node:module";

/**
 * Splits a shell command line into the simple commands it would run, with mvdan/sh's bash parser
 * (the `mvdan-sh` build: it keeps the full syntax tree, where sh-syntax's WASM build hands back
 * statements without their commands). `a && b`, `a; b`, `a | b`, `a || b`, `(a)`, `{ a; }`,
 * `$(a)`, backticks, `<(a)`, loops, conditionals and function bodies all yield their inner commands.
 */
export interface ShellSplit {
  ok: true;
  /** Each simple command's words, joined by one space (quotes kept as written). */
  parts: string[];
  /** Files written by output redirections (`>`, `>>`, `&>`, `<>`); `undefined` = a target not known before running. */
  writes: (string | undefined)[];
  /** Files read by input redirections (`<`). */
  reads: (string | undefined)[];
}

export interface ShellSplitError {
  ok: false;
  error: string;
}

interface ShPos {
  Offset(): number;
}
interface ShNode {
  Pos(): ShPos;
  End(): ShPos;
  [key: string]: unknown;
}
interface ShSyntax {
  NewParser(): { Parse(src: string, name: string): ShNode };
  Walk(node: ShNode, visit: (node: ShNode | null) => boolean): void;
  NodeType(node: ShNode): string;
}

let loaded: ShSyntax | undefined;

/** Loads the parser on first use (about 100 ms once); `gantry --version` and read-only runs never pay it. */
function shellSyntax(): ShSyntax {
  if (loaded) return loaded;
  const hadRequire = "require" in globalThis;
  const module = createRequire(import.meta.url)("mvdan-sh") as { syntax: ShSyntax };
  // the GopherJS runtime leaves a global `require` behind; parsing does not need it
  if (!hadRequire) delete (globalThis as { require?: unknown }).require;
  loaded = module.syntax;
  return loaded;
}

/** Command nodes judged as one part: their text is what permission rules match. */
const SIMPLE_COMMANDS = new Set(["CallExpr", "DeclClause", "LetClause", "TestClause", "ArithmCmd"]);
const OUTPUT_OPERATORS = new Set([">", ">>", ">|", "&>", "&>>", "<>", ">&"]);
const INPUT_OPERATORS = new Set(["<", "<>"]);
const HARMLESS_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"]);

export function splitShellCommand(commandLine: string): ShellSplit | ShellSplitError {
  const syntax = shellSyntax();
  const source = Buffer.from(commandLine, "utf8");
  // positions are byte offsets into the UTF-8 text
  const slice = (node: ShNode) => source.subarray(node.Pos().Offset(), node.End().Offset()).toString("utf8");
  let file: ShNode;
  try {
    file = syntax.NewParser().Parse(commandLine, "");
  } catch (cause) {
    return { ok: false, error: describeParseError(cause) };
  }
  const split: ShellSplit = { ok: true, parts: [], writes: [], reads: [] };
  syntax.Walk(file, (node) => {
    if (!node) return true;
    const type = syntax.NodeType(node);
    if (type === "CallExpr") {
      const words = [...(node.Assigns as ShNode[]), ...(node.Args as ShNode[])].map(slice);
      if (words.length > 0) split.parts.push(words.join(" "));
    } else if (SIMPLE_COMMANDS.has(type)) {
      split.parts.push(slice(node).replace(/\s+/g, " ").trim());
    } else if (type === "Redirect") {
      recordRedirect(node, source, syntax, split);
    }
    return true;
  });
  return split;
}

function recordRedirect(node: ShNode, source: Buffer, syntax: ShSyntax, split: ShellSplit): void {
  const word = node.Word as ShNode | null;
  if (!word) return;
  // the text before the target, less a leading descriptor number (`2>`): the operator as written
  const operator = source
    .subarray(node.Pos().Offset(), word.Pos().Offset())
    .toString("utf8")
    .trim()
    .replace(/^(\d+|\{\w+\})/, "");
  const target = staticWord(word, syntax);
  // `2>&1`, `>&-`: a descriptor, not a file
  const duplicatesDescriptor = operator === ">&" || operator === "<&";
  if (duplicatesDescriptor && target !== undefined && /^(\d+|-)$/.test(target)) return;
  if (target !== undefined && (HARMLESS_TARGETS.has(target) || target.startsWith("/dev/fd/"))) return;
  if (OUTPUT_OPERATORS.has(operator)) split.writes.push(target);
  if (INPUT_OPERATORS.has(operator)) split.reads.push(target);
}

/** The word's value when it has no expansions (`out.txt`, `'a b'`, `"x"`); undefined when only running would tell. */
function staticWord(word: ShNode, syntax: ShSyntax): string | undefined {
  let value = "";
  for (const part of word.Parts as ShNode[]) {
    const type = syntax.NodeType(part);
    if (type === "Lit" || type === "SglQuoted") value += String(part.Value);
    else if (type === "DblQuoted") {
      for (const inner of part.Parts as ShNode[]) {
        if (syntax.NodeType(inner) !== "Lit") return undefined;
        value += String(inner.Value);
      }
    } else return undefined;
  }
  return value;
}

function describeParseError(cause: unknown): string {
  if (cause && typeof cause === "object" && "Error" in cause && typeof cause.Error === "function") {
    return String(cause.Error());
  }
  return String(cause);
}
