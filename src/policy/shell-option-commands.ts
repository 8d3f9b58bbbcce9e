import type { ShellWord } from "./shell-words.js";

/**
 * Commands hidden in a program's options, which it hands to a shell (or runs as a program) itself:
 * `tar --to-command='rm x'`, `tar -I CMD`, `ssh -o ProxyCommand=CMD`, `rsync -e CMD`, `zip -TT CMD`,
 * `sort --compress-program=PROG`, `man -P CMD`. Judged like `sh -c` scripts.
 */
export interface OptionCommands {
  scripts: ShellWord[];
  unknown?: string;
}

interface CommandOptions {
  /** Options whose value (next word, or after `=`) is a command line. */
  valued: readonly string[];
  /** `-o KEY=VALUE` options whose listed keys (lower case) hold a command line (ssh's ProxyCommand). */
  keyed?: { option: string; keys: ReadonlySet<string> };
  /** `--option=exec=CMD`-style values: a prefix before the command. */
  prefixed?: Readonly<Record<string, string>>;
  /** The valued options run their program on arguments only running tells (`rg --pre=CMD` on each file). */
  withArguments?: string;
  /** Valued options that swap in a program or code named by a file (`npm --script-shell=FILE`): known only when it runs. */
  swapping?: readonly string[];
}

const SSH_COMMAND_KEYS = new Set(["proxycommand", "localcommand", "knownhostscommand", "remotecommand"]);
const SSH_LIKE: CommandOptions = { valued: ["-S"], keyed: { option: "-o", keys: SSH_COMMAND_KEYS } };

/** npm's settings that swap the shell its scripts run in, or the code node loads for them. */
const NPM_SWAPPING = ["--script-shell", "--shell", "--node-options", "--userconfig", "--globalconfig"];

const PROGRAMS: Record<string, CommandOptions> = {
  tar: {
    valued: [
      "-I",
      "--use-compress-program",
      "--to-command",
      "-F",
      "--info-script",
      "--new-volume-script",
      "--rsh-command",
    ],
    prefixed: { "--checkpoint-action": "exec=" },
  },
  zip: { valued: ["-TT", "--unzip-command"] },
  rsync: { valued: ["-e", "--rsh"] },
  sort: { valued: ["--compress-program"] },
  man: { valued: ["-P", "--pager"] },
  ssh: { valued: [], keyed: { option: "-o", keys: SSH_COMMAND_KEYS } },
  scp: SSH_LIKE,
  sftp: SSH_LIKE,
  rg: { valued: ["--pre"], withArguments: "rg --pre runs its program on each file it searches" },
  npm: { valued: [], swapping: NPM_SWAPPING },
  pnpm: { valued: [], swapping: NPM_SWAPPING },
  yarn: { valued: [], swapping: NPM_SWAPPING },
};

/** The command lines `words` (program first) carries in its options; undefined when none. */
export function commandsInOptions(name: string, words: readonly ShellWord[]): OptionCommands | undefined {
  const shape = Object.hasOwn(PROGRAMS, name) ? PROGRAMS[name] : undefined;
  if (!shape) return undefined;
  const found: OptionCommands = { scripts: [] };
  for (let at = 1; at < words.length; at++) {
    const word = words[at] as ShellWord;
    const value = word.value;
    if (value === undefined) continue;
    const next = words[at + 1];
    const swapped = shape.swapping?.find((option) => value === option || value.startsWith(`${option}=`));
    if (swapped) {
      found.unknown ??= `${swapped} makes it run a program or code named only when it runs`;
      continue;
    }
    if (shape.valued.includes(value)) {
      take(found, next, `${value} is a command known only when it runs`);
      at++;
      continue;
    }
    const attached = attachedValue(value, shape);
    if (attached) take(found, attached, `${value} is a command known only when it runs`);
    const keyed = shape.keyed;
    if (keyed && value.startsWith(keyed.option)) {
      const setting =
        value === keyed.option ? next : { written: value, value: value.slice(keyed.option.length) };
      if (value === keyed.option) at++;
      keyedCommand(found, setting, keyed.keys);
    }
  }
  if (shape.withArguments && found.scripts.length > 0)
    found.unknown ??= `${shape.withArguments}, with arguments known only when it runs`;
  return found.scripts.length > 0 || found.unknown ? found : undefined;
}

/** `--to-command=CMD`, `-ICMD`, `--checkpoint-action=exec=CMD`. */
function attachedValue(value: string, shape: CommandOptions): ShellWord | undefined {
  for (const option of shape.valued) {
    const long = option.startsWith("--");
    const prefix = long ? `${option}=` : option;
    if (value.startsWith(prefix) && value.length > prefix.length) return literal(value.slice(prefix.length));
  }
  for (const [option, marker] of Object.entries(shape.prefixed ?? {})) {
    const prefix = `${option}=${marker}`;
    if (value.startsWith(prefix)) return literal(value.slice(prefix.length));
  }
  return undefined;
}

/** `ProxyCommand=CMD` or `ProxyCommand CMD` (ssh takes both spellings). */
function keyedCommand(
  found: OptionCommands,
  setting: ShellWord | undefined,
  keys: ReadonlySet<string>,
): void {
  if (!setting) return;
  const text = setting.value;
  if (text === undefined) {
    found.unknown ??= "its options are known only when it runs";
    return;
  }
  const split = /^\s*([A-Za-z]+)\s*(?:=|\s)\s*([\s\S]*)$/.exec(text);
  if (split && keys.has((split[1] as string).toLowerCase())) found.scripts.push(literal(split[2] as string));
}

function take(found: OptionCommands, word: ShellWord | undefined, unknown: string): void {
  if (!word) return;
  if (word.value === undefined) found.unknown ??= unknown;
  else found.scripts.push(word);
}

function literal(value: string): ShellWord {
  return { written: value, value };
}
