import { parseArgs } from "./shell-args.js";
import { ARITHMETIC_RUNS, evaluationRisk, isPlainName, NAME_RUNS, numberScope } from "./shell-arithmetic.js";
import {
  type ConfigCommands,
  commandsInAssignment,
  commandsInAssignmentWord,
  readGit,
} from "./shell-config-commands.js";
import { baseName, type FileTarget, fileTargetsOf, knowsFilesOf } from "./shell-files.js";
import { readFind } from "./shell-find.js";
import { GIT_LOCATION_VARIABLES, LOCATION_VARIABLES } from "./shell-location-variables.js";
import { filesNamedByUnknownProgram, globListing, pathsInFedCode, takesCode } from "./shell-named-files.js";
import { commandsInOptions } from "./shell-option-commands.js";
import { type ParsedScript, parseShellScript, type ShNode } from "./shell-parser.js";
import { changesGitState, treeWritesOf } from "./shell-tree-writes.js";
import { variablesSetBy } from "./shell-variable-builtins.js";
import { literalWord, readWord, type ShellWord, spelled } from "./shell-words.js";
import { isInterpreter, type StandardInput, unwrapCommand } from "./shell-wrappers.js";

/**
 * What a command line does, as permission rules judge it (SPEC §5): every program it runs (through
 * wrappers and literal `sh -c` / `eval` strings), and every file it writes, reads or deletes by name.
 */
export interface ProgramRun {
  /** As written, for the user and the model. */
  label: string;
  /** The words after quote removal, re-quoted where needed: what allow rules match (the label too). */
  text: string;
  /** Other spellings that deny and ask rules match as well: `/bin/rm` as `rm`, `FOO=1 rm` as `rm`. */
  looseSpellings: string[];
  /** Why the program is known only when the command runs (`$x`, `$(printf rm)`, `eval "$y"`). */
  unknown?: string;
  /** It only runs the program after it (`timeout 5 …`): deny and ask rules judge it, allow needs only that. */
  wrapper?: boolean;
  /** A literal script inside the command line (`bash -c '…'`) that does not parse. */
  unparseable?: boolean;
  /**
   * A file it runs as a shell script, and from where: `bash x.sh` and `source x.sh` (`viaShell`), or
   * `./x.sh` run as a program (a shell script when its `#!` line names a shell, or it has none).
   */
  scriptFile?: { word: ShellWord; folders: FolderSet; viaShell: boolean };
}

/** The folders a relative path may start from: where the command starts, and wherever `cd` may take it. */
export interface FolderSet {
  paths: readonly string[];
  /** A `cd` whose target only running tells: the shell may be anywhere. */
  unknown: boolean;
}

export interface FileEffect extends FileTarget {
  /** The command or redirection that does it, for messages. */
  via: string;
  folders: FolderSet;
}

export type ShellAnalysis =
  | {
      ok: true;
      runs: ProgramRun[];
      files: FileEffect[];
      /** Where the shell may be, and its `$HOME` (undefined once the line may have changed it), after the line. */
      folders: FolderSet;
      home: string | undefined;
      /** The variables of src/policy/shell-location-variables.ts the line may set, with those set before it. */
      locationVariables: string[];
    }
  | { ok: false; error: string };

export interface AnalysisOptions {
  folders: FolderSet;
  /** `$HOME`, for `~` and a bare `cd`. */
  home?: string;
  /** CDPATH is set: `cd name` may go elsewhere than `./name`. */
  cdpath?: boolean;
  /** A variable that points git at another repository or work tree is set (GIT_DIR, GIT_WORK_TREE, …). */
  gitElsewhere?: string;
  /** The variables of src/policy/shell-location-variables.ts set in the shell before the line. */
  locationVariables?: readonly string[];
}

interface State {
  runs: ProgramRun[];
  files: FileEffect[];
  folders: { paths: string[]; unknown: boolean };
  home: string | undefined;
  cdpath: boolean;
  locationVariables: Set<string>;
  /**
   * Why what git holds now does not tell what a git command of the line will change: an earlier git
   * command of the line may change it, or a variable points git elsewhere (src/policy/shell-tree-writes.ts).
   */
  gitUnknown?: string;
}

