import { type ParsedScript, parseShellScript, type ShNode } from "./shell-parser.js";

/**
 * Text bash evaluates again, found where a reader sees only data. In arithmetic (`$(( ))`, `(( ))`,
 * `let`, `[[ -eq ]]`, an indexed array's subscript, `${x:offset}`) a variable's value is itself
 * evaluated, and a `$(…)` in an array subscript there runs: `x='a[$(rm f)]'; (( x ))` runs rm. So does
 * `${x@P}`, and a name with a subscript given to `${!x}`, `read`, `printf -v` or `[[ -v ]]`.
 */
export const ARITHMETIC_RUNS =
  "arithmetic on a variable can run a command (bash evaluates the variable's value, and a $(…) in an array subscript there runs)";
export const PROMPT_RUNS = "prompt expansion (${x@P}) runs the commands in the variable's value";
export const INDIRECT_RUNS =
  "an indirect expansion (${!x}) evaluates the subscript of the name it holds, which can run a command";
export const NAME_RUNS =
  "a variable name with a subscript known only when it runs is evaluated as arithmetic, which can run a command";

/** Names known to hold numbers where an expression is evaluated (a loop's counter, `i=0` earlier in it). */
export type NumericNames = Set<string>;

// mvdan/sh's token numbers for the operators that matter here
const ASSIGN = 74;
const COMPOUND_ASSIGN = new Set([44, 45, 46, 47, 48, 49, 50, 51, 52, 53]);
/** `&&`, `||`, `?`, `:`: their right side may not be evaluated, so what it assigns is not known after. */
const CONDITIONAL = new Set([10, 11, 72, 87]);
const INCREMENT = new Set([36, 37]);
const TEST_ARITHMETIC = new Set([116, 117, 118, 119, 120, 121]);
const TEST_VARIABLE = 110;
const EXPANSION_AT = 84;

