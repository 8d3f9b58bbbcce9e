import { hasOption, optionValues, parseArgs } from "./shell-args.js";
import type { ShellWord } from "./shell-words.js";

/** What sed's scripts do besides editing the stream: `w FILE` writes, `r FILE` reads, `e` runs commands. */
export interface SedScripts {
  /** The files named after `w`/`W` and the `w` flag of `s`. */
  writes: string[];
  reads: string[];
  /** Commands after `e`. */
  commands: string[];
  /** Why what it runs or writes is known only when it runs (`s///e`, a script file, a script built at run time). */
  unknown?: string;
  /** Files edited in place (`-i`). */
  inPlace: ShellWord[];
  /** The files it reads its stream from (also those it edits in place). */
  inputs: ShellWord[];
  /** Its script files (`-f FILE`): read too. */
  scriptFiles: ShellWord[];
}

const SED_SHAPE = {
  valued: ["-e", "--expression", "-f", "--file", "-l", "--line-length"],
  attachedOnly: ["-i"],
  permute: true,
};

export function readSed(words: readonly ShellWord[]): SedScripts {
  const args = parseArgs(words, 1, SED_SHAPE);
  const expressions = optionValues(args, "-e", "--expression");
  const files = optionValues(args, "-f", "--file");
  const scripted = expressions.length > 0 || files.length > 0;
  const scripts = scripted ? expressions : args.operands.slice(0, 1);
  const inputs = scripted ? args.operands : args.operands.slice(1);
  const scriptFiles = files.flatMap((word) => (word ? [word] : []));
  const result: SedScripts = { writes: [], reads: [], commands: [], inPlace: [], inputs, scriptFiles };
  if (hasOption(args, "-i", "--in-place")) result.inPlace = inputs;
  if (files.length > 0) result.unknown = "its script file may write files or run commands";
  for (const script of scripts) {
    if (script?.value === undefined) {
      result.unknown = "its script is known only when it runs";
      continue;
    }
    scanScript(script.value, result);
  }
  return result;
}

/** Walks a sed script command by command (addresses, `s` and `y` skipped over) for w, r and e. */
function scanScript(script: string, result: SedScripts): void {
  let at = 0;
  const restOfLine = () => {
    const end = script.indexOf("\n", at);
    const text = script.slice(at, end < 0 ? script.length : end).trim();
    at = end < 0 ? script.length : end + 1;
    return text;
  };
  while (at < script.length) {
    at = skipAddress(script, at);
    const command = script.charAt(at++);
    if (command === "s" || command === "y") {
      at = skipDelimited(script, at, 2);
      if (command === "y") continue;
      const flags = /^[a-zA-Z0-9]*/.exec(script.slice(at))?.[0] ?? "";
      const write = flags.indexOf("w");
      if (flags.slice(0, write < 0 ? undefined : write).includes("e"))
        result.unknown = "its `s///e` runs text it reads";
      at += write < 0 ? flags.length : write + 1;
      if (write >= 0) result.writes.push(restOfLine());
    } else if (command === "w" || command === "W") result.writes.push(restOfLine());
    else if (command === "r" || command === "R") result.reads.push(restOfLine());
    else if (command === "e") {
      const text = restOfLine();
      if (text === "") result.unknown = "its `e` runs text it reads";
      else result.commands.push(text);
    } else if ("aic:btT".includes(command) && command !== "") restOfLine();
  }
}

/** Past leading blanks, `;`, line addresses (`1`, `$`, `/re/`, `\\cREc`, `a,b`, `~`, `!`). */
function skipAddress(script: string, from: number): number {
  let at = from;
  while (at < script.length) {
    const char = script.charAt(at);
    if (/[\s;0-9$,+~!{}]/.test(char)) at++;
    else if (char === "/") at = skipDelimited(script, at + 1, 1, "/");
    else if (char === "\\") at = skipDelimited(script, at + 2, 1, script.charAt(at + 1));
    else break;
  }
  return at;
}

/** Past `count` parts ended by the delimiter (the character at `from`, unless given), honouring `\\`. */
function skipDelimited(script: string, from: number, count: number, delimiter?: string): number {
  let at = from;
  const end = delimiter ?? script.charAt(at++);
  for (let seen = 0; seen < count && at < script.length; at++) {
    if (script.charAt(at) === "\\") at++;
    else if (script.charAt(at) === end) seen++;
  }
  return at;
}