/** Levels of commands inside commands (`sudo timeout 5 bash -c "eval '…'"`) judged before giving up. */
const MAX_LEVELS = 12;
/** Folders tracked through `cd` before the shell counts as anywhere. */
const MAX_FOLDERS = 8;

export function analyzeShellCommand(commandLine: string, options: AnalysisOptions): ShellAnalysis {
  const parsed = parseShellScript(commandLine);
  if (!parsed.ok) return { ok: false, error: parsed.error };
  const state: State = {
    runs: [],
    files: [],
    folders: { paths: [...options.folders.paths], unknown: options.folders.unknown },
    home: options.home,
    cdpath: options.cdpath === true,
    locationVariables: new Set(options.locationVariables),
    gitUnknown: options.gitElsewhere && gitElsewhereReason(options.gitElsewhere),
  };
  walkScript(parsed.parsed, state, 0);
  return {
    ok: true,
    runs: state.runs,
    files: state.files,
    folders: snapshot(state),
    home: state.home,
    locationVariables: [...state.locationVariables],
  };
}

function walkScript(script: ParsedScript, state: State, level: number): void {
  const piped: [number, number][] = [];
  const numbers = numberScope(script);
  script.walk(script.file, (node) => {
    const type = script.typeOf(node);
    const risk = evaluationRisk(node, script, numbers);
    // a command of its own below records its risk with its text; an expansion in a word, here
    if (risk && type !== "LetClause" && type !== "TestClause" && type !== "ArithmCmd")
      state.runs.push(unknownRun(script.textOf(node), risk));
    switch (type) {
      case "BinaryCmd": {
        const at = (node.OpPos as { Offset(): number }).Offset();
        const operator = script.between(at, at + 2);
        const right = node.Y as ShNode;
        if (operator.startsWith("|") && operator !== "||")
          piped.push([right.Pos().Offset(), right.End().Offset()]);
        break;
      }
      case "Stmt": {
        const start = node.Pos().Offset();
        const end = node.End().Offset();
        const isPiped = piped.some(([from, to]) => start >= from && end <= to);
        analyzeStatement(node, script, state, level, isPiped);
        break;
      }
      case "DeclClause":
        analyzeDeclaration(node, script, state, level);
        break;
      case "LetClause":
      case "TestClause":
      case "ArithmCmd": {
        const text = oneLine(script.textOf(node));
        state.runs.push({ label: text, text, looseSpellings: [], ...(risk ? { unknown: risk } : {}) });
        break;
      }
      case "Redirect":
        recordRedirect(node, script, state);
        break;
      // `for f in dir/*`, `a=(dir/*)`: the shell lists the folders its globs name
      case "WordIter":
        for (const item of node.Items as ShNode[])
          listGlob(readWord(item, script, state.home), "for … in", state);
        break;
      case "ArrayElem":
        if (node.Value) listGlob(readWord(node.Value as ShNode, script, state.home), "an array", state);
        break;
    }
    return true;
  });
}

function listGlob(word: ShellWord, via: string, state: State): void {
  for (const target of globListing(word)) addFile(target, via, state);
}

function analyzeStatement(stmt: ShNode, script: ParsedScript, state: State, level: number, piped: boolean) {
  const call = stmt.Cmd as ShNode | null;
  if (!call || script.typeOf(call) !== "CallExpr") return;
  const assigns = (call.Assigns as ShNode[]).map((assign) => readAssign(assign, script, state));
  for (const assign of assigns) noteVariable(assign.name, state);
  const words = (call.Args as ShNode[]).map((word) => readWord(word, script, state.home));
  for (const assign of assigns) {
    const found = commandsInAssignment(assign.name, assign.valueWord);
    runScripts(found.scripts, state, level);
    configEffects(found, assign.word.written, state);
  }
  if (words.length === 0) {
    if (assigns.length > 0)
      state.runs.push(
        programRun(
          [],
          assigns.map((assign) => assign.word),
          {},
        ),
      );
    return;
  }
  interpretCommand(
    words,
    assigns.map((assign) => assign.word),
    state,
    {
      level,
      stdin: standardInput(stmt, script, state, piped),
    },
  );
}