const NUMBER = /^(0[xX][0-9a-fA-F]+|[0-9]+|[0-9]{1,2}#[0-9a-zA-Z@_]+)$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Special parameters that always hold a number: `$#`, `$?`, `$$`, `$!`. */
const NUMERIC_SPECIALS = new Set(["#", "?", "$", "!"]);

/** Whether a variable name (`x`, `a[2]`) is one bash takes without evaluating anything. */
export function isPlainName(name: string): boolean {
  const subscript = /^([A-Za-z_][A-Za-z0-9_]*)\[(.*)\]$/.exec(name);
  return IDENTIFIER.test(name) || (subscript !== null && NUMBER.test(subscript[2] as string));
}

/**
 * Why evaluating this arithmetic expression may run a command, or undefined when its leaves are numbers
 * and variables known to hold numbers. Names it assigns a known number are added to `numeric`.
 */
export function arithmeticRisk(
  node: ShNode,
  script: ParsedScript,
  numeric: NumericNames,
): string | undefined {
  switch (script.typeOf(node)) {
    case "Word":
      return operandRisk(node, script, numeric);
    case "ParenArithm":
      return arithmeticRisk(node.X as ShNode, script, numeric);
    case "UnaryArithm": {
      const operand = node.X as ShNode;
      if (INCREMENT.has(Number(node.Op)))
        return nameOf(operand, script, numeric) ? undefined : ARITHMETIC_RUNS;
      return arithmeticRisk(operand, script, numeric);
    }
    case "BinaryArithm":
      return binaryRisk(node, script, numeric);
    default:
      return ARITHMETIC_RUNS;
  }
}

function binaryRisk(node: ShNode, script: ParsedScript, numeric: NumericNames): string | undefined {
  const op = Number(node.Op);
  const left = node.X as ShNode;
  const right = node.Y as ShNode;
  if (op === ASSIGN || COMPOUND_ASSIGN.has(op)) {
    const target = assignedName(left, script);
    if (target === undefined) return ARITHMETIC_RUNS;
    if (COMPOUND_ASSIGN.has(op) && !numeric.has(target)) return ARITHMETIC_RUNS;
    const risk = arithmeticRisk(right, script, numeric);
    if (risk === undefined) numeric.add(target);
    return risk;
  }
  const risk = arithmeticRisk(left, script, numeric);
  if (risk) return risk;
  return arithmeticRisk(right, script, CONDITIONAL.has(op) ? new Set(numeric) : numeric);
}

/** The plain name an arithmetic assignment sets (`i=…`); undefined for `a[$x]=…` and the like. */
function assignedName(node: ShNode, script: ParsedScript): string | undefined {
  if (script.typeOf(node) !== "Word") return undefined;
  const parts = node.Parts as ShNode[];
  const only = parts.length === 1 ? (parts[0] as ShNode) : undefined;
  if (only && script.typeOf(only) === "Lit" && IDENTIFIER.test(String(only.Value))) return String(only.Value);
  return undefined;
}

/** A name known to hold a number (`i`, `$i`), as an operand. */
function nameOf(node: ShNode, script: ParsedScript, numeric: NumericNames): boolean {
  const name = assignedName(node, script);
  return name !== undefined && numeric.has(name);
}

/** A number, a variable known to hold one, `$#` or `${#x}`: safe; any other operand may run code. */
function operandRisk(word: ShNode, script: ParsedScript, numeric: NumericNames): string | undefined {
  const parts = word.Parts as ShNode[];
  if (parts.length !== 1) return ARITHMETIC_RUNS;
  const part = parts[0] as ShNode;
  const type = script.typeOf(part);
  if (type === "Lit") {
    const value = String(part.Value);
    return NUMBER.test(value) || numeric.has(value) ? undefined : ARITHMETIC_RUNS;
  }
  if (type !== "ParamExp") return ARITHMETIC_RUNS;
  const name = String((part.Param as ShNode | null)?.Value ?? "");
  if (part.Length && !part.Excl) return undefined;
  const plain = !part.Excl && !part.Index && !part.Slice && !part.Exp && !part.Repl;
  return plain && (NUMERIC_SPECIALS.has(name) || numeric.has(name)) ? undefined : ARITHMETIC_RUNS;
}

/** `${x@P}`, `${!x}`, `${a[i]}`, `${x:off:len}`: why the expansion may run a command, if it may. */
export function expansionRisk(node: ShNode, script: ParsedScript, numeric: NumericNames): string | undefined {
  const expansion = node.Exp as { Op: number; Word: ShNode | null } | null;
  if (expansion && Number(expansion.Op) === EXPANSION_AT && expansion.Word) {
    if (script.textOf(expansion.Word) === "P") return PROMPT_RUNS;
  }
  // `${!x}` names another variable (`${!x@}` and `${!a[@]}` list names and keys, and evaluate nothing)
  const index = node.Index as ShNode | null;
  const listsAll = index !== null && /^[@*]$/.test(script.textOf(index));
  if (node.Excl && Number(node.Names) === 0 && !listsAll) return INDIRECT_RUNS;
  if (index && !listsAll) {
    const risk = arithmeticRisk(index, script, new Set(numeric));
    if (risk) return risk;
  }
  const slice = node.Slice as { Offset: ShNode | null; Length: ShNode | null } | null;
  for (const bound of [slice?.Offset, slice?.Length]) {
    const risk = bound ? arithmeticRisk(bound, script, new Set(numeric)) : undefined;
    if (risk) return risk;
  }
  return undefined;
}

/** `[[ $x -eq 0 ]]` evaluates both sides as arithmetic; `[[ -v a[$i] ]]` evaluates the subscript. */
export function testRisk(node: ShNode, script: ParsedScript, numeric: NumericNames): string | undefined {
  switch (script.typeOf(node)) {
    case "BinaryTest": {
      const op = Number(node.Op);
      if (TEST_ARITHMETIC.has(op)) {
        const sides = [node.X as ShNode, node.Y as ShNode];
        return sides.map((side) => arithmeticRisk(side, script, new Set(numeric))).find(Boolean);
      }
      return testRisk(node.X as ShNode, script, numeric) ?? testRisk(node.Y as ShNode, script, numeric);
    }
    case "UnaryTest":
      if (Number(node.Op) === TEST_VARIABLE) return variableNameRisk(node.X as ShNode, script);
      return testRisk(node.X as ShNode, script, numeric);
    case "ParenTest":
      return testRisk(node.X as ShNode, script, numeric);
    default:
      return undefined;
  }
}

/** A word that names a variable (`-v NAME`): literal and plain, or it may run a command. */
function variableNameRisk(word: ShNode, script: ParsedScript): string | undefined {
  const parts = word.Parts as ShNode[];
  const only = parts.length === 1 ? (parts[0] as ShNode) : undefined;
  if (only && script.typeOf(only) === "Lit" && isPlainName(String(only.Value))) return undefined;
  return NAME_RUNS;
}

/** The names a C-style loop's first clause sets to numbers, known in its condition, step and body. */
export function loopCounters(loop: ShNode, script: ParsedScript): NumericNames {
  const numeric: NumericNames = new Set();
  const init = loop.Init as ShNode | null;
  if (init) arithmeticRisk(init, script, numeric);
  return numeric;
}

/** Builtins that may set any variable, or the ones their words name. */
const SETTERS = new Set(
  "read mapfile readarray printf getopts wait unset export declare typeset local readonly let".split(" "),
);
const SETS_ANY = new Set(["eval", "source", ".", "set"]);

/** What the script knows about numbers: each C-style loop's counters, less the names set any other way. */
export interface NumberScope {
  loops: { start: number; end: number; names: NumericNames }[];
  /** Names the script also sets otherwise (`i=$x`, `read i`); "all" after `eval`, `source` or an unknown program. */
  reassigned: Set<string> | "all";
}

export function numberScope(script: ParsedScript): NumberScope {
  const reassigned = new Set<string>();
  let all = false;
  script.walk(script.file, (node) => {
    const type = script.typeOf(node);
    if (type === "Assign") {
      const name = String((node.Name as ShNode | null)?.Value ?? "");
      const value = node.Value as ShNode | null;
      const numeric = value !== null && NUMBER.test(script.textOf(value)) && !node.Index && !node.Array;
      if (name !== "" && !numeric) reassigned.add(name);
      if (name === "" && value)
        reassigned.add(script.textOf(value).replace(/^["']?([A-Za-z_0-9]*).*$/s, "$1"));
    }
    if (type === "WordIter") reassigned.add(String((node.Name as ShNode).Value));
    if (type === "CallExpr") {
      const words = (node.Args as ShNode[]).map((word) => script.textOf(word));
      const program = words[0];
      if (program !== undefined && (SETS_ANY.has(program) || /[$`\\'"]/.test(program))) all = true;
      if (program !== undefined && SETTERS.has(program)) for (const word of words) reassigned.add(word);
    }
    return true;
  });
  return { loops: [], reassigned: all ? "all" : reassigned };
}

function numericAt(scope: NumberScope, offset: number): NumericNames {
  const names: NumericNames = new Set();
  if (scope.reassigned === "all") return names;
  for (const loop of scope.loops)
    if (offset >= loop.start && offset < loop.end)
      for (const name of loop.names) if (!scope.reassigned.has(name)) names.add(name);
  return names;
}

/**
 * Why a node bash evaluates may run a command (`$(( x ))`, `(( x ))`, `let`, `[[ -eq ]]`, `${x@P}`,
 * `a[$i]=…`), or undefined. A C-style loop's counters are recorded in `scope` for what follows inside it.
 */
export function evaluationRisk(node: ShNode, script: ParsedScript, scope: NumberScope): string | undefined {
  const numeric = numericAt(scope, node.Pos().Offset());
  switch (script.typeOf(node)) {
    case "ArithmExp":
    case "ArithmCmd":
      return node.X ? arithmeticRisk(node.X as ShNode, script, numeric) : undefined;
    case "LetClause":
      return (node.Exprs as ShNode[]).map((expression) => letRisk(expression, script, numeric)).find(Boolean);
    case "TestClause":
      return testRisk(node.X as ShNode, script, numeric);
    case "ParamExp":
      return expansionRisk(node, script, numeric);
    case "Assign":
    case "ArrayElem":
      return node.Index ? arithmeticRisk(node.Index as ShNode, script, numeric) : undefined;
    case "ForClause": {
      const loop = node.Loop as ShNode;
      if (script.typeOf(loop) !== "CStyleLoop") return undefined;
      const counters = loopCounters(loop, script);
      scope.loops.push({ start: loop.Pos().Offset(), end: node.End().Offset(), names: counters });
      const inLoop = numericAt(scope, loop.Pos().Offset());
      for (const part of [loop.Init, loop.Cond, loop.Post] as (ShNode | null)[]) {
        const risk = part ? arithmeticRisk(part, script, part === loop.Init ? numeric : inLoop) : undefined;
        if (risk) return risk;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** `let` reads each word as an expression: a quoted one is parsed as bash will parse its text. */
function letRisk(expression: ShNode, script: ParsedScript, numeric: NumericNames): string | undefined {
  if (script.typeOf(expression) !== "Word") return arithmeticRisk(expression, script, numeric);
  const parts = expression.Parts as ShNode[];
  if (parts.every((part) => script.typeOf(part) === "Lit"))
    return arithmeticRisk(expression, script, numeric);
  const quoted = parts.every((part) => script.typeOf(part) === "SglQuoted" && !part.Dollar);
  if (!quoted) return ARITHMETIC_RUNS;
  const text = parts.map((part) => String(part.Value)).join("");
  const parsed = parseShellScript(`(( ${text} ))`);
  if (!parsed.ok) return ARITHMETIC_RUNS;
  const command = (parsed.parsed.file.Stmts as ShNode[])[0]?.Cmd as ShNode | undefined;
  if (!command || parsed.parsed.typeOf(command) !== "ArithmCmd") return ARITHMETIC_RUNS;
  return arithmeticRisk(command.X as ShNode, parsed.parsed, numeric);
}
