import type { ShellWord } from "./shell-words.js";

/** How a command reads its options, enough to find its operands (GNU getopt conventions). */
export interface OptionShape {
  /** Options whose value is the next word unless attached (`-n 5`, `-n5`, `--lines=5`). */
  valued?: readonly string[];
  /** Short options whose value can only be attached, and may be empty (`sed -i`, `sed -i.bak`). */
  attachedOnly?: readonly string[];
  /** Options may follow operands (`cp a b -r`), as GNU tools allow; else the first operand ends them. */
  permute?: boolean;
  /** Valued options whose value is a file the program reads (`diff --from-file F`), listed in `valued` too. */
  reads?: readonly string[];
}

export interface ParsedOption {
  /** `-r`, `--recursive`. */
  name: string;
  value?: ShellWord;
}

export interface ParsedArgs {
  options: ParsedOption[];
  operands: ShellWord[];
  /** Index of the first operand when options stop there (not permuted): where a wrapped command starts. */
  operandsAt: number;
}

/** Splits `words[from…]` into options and operands; a word known only when running is an operand. */
export function parseArgs(words: readonly ShellWord[], from: number, shape: OptionShape): ParsedArgs {
  const valued = new Set(shape.valued ?? []);
  const attachedOnly = new Set(shape.attachedOnly ?? []);
  const options: ParsedOption[] = [];
  const operands: ShellWord[] = [];
  let operandsAt = words.length;
  let at = from;
  while (at < words.length) {
    const word = words[at] as ShellWord;
    const value = word.value;
    if (value === "--") {
      operandsAt = Math.min(operandsAt, at + 1);
      operands.push(...words.slice(at + 1));
      break;
    }
    if (value === undefined || !value.startsWith("-") || value === "-") {
      operandsAt = Math.min(operandsAt, at);
      if (!shape.permute) {
        operands.push(...words.slice(at));
        break;
      }
      operands.push(word);
      at++;
      continue;
    }
    at = readOption(words, at, value, { valued, attachedOnly }, options);
  }
  return { options, operands, operandsAt };
}

/** Reads the option at `words[at]` into `options`; returns the index after it (and after its value). */
function readOption(
  words: readonly ShellWord[],
  at: number,
  value: string,
  shape: { valued: Set<string>; attachedOnly: Set<string> },
  options: ParsedOption[],
): number {
  if (value.startsWith("--")) {
    const equals = value.indexOf("=");
    if (equals > 0) {
      options.push({ name: value.slice(0, equals), value: wordOf(value.slice(equals + 1)) });
      return at + 1;
    }
    if (shape.valued.has(value)) {
      options.push({ name: value, value: words[at + 1] });
      return at + 2;
    }
    options.push({ name: value });
    return at + 1;
  }
  for (let index = 1; index < value.length; index++) {
    const name = `-${value.charAt(index)}`;
    const rest = value.slice(index + 1);
    if (shape.attachedOnly.has(name)) {
      options.push({ name, value: wordOf(rest) });
      return at + 1;
    }
    if (shape.valued.has(name)) {
      if (rest !== "") {
        options.push({ name, value: wordOf(rest) });
        return at + 1;
      }
      options.push({ name, value: words[at + 1] });
      return at + 2;
    }
    options.push({ name });
  }
  return at + 1;
}

function wordOf(value: string): ShellWord {
  return { written: value, value };
}

export function hasOption(args: ParsedArgs, ...names: string[]): boolean {
  return args.options.some((option) => names.includes(option.name));
}

export function optionValues(args: ParsedArgs, ...names: string[]): (ShellWord | undefined)[] {
  return args.options.filter((option) => names.includes(option.name)).map((option) => option.value);
}

/** xargs's options, read by its wrapper and its file effects alike. */
export const XARGS_SHAPE: OptionShape = {
  valued: [
    "-a",
    "--arg-file",
    "-d",
    "--delimiter",
    "-E",
    "-I",
    "-L",
    "--max-lines",
    "-n",
    "--max-args",
  ].concat(["-P", "--max-procs", "-s", "--max-chars", "--process-slot-var"]),
  attachedOnly: ["-i", "-l", "-e"],
};

/** script's options (`-c COMMAND`, log files). */
export const SCRIPT_VALUED = ["-c", "--command", "-E", "--echo", "-O", "--log-out", "-I", "--log-in"].concat([
  "-B",
  "--log-io",
  "-T",
  "--log-timing",
  "-m",
  "--logging-format",
]);