interface CommandContext {
  level: number;
  stdin: StandardInput;
  /** xargs adds arguments from its standard input. */
  openEnded?: boolean;
  /** The runner around it vouches for it (`npx vitest`): deny and ask rules judge it, allow rules the runner. */
  vouched?: boolean;
}

function interpretCommand(words: ShellWord[], assigns: ShellWord[], state: State, context: CommandContext) {
  const program = words[0] as ShellWord;
  if (context.level > MAX_LEVELS) {
    state.runs.push(unknownRun(wordsText(words), "it nests commands too deeply to judge"));
    return;
  }
  if (program.value === undefined) {
    state.runs.push(programRun(words, assigns, { unknown: "its program is known only when it runs" }));
    return;
  }
  const name = baseName(program.value);
  const unwrapped = unwrapCommand(name, words, context.stdin);
  const git = name === "git" ? readGit(words) : undefined;
  const inOptions = commandsInOptions(name, words);
  const find = name === "find" ? readFind(words) : undefined;
  const variables = variablesSetBy(name, words);
  const runsSomething = (unwrapped?.inner?.length ?? 0) > 0 || (unwrapped?.scripts?.length ?? 0) > 0;
  const run = programRun(words, assigns, {
    unknown: unwrapped?.unknown ?? git?.unknown ?? inOptions?.unknown ?? variables?.unknown,
    wrapper:
      (unwrapped?.transparent === true && runsSomething && isSystemProgram(program.value)) ||
      context.vouched === true,
    openEnded: context.openEnded,
    spelling: git?.spelling,
  });
  const scriptFile = unwrapped?.scriptFile ?? (program.value.includes("/") ? program : undefined);
  if (scriptFile)
    run.scriptFile = { word: scriptFile, folders: snapshot(state), viaShell: !!unwrapped?.scriptFile };
  state.runs.push(run);
  // running a script reads it: Read rules judge it like any read
  if (unwrapped?.scriptFile) addFile({ kind: "read", word: unwrapped.scriptFile }, run.label, state);
  for (const file of unwrapped?.startupFiles ?? []) addFile({ kind: "read", word: file }, run.label, state);
  // what xargs appends is more operands, named only when it runs
  const operands = context.openEnded ? [...words, { written: "…" }] : words;
  // a program of code (sqlite3, awk) is scanned whatever its words run
  const interpreter = isInterpreter(name);
  const named =
    knowsFilesOf(name) || find || (unwrapped && !takesCode(name))
      ? []
      : filesNamedByUnknownProgram(name, words, interpreter);
  const fed =
    context.stdin.kind === "script" && (interpreter || takesCode(name))
      ? pathsInFedCode(context.stdin.text)
      : [];
  // `make -C dir --eval …`, `env -C dir prog`: what it names and runs leads from there
  if (unwrapped?.chdir) moveFolders("cd", [literalWord("cd"), unwrapped.chdir], state);
  // `env GIT_DIR=… git reset --hard`: the variable holds for the command env runs
  for (const assignment of unwrapped?.assignments ?? []) noteVariable(assignedName(assignment), state);
  const tree = treeWritesOf(name, words, context.stdin, state.gitUnknown);
  if (name === "git" && changesGitState(words))
    state.gitUnknown ??= `"${run.label}" before it in the same line changes what git holds; run it as a command of its own`;
  for (const target of [
    ...fileTargetsOf(name, operands),
    ...(find?.targets ?? []),
    ...named,
    ...fed,
    ...tree,
  ])
    addFile(target, run.label, state);
  if (name === "cd" || name === "pushd" || name === "popd") moveFolders(name, words, state);
  const next = { level: context.level + 1, stdin: context.stdin };
  if (unwrapped?.inner && unwrapped.inner.length > 0) {
    interpretCommand(unwrapped.inner, [], state, {
      ...next,
      openEnded: unwrapped.openEnded,
      vouched: unwrapped.vouched,
    });
  }
  for (const [index, command] of (find?.commands ?? []).entries()) {
    if (command.length === 0) continue;
    // -execdir runs in each found file's folder: its relative paths lead from a folder only running tells
    const inFound = find?.inFoundFolders[index] === true;
    const wasUnknown = state.folders.unknown;
    if (inFound) state.folders.unknown = true;
    interpretCommand(command, [], state, { ...next, stdin: { kind: "none" } });
    // the command ran in a process of its own: the shell itself is where it was
    if (inFound) state.folders.unknown = wasUnknown;
  }
  for (const variable of variables?.names ?? [])
    setToUnknown(variable, `${variable} (set by ${name})`, state);
  const hidden = [...(git?.scripts ?? []), ...(inOptions?.scripts ?? []), ...(variables?.scripts ?? [])];
  runScripts([...(unwrapped?.scripts ?? []), ...hidden], state, context.level);
  for (const assignment of unwrapped?.assignments ?? []) {
    const found = commandsInAssignmentWord(assignment);
    runScripts(found.scripts, state, context.level);
    configEffects(found, assignment.written, state);
  }
}

