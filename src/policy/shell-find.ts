import { type FileTarget, read, remove, write } from "./shell-files.js";
import { literalWord, type ShellWord } from "./shell-words.js";
import { fillsHole } from "./shell-wrappers.js";

const EXEC_ACTIONS = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
const FILE_ACTIONS: Record<string, number> = { "-fprint": 1, "-fprint0": 1, "-fls": 1, "-fprintf": 2 };
const LEADING_OPTIONS = new Set(["-H", "-L", "-P"]);
const ALTERNATIVES = new Set(["-o", "-or", "!", "-not", ","]);

export interface FindEffects {
  /** Everything below the start folders is listed; `-delete` deletes; `-fprint FILE` writes. */
  targets: FileTarget[];
  /** The commands of `-exec`, `-execdir`, `-ok` and `-okdir`, `{}` standing for each file found. */
  commands: ShellWord[][];
  /** Per command: it runs in the folder of each file found (`-execdir`, `-okdir`), not the shell's. */
  inFoundFolders: boolean[];
}

/** `find [-H|-L|-P] [START…] [EXPRESSION]`. */
export function readFind(words: readonly ShellWord[]): FindEffects {
  let at = 1;
  while (at < words.length) {
    const value = words[at]?.value ?? "";
    if (LEADING_OPTIONS.has(value) || /^-O\d*$/.test(value)) at++;
    else if (value === "-D") at += 2;
    else break;
  }
  const starts: ShellWord[] = [];
  for (; at < words.length; at++) {
    const value = (words[at] as ShellWord).value;
    if (value !== undefined && (value.startsWith("-") || ["(", ")", "!", ","].includes(value))) break;
    starts.push(words[at] as ShellWord);
  }
  if (starts.length === 0) starts.push(literalWord("."));
  const expression = readExpression(words, at);
  const targets = [...starts.map((word) => read(word, { recursive: true })), ...expression.targets];
  const onlyNames = expression.alternatives ? undefined : expression.names;
  if (expression.deletes) targets.push(...starts.map((word) => remove(word, { recursive: true, onlyNames })));
  const found = { folders: starts, onlyNames };
  const commands = expression.commands.map((command) => command.map((word) => foundPath(word, found)));
  return { targets, commands, inFoundFolders: expression.inFoundFolders };
}

function readExpression(words: readonly ShellWord[], from: number) {
  const result = {
    targets: [] as FileTarget[],
    commands: [] as ShellWord[][],
    inFoundFolders: [] as boolean[],
    names: [] as string[],
    alternatives: false,
    deletes: false,
  };
  let at = from;
  while (at < words.length) {
    const word = words[at] as ShellWord;
    const value = word.value ?? "";
    if (EXEC_ACTIONS.has(value)) {
      const end = commandEnd(words, at + 1);
      result.commands.push(words.slice(at + 1, end));
      result.inFoundFolders.push(value === "-execdir" || value === "-okdir");
      at = end + 1;
      continue;
    }
    if (Object.hasOwn(FILE_ACTIONS, value)) {
      const file = words[at + 1];
      if (file) result.targets.push(write(file));
      at += 1 + (FILE_ACTIONS[value] as number);
      continue;
    }
    if (value === "-name" || value === "-iname") {
      const pattern = words[at + 1];
      const text = pattern?.value ?? pattern?.pattern;
      // a name known only when running could be any name
      if (text === undefined) result.alternatives = true;
      else result.names.push(text);
      at += 2;
      continue;
    }
    if (value === "-delete") result.deletes = true;
    if (ALTERNATIVES.has(value) || word.value === undefined) result.alternatives = true;
    at++;
  }
  return result;
}

/** `{}` is each path found below the start folders; a word that only holds it (`{}.bak`) is unknown. */
function foundPath(word: ShellWord, found: NonNullable<ShellWord["within"]>): ShellWord {
  if (word.value === "{}") return { written: word.written, within: found };
  return fillsHole(word, ["{}"]);
}

/** The `;` (or `{} +`) that ends an -exec command. */
function commandEnd(words: readonly ShellWord[], from: number): number {
  for (let at = from; at < words.length; at++) {
    const value = words[at]?.value;
    if (value === ";") return at;
    if (value === "+" && words[at - 1]?.value === "{}") return at;
  }
  return words.length;
}
