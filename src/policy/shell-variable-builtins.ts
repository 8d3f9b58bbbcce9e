import { optionValues, parseArgs } from "./shell-args.js";
import { isPlainName, NAME_RUNS } from "./shell-arithmetic.js";
import type { ShellWord } from "./shell-words.js";

/**
 * Builtins that set variables other than by `NAME=value`: `read NAME`, `printf -v NAME`, `mapfile
 * NAME`, `getopts OPTS NAME`, `wait -p NAME`. The names they set get values known only when they run
 * (`read PATH <<< …` moves PATH as `PATH=$x` does); a name with a subscript known only when it runs is
 * evaluated as arithmetic, as is `test -v NAME`'s; `mapfile -C CALLBACK` runs its callback.
 */
export interface VariableEffects {
  /** Names it sets (without their subscripts), to values known only when it runs. */
  names: string[];
  /** Code it runs (`mapfile -C 'cmd'`), judged as a script. */
  scripts: ShellWord[];
  unknown?: string;
}

const READ_VALUED = ["-a", "-d", "-i", "-n", "-N", "-p", "-t", "-u"];
const MAPFILE_VALUED = ["-C", "-c", "-d", "-n", "-O", "-s", "-u"];

/** What `words` (a builtin first) sets and runs; undefined for a program that sets no variable. */
export function variablesSetBy(name: string, words: readonly ShellWord[]): VariableEffects | undefined {
  const effects: VariableEffects = { names: [], scripts: [] };
  switch (name) {
    case "read": {
      const args = parseArgs(words, 1, { valued: READ_VALUED });
      const named = [...optionValues(args, "-a"), ...args.operands];
      for (const word of named.length > 0 ? named : [{ written: "REPLY", value: "REPLY" }])
        setName(effects, word);
      return effects;
    }
    case "mapfile":
    case "readarray": {
      const args = parseArgs(words, 1, { valued: MAPFILE_VALUED });
      for (const callback of optionValues(args, "-C")) {
        if (callback?.value === undefined) effects.unknown ??= "its callback is known only when it runs";
        else effects.scripts.push(callback);
      }
      setName(effects, args.operands[0] ?? { written: "MAPFILE", value: "MAPFILE" });
      return effects;
    }
    case "printf": {
      const args = parseArgs(words, 1, { valued: ["-v"] });
      for (const word of optionValues(args, "-v")) setName(effects, word);
      return effects;
    }
    case "getopts":
      setName(effects, parseArgs(words, 1, {}).operands[1]);
      return effects;
    case "wait":
      for (const word of optionValues(parseArgs(words, 1, { valued: ["-p"] }), "-p")) setName(effects, word);
      return effects;
    case "test":
    case "[":
      for (const [at, word] of words.entries()) if (word.value === "-v") checkName(effects, words[at + 1]);
      return effects;
    default:
      return undefined;
  }
}

function setName(effects: VariableEffects, word: ShellWord | undefined): void {
  if (!word) return;
  checkName(effects, word);
  const value = word.value;
  if (value !== undefined && isPlainName(value)) effects.names.push(value.replace(/\[.*$/, ""));
}

function checkName(effects: VariableEffects, word: ShellWord | undefined): void {
  if (!word) return;
  if (word.value === undefined || !isPlainName(word.value)) effects.unknown ??= NAME_RUNS;
}