/** What a variable makes a program do besides its scripts: unknown code, files it reads, files it writes. */
function configEffects(found: ConfigCommands, via: string, state: State): void {
  if (found.unknown) state.runs.push(unknownRun(via, found.unknown));
  for (const file of found.files ?? []) addFile({ kind: "read", word: file }, via, state);
  for (const file of found.writes ?? []) addFile({ kind: "write", word: file }, via, state);
}

/** Literal scripts are judged like command lines of their own; one known only when running is unknown. */
function runScripts(scripts: readonly ShellWord[], state: State, level: number): void {
  for (const script of scripts) {
    if (script.value === undefined) {
      state.runs.push(unknownRun(script.written, "it runs a script known only when it runs"));
      continue;
    }
    if (level + 1 > MAX_LEVELS) {
      state.runs.push(unknownRun(script.value, "it nests commands too deeply to judge"));
      continue;
    }
    const parsed = parseShellScript(script.value);
    if (!parsed.ok) {
      const text = oneLine(script.value);
      state.runs.push({ label: text, text, looseSpellings: [], unparseable: true });
      continue;
    }
    walkScript(parsed.parsed, state, level + 1);
  }
}

function programRun(
  words: readonly ShellWord[],
  assigns: readonly ShellWord[],
  options: { unknown?: string; wrapper?: boolean; openEnded?: boolean; spelling?: ShellWord[] },
): ProgramRun {
  const label = oneLine([...assigns, ...words].map((word) => word.written).join(" "));
  const more = options.openEnded ? " …" : "";
  const bare = words.map(spelled).join(" ") + more;
  const text = [...assigns.map(spelled), bare].filter((part) => part !== "").join(" ");
  const spellings = [bare, ...baseNameSpelling(words, more)];
  if (options.spelling)
    spellings.push(options.spelling.map(spelled).join(" "), ...baseNameSpelling(options.spelling, ""));
  const looseSpellings = [...new Set(spellings)].filter(
    (spelling) => spelling !== "" && spelling !== text && spelling !== label,
  );
  const run: ProgramRun = { label, text, looseSpellings };
  if (options.unknown) run.unknown = options.unknown;
  if (options.wrapper) run.wrapper = true;
  return run;
}

/** `/bin/rm x` is also `rm x` to deny and ask rules. */
function baseNameSpelling(words: readonly ShellWord[], more: string): string[] {
  const program = words[0]?.value;
  if (program === undefined || !program.includes("/")) return [];
  return [[literalWord(baseName(program)), ...words.slice(1)].map(spelled).join(" ") + more];
}

function unknownRun(text: string, unknown: string): ProgramRun {
  const label = oneLine(text);
  return { label, text: label, looseSpellings: [], unknown };
}

/** Programs a wrapper may be trusted to be: a bare name (looked up on PATH) or one in a system folder. */
function isSystemProgram(program: string): boolean {
  return !program.includes("/") || /^\/(usr\/)?(local\/)?s?bin\/[^/]+$/.test(program);
}

interface AssignWord {
  name: string;
  word: ShellWord;
  valueWord: ShellWord | undefined;
}

function readAssign(assign: ShNode, script: ParsedScript, state: State): AssignWord {
  const name = String((assign.Name as ShNode | null)?.Value ?? "");
  const valueNode = assign.Value as ShNode | null;
  const written = script.textOf(assign);
  const valueWord = valueNode ? readWord(valueNode, script, state.home) : undefined;
  if (assign.Array || assign.Index) return { name, word: { written }, valueWord: undefined };
  const value = valueWord ? valueWord.value : "";
  return {
    name,
    word: value === undefined ? { written } : { written, value: `${name}=${value}` },
    valueWord,
  };
}

/** A CDPATH makes `cd name` go wherever it says; a new HOME makes `~` and a bare `cd` unknown. */
function noteVariable(name: string, state: State): void {
  if (name === "CDPATH") state.cdpath = true;
  if (name === "HOME") state.home = undefined;
  if (LOCATION_VARIABLES.includes(name)) state.locationVariables.add(name);
  if (GIT_LOCATION_VARIABLES.has(name)) state.gitUnknown ??= gitElsewhereReason(name);
}

function gitElsewhereReason(name: string): string {
  return `${name} is set: git works on another repository or work tree than the folder's, and only running tells which files it changes`;
}

/** The name of an assignment word (`GIT_DIR=x` → GIT_DIR); empty when it is known only when it runs. */
function assignedName(word: ShellWord): string {
  const text = word.value ?? word.written;
  return /^[A-Za-z_][A-Za-z0-9_]*(?=\+?=)/.exec(text)?.[0] ?? "";
}

/** A variable a builtin sets to what only running tells (`read PATH`, `declare -n p=HOME`). */
function setToUnknown(name: string, written: string, state: State): void {
  noteVariable(name, state);
  const found = commandsInAssignment(name, { written });
  if (found.unknown) state.runs.push(unknownRun(written, found.unknown));
}

/**
 * `export`, `declare`, `local`, `readonly`: judged as written; a command-holding variable is judged too.
 * A quoted word is an assignment bash parses again (`declare "b=($x)"` runs what the parentheses hold);
 * `-n` makes a name another variable's, set by whatever is assigned to it later; `-i` makes a value arithmetic.
 */
function analyzeDeclaration(node: ShNode, script: ParsedScript, state: State, level: number): void {
  const text = oneLine(script.textOf(node));
  const args = (node.Args as ShNode[] | null) ?? [];
  const flags = args
    .filter((assign) => !assign.Name && assign.Value)
    .map((assign) => readWord(assign.Value as ShNode, script, state.home).value ?? "")
    .filter((flag) => /^[-+]/.test(flag))
    .join(" ");
  const reference =
    /(^| )-[a-zA-Z]*n/.test(flags) || String((node.Variant as ShNode | null)?.Value) === "nameref";
  state.runs.push({ label: text, text, looseSpellings: [] });
  for (const assign of args) {
    if (!assign.Name) {
      const word = assign.Value ? readWord(assign.Value as ShNode, script, state.home) : undefined;
      const value = word?.value;
      if (word === undefined || value?.startsWith("-") || value?.startsWith("+")) continue;
      if (value === undefined) state.runs.push(unknownRun(word.written, NAME_RUNS));
      else if (isPlainName(value)) {
        if (reference) setToUnknown(value, word.written, state);
      } else runScripts([word], state, level);
      continue;
    }
    const read = readAssign(assign, script, state);
    if (reference) {
      const target = read.valueWord?.value;
      if (target === undefined || !isPlainName(target))
        state.runs.push(unknownRun(read.word.written, NAME_RUNS));
      else setToUnknown(target.replace(/\[.*$/, ""), read.word.written, state);
    }
    const number = /^-?[0-9]+$/.test(read.valueWord?.value ?? "0");
    if (/(^| )-[a-zA-Z]*i/.test(flags) && !number)
      state.runs.push(unknownRun(read.word.written, ARITHMETIC_RUNS));
    noteVariable(read.name, state);
    const found = commandsInAssignment(read.name, read.valueWord);
    runScripts(found.scripts, state, level);
    configEffects(found, read.word.written, state);
  }
}

const OUTPUT_OPERATORS = new Set([">", ">>", ">|", "&>", "&>>", "<>", ">&"]);
const INPUT_OPERATORS = new Set(["<", "<>"]);
const HARMLESS_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"]);

function redirectOperator(node: ShNode, script: ParsedScript): string {
  const word = node.Word as ShNode | null;
  const end = word ? word.Pos().Offset() : node.End().Offset();
  // the text before the target, less a leading descriptor number (`2>`): the operator as written
  return script
    .between(node.Pos().Offset(), end)
    .trim()
    .replace(/^(\d+|\{\w+\})/, "");
}

function recordRedirect(node: ShNode, script: ParsedScript, state: State): void {
  const wordNode = node.Word as ShNode | null;
  if (!wordNode || node.Hdoc) return;
  const operator = redirectOperator(node, script);
  const word = readWord(wordNode, script, state.home);
  // `2>&1`, `>&-`: a descriptor, not a file
  if ((operator === ">&" || operator === "<&") && word.value !== undefined && /^(\d+|-)$/.test(word.value))
    return;
  if (operator === "<&") return;
  if (OUTPUT_OPERATORS.has(operator)) addFile({ kind: "write", word }, "redirection", state);
  if (INPUT_OPERATORS.has(operator)) addFile({ kind: "read", word }, "redirection", state);
}

/** Where a command's standard input comes from: a redirection wins over a pipe. */
function standardInput(stmt: ShNode, script: ParsedScript, state: State, piped: boolean): StandardInput {
  for (const redirect of (stmt.Redirs as ShNode[]) ?? []) {
    const operator = redirectOperator(redirect, script);
    const hdoc = redirect.Hdoc as ShNode | null;
    if (hdoc && (operator === "<<" || operator === "<<-"))
      return { kind: "script", text: heredocText(hdoc, script) };
    const word = redirect.Word as ShNode | null;
    if (operator === "<<<" && word) return { kind: "script", text: readWord(word, script, state.home) };
    if (operator === "<" && word) {
      const target = readWord(word, script, state.home);
      return target.value === undefined && target.pattern === undefined
        ? { kind: "script", text: target }
        : { kind: "file", word: target };
    }
  }
  return piped ? { kind: "pipe" } : { kind: "none" };
}

/** A heredoc's text when it has no expansions (a quoted delimiter, or none used). */
function heredocText(hdoc: ShNode, script: ParsedScript): ShellWord {
  const written = script.textOf(hdoc);
  const parts = hdoc.Parts as ShNode[];
  if (parts.some((part) => script.typeOf(part) !== "Lit")) return { written };
  return { written, value: parts.map((part) => String(part.Value)).join("") };
}

function addFile(target: FileTarget, via: string, state: State): void {
  const { value } = target.word;
  if (value !== undefined && (HARMLESS_TARGETS.has(value) || value.startsWith("/dev/fd/"))) return;
  const within = target.word.within;
  if (within) {
    const onlyNames = within.onlyNames ? [...within.onlyNames] : undefined;
    for (const word of within.folders) {
      state.files.push({ ...target, word, recursive: true, onlyNames, via, folders: snapshot(state) });
    }
    return;
  }
  state.files.push({ ...target, via, folders: snapshot(state) });
}

/** `cd DIR` may or may not stay in effect (a subshell, a failed cd): the folder is added, not swapped. */
function moveFolders(name: string, words: readonly ShellWord[], state: State): void {
  const folders = state.folders;
  if (name === "popd") {
    folders.unknown = true;
    return;
  }
  const target = parseArgs(words, 1, {}).operands[0];
  let value = target ? target.value : name === "cd" ? state.home : undefined;
  // `cd -` is $OLDPWD, `pushd +1` rotates the stack
  if (value === undefined || value === "-" || /^[+-]\d/.test(value)) {
    folders.unknown = true;
    return;
  }
  if (state.cdpath && !/^(\/|\.\.?(\/|$))/.test(value)) folders.unknown = true;
  if (!value.startsWith("/")) value = value === "" ? "." : value;
  const moved = folders.paths.map((folder) => (value?.startsWith("/") ? value : `${folder}/${value}`));
  folders.paths = [...new Set([...folders.paths, ...moved])];
  if (folders.paths.length > MAX_FOLDERS) folders.unknown = true;
}

function snapshot(state: State): FolderSet {
  return { paths: [...state.folders.paths], unknown: state.folders.unknown };
}

function wordsText(words: readonly ShellWord[]): string {
  return words.map((word) => word.written).join(" ");
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
