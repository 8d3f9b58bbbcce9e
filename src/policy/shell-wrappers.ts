import {
  hasOption,
  type OptionShape,
  optionValues,
  type ParsedArgs,
  parseArgs,
  SCRIPT_VALUED,
  XARGS_SHAPE,
} from "./shell-args.js";
import { fromStandardInput, unwrapRunner } from "./shell-runners.js";
import { readSed } from "./shell-sed.js";
import { joinWords, type ShellWord } from "./shell-words.js";

/**
 * Commands that run another command (SPEC §5: rules judge what will run): `timeout 5 rm x` runs
 * `rm x`, `bash -c 'rm x'` and `eval 'rm x'` run the script `rm x`, `find -exec rm {} ;` runs `rm`.
 */
export interface Unwrapped {
  /** The command it runs, word by word. */
  inner?: ShellWord[];
  /** Scripts it hands to a shell (`sh -c`, `eval`, `trap`): judged like a command line of their own. */
  scripts?: ShellWord[];
  /** It only runs what it wraps (timeout, nice, eval…): allow rules need to cover only that. */
  transparent: boolean;
  /** It adds arguments read from standard input (xargs). */
  openEnded?: boolean;
  /**
   * The runner's own line is what allow rules judge (`Bash(npx vitest:*)` allows `npx vitest run`, as
   * in Claude Code): the command it runs needs no allow rule of its own; deny and ask rules judge it.
   */
  vouched?: boolean;
  /** Why what it runs is known only when it runs. */
  unknown?: string;
  /** The folder it runs the command in (`env -C dir`). */
  chdir?: ShellWord;
  /** Variables it sets for the command (`env NAME=VALUE`), as `NAME=VALUE` words. */
  assignments?: ShellWord[];
  /** A file it runs as a shell script (`bash x.sh`, `source x.sh`): judged by its content where readable. */
  scriptFile?: ShellWord;
  /** Files it runs before its script (`bash --rcfile FILE -i`): reads, which Read rules judge. */
  startupFiles?: ShellWord[];
}

interface SimpleWrapper extends OptionShape {
  /** Operands before the command: timeout's duration, chroot's folder. */
  operands?: number;
  transparent: boolean;
  /** Options with which it runs no command (`sudo -l`, `sudo -e FILE` edits files instead). */
  noCommandWith?: readonly string[];
  /** Options whose value is the folder the command runs in (`unshare --wd DIR`, `sudo -D DIR`). */
  chdirWith?: readonly string[];
}

const SIMPLE_WRAPPERS: Record<string, SimpleWrapper> = {
  builtin: { transparent: true },
  exec: { valued: ["-a"], transparent: true },
  nohup: { transparent: true },
  nice: { valued: ["-n", "--adjustment"], transparent: true },
  timeout: { valued: ["-s", "--signal", "-k", "--kill-after"], operands: 1, transparent: true },
  time: { valued: ["-f", "--format", "-o", "--output"], transparent: true },
  stdbuf: { valued: ["-i", "-o", "-e", "--input", "--output", "--error"], transparent: true },
  setsid: { transparent: true },
  ionice: { valued: ["-c", "--class", "-n", "--classdata", "-t"], transparent: true },
  taskset: { transparent: true, operands: 1 },
  chrt: { valued: ["-T", "-P", "-D"], operands: 1, transparent: true },
  unbuffer: { transparent: true },
  chronic: { transparent: true },
  catchsegv: { transparent: true },
  busybox: { transparent: true },
  toybox: { transparent: true },
  eatmydata: { transparent: true },
  ccache: { transparent: true },
  fakeroot: { valued: ["-l", "--lib", "--faked", "-i", "-s", "-b"], transparent: true },
  "xvfb-run": {
    valued: [
      "-n",
      "--server-num",
      "-s",
      "--server-args",
      "-f",
      "--auth-file",
      "-e",
      "--error-file",
      "-p",
      "-w",
    ],
    transparent: true,
  },
  "dbus-run-session": { valued: ["--config-file", "--dbus-daemon"], transparent: true },
  numactl: {
    valued: [
      "-N",
      "-C",
      "-m",
      "-i",
      "-p",
      "--cpunodebind",
      "--physcpubind",
      "--membind",
      "--interleave",
      "--preferred",
    ],
    transparent: true,
  },
  prlimit: { valued: ["-p", "--pid", "-o", "--output"], transparent: true, noCommandWith: ["-p", "--pid"] },
  faketime: { valued: ["-m", "-f"], operands: 1, transparent: true },
  proxychains: { valued: ["-f"], transparent: true },
  proxychains4: { valued: ["-f"], transparent: true },
  torsocks: {
    valued: ["-u", "--user", "-p", "--pass", "-a", "--address", "-P", "--port"],
    transparent: true,
  },
  tsocks: { transparent: true },
  valgrind: { transparent: false },
  firejail: { transparent: false },
  "flatpak-spawn": { valued: ["--directory"], chdirWith: ["--directory"], transparent: false },
  chpst: {
    valued: ["-u", "-U", "-b", "-e", "-/", "-n", "-l", "-L", "-m", "-d", "-o", "-p", "-f", "-c", "-r", "-t"],
    transparent: false,
  },
  gosu: { operands: 1, transparent: false },
  "su-exec": { operands: 1, transparent: false },
  setuidgid: { operands: 1, transparent: false },
  "systemd-run": {
    valued: [
      ..."-p --property -u --unit -E --setenv --uid --gid --nice -M --machine -H --host --working-directory".split(
        " ",
      ),
      ..."--slice --description --on-calendar --on-active --on-boot --on-startup --timer-property".split(" "),
    ],
    chdirWith: ["--working-directory"],
    transparent: false,
  },
  strace: {
    valued: ["-o", "-e", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-S", "-X", "-P"],
    transparent: true,
  },
  ltrace: { valued: ["-o", "-e", "-s", "-u", "-a", "-n"], transparent: true },
  sudo: {
    valued: [
      ..."-u -g -h -p -C -D -r -t -U -T --user --group --host --chdir --prompt --role --type".split(" "),
      ..."--close-from --other-user --command-timeout".split(" "),
    ],
    chdirWith: ["-D", "--chdir"],
    transparent: false,
    noCommandWith: ["-e", "--edit", "-l", "--list", "-v", "--validate", "-k", "-K", "-V"],
  },
  doas: { valued: ["-u", "-C"], transparent: false },
  chroot: { valued: ["--userspec", "--groups"], operands: 1, transparent: false },
  runuser: { valued: ["-u", "-g", "-G", "--user", "--group"], transparent: false },
  setpriv: {
    valued: ["--reuid", "--regid", "--groups", "--inh-caps", "--ambient-caps", "--bounding-set"].concat([
      "--securebits",
      "--pdeathsig",
      "--selinux-label",
      "--apparmor-profile",
      "--landlock-access",
      "--landlock-rule",
    ]),
    transparent: false,
  },
  pkexec: { valued: ["--user"], transparent: false },
  unshare: {
    valued: [
      "-S",
      "--setuid",
      "-G",
      "--setgid",
      "-R",
      "--root",
      "-w",
      "--wd",
      "--propagation",
      "--setgroups",
    ],
    chdirWith: ["-w", "--wd"],
    transparent: false,
  },
  nsenter: {
    valued: ["-t", "--target", "-S", "--setuid", "-G", "--setgid"],
    attachedOnly: ["-w"],
    chdirWith: ["-w", "--wd"],
    transparent: false,
  },
};

/** Files that are the command's own standard input: a shell or `source` reading one reads its stdin. */
const STANDARD_INPUT_FILES = new Set(["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"]);

/** Shells whose `-c` string is a script, and that read a script from a file or standard input otherwise. */
export const SHELLS = new Set(["bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "yash", "fish"]);
/** Interpreters that read their program from standard input when given no script and no inline code. */
const INTERPRETERS = new Set(["python", "python3", "python2", "node", "perl", "ruby", "php", "lua", "bun"]);
/** Whether `name` runs a program in a language other than the shell's (python3, node, perl…). */
export const isInterpreter = (name: string): boolean => INTERPRETERS.has(name) || /^python3\.\d+$/.test(name);
const INLINE_CODE = new Set(["-c", "-e", "-E", "-m", "-r", "-p", "--eval", "--print", "--command"]);

/** How a command receives standard input, for shells that would run it. */
export type StandardInput =
  | { kind: "pipe" }
  | { kind: "script"; text: ShellWord }
  | { kind: "file"; word: ShellWord }
  | { kind: "none" };

const UNKNOWN_SCRIPT = "it runs a script known only when it runs";
const STARTUP_OPTIONS = ["--rcfile", "--init-file", "-i", "--login", "-l"];

/** What `words` (program first, already known) runs; undefined when it wraps nothing. */
export function unwrapCommand(
  name: string,
  words: readonly ShellWord[],
  stdin: StandardInput,
): Unwrapped | undefined {
  // `runuser [-] USER -c COMMAND` is su's form
  if (
    name === "runuser" &&
    words.some((word) => /^(-c|--command|--session-command)(=|$)/.test(word.value ?? ""))
  )
    return unwrapSu(words);
  const simple = Object.hasOwn(SIMPLE_WRAPPERS, name) ? SIMPLE_WRAPPERS[name] : undefined;
  if (simple) return unwrapSimple(words, simple);
  if (SHELLS.has(name)) return unwrapShell(words, stdin);
  if (isInterpreter(name)) return unwrapInterpreter(words, stdin);
  switch (name) {
    case "command":
      return unwrapCommandBuiltin(words);
    case "env":
      return unwrapEnv(words);
    case "xargs":
      return unwrapXargs(words);
    case "eval":
      return { scripts: [joinWords(words.slice(1))], transparent: true };
    case "source":
    case ".":
      return unwrapSource(words, stdin);
    case "sed":
      return unwrapSed(words);
    case "script":
      return unwrapScript(words);
    case "trap":
      return unwrapTrap(words);
    case "alias":
      return unwrapAlias(words);
    case "hash":
      return unwrapHash(words);
    case "su":
      return unwrapSu(words);
    case "watch":
      return unwrapWatch(words);
    case "flock":
      return unwrapFlock(words);
    case "sqlite3":
    case "sqlite":
      return unwrapSqlite(words, stdin);
    default:
      return unwrapRunner(name, words, stdin);
  }
}

function unwrapSimple(words: readonly ShellWord[], shape: SimpleWrapper): Unwrapped {
  const args = parseArgs(words, 1, shape);
  if (shape.noCommandWith && hasOption(args, ...shape.noCommandWith)) return { transparent: false };
  const start = args.operandsAt + (shape.operands ?? 0);
  const moved = shape.chdirWith && args.options.find((option) => shape.chdirWith?.includes(option.name));
  // `nsenter --wd` without a folder takes the target process's: known only when it runs
  const chdir = moved ? (moved.value?.value ? moved.value : { written: moved.name }) : undefined;
  return { inner: words.slice(start), transparent: shape.transparent, ...(chdir ? { chdir } : {}) };
}

/** `command -v rm` only looks `rm` up; `command rm x` runs it. */
function unwrapCommandBuiltin(words: readonly ShellWord[]): Unwrapped | undefined {
  const args = parseArgs(words, 1, {});
  if (hasOption(args, "-v", "-V")) return undefined;
  return { inner: words.slice(args.operandsAt), transparent: true };
}

/** `env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]… COMMAND`: assignments make it more than a wrapper. */
function unwrapEnv(words: readonly ShellWord[]): Unwrapped {
  const args = parseArgs(words, 1, {
    valued: ["-u", "--unset", "-C", "--chdir", "-S", "--split-string"],
  });
  let at = args.operandsAt;
  let assigns = 0;
  // env takes every word with a `=` before the command as a variable, names such as `BASH_FUNC_f%%` too
  // `NAME=$x` is a variable too, its value known only when it runs
  const isAssignment = (word: ShellWord | undefined) =>
    /^[^=]+=/.test(word?.value ?? "") ||
    (word?.value === undefined && /^["']?[A-Za-z_][A-Za-z0-9_]*=/.test(word?.written ?? ""));
  while (at < words.length && isAssignment(words[at])) {
    at++;
    assigns++;
  }
  const split = optionValues(args, "-S", "--split-string");
  const chdir = optionValues(args, "-C", "--chdir")[0];
  const rest = words.slice(at);
  const assignments = words.slice(args.operandsAt, at);
  if (split.length > 0) {
    // -S splits its string into the command's first words, as a shell would
    const script = joinWords([...split.map(orUnknown), ...rest]);
    return { scripts: [script], transparent: false, chdir, assignments };
  }
  const plain = assigns === 0 && args.options.length === 0;
  return { inner: rest, transparent: plain, chdir, assignments };
}

/** `xargs [options] [COMMAND [ARGS]]`: runs COMMAND (echo by default) with words from standard input. */
function unwrapXargs(words: readonly ShellWord[]): Unwrapped {
  const args = parseArgs(words, 1, XARGS_SHAPE);
  const replace = [
    ...optionValues(args, "-I").map((word) => word?.value),
    ...args.options
      .filter((option) => option.name === "-i" || option.name === "--replace")
      .map((option) => option.value?.value || "{}"),
  ];
  const inner = words.slice(args.operandsAt);
  const command = inner.length > 0 ? inner : [{ written: "echo", value: "echo" }];
  if (replace.length === 0) return { inner: command, transparent: true, openEnded: true };
  if (replace.some((text) => text === undefined || text === "")) {
    return { transparent: true, unknown: "its replace string is known only when it runs" };
  }
  // with a replace string, standard input is spliced into every word that holds it
  return { inner: command.map((word) => fillsHole(word, replace as string[])), transparent: true };
}

/** A word a command fills in when it runs (`{}` for find -exec and xargs -I) becomes unknown. */
export function fillsHole(word: ShellWord, holes: readonly string[]): ShellWord {
  const text = word.value ?? word.pattern;
  return text !== undefined && holes.some((hole) => text.includes(hole)) ? { written: word.written } : word;
}

/** `bash -c SCRIPT`, `bash FILE`, or `bash` reading its script from standard input. */
function unwrapShell(words: readonly ShellWord[], stdin: StandardInput): Unwrapped {
  const args = parseArgs(words, 1, { valued: ["-o", "+o", "-O", "+O", "--rcfile", "--init-file"] });
  const startupFiles = optionValues(args, "--rcfile", "--init-file").flatMap((word) => (word ? [word] : []));
  return { ...shellRuns(words, args, stdin), ...(startupFiles.length > 0 ? { startupFiles } : {}) };
}

function shellRuns(words: readonly ShellWord[], args: ParsedArgs, stdin: StandardInput): Unwrapped {
  const operands = words.slice(args.operandsAt);
  if (hasOption(args, "-c")) {
    const script = operands[0];
    if (!script) return { transparent: false, unknown: UNKNOWN_SCRIPT };
    // a startup file or a login shell runs more than the script
    return { scripts: [script], transparent: !hasOption(args, ...STARTUP_OPTIONS) };
  }
  const reads =
    hasOption(args, "-s") || operands.length === 0 || STANDARD_INPUT_FILES.has(operands[0]?.value ?? "");
  if (!reads) {
    const file = operands[0] as ShellWord;
    return file.value === undefined && file.pattern === undefined
      ? { transparent: false, unknown: UNKNOWN_SCRIPT }
      : { transparent: false, scriptFile: file };
  }
  return fromStandardInput(stdin);
}

/** `python3` with no script and no inline code runs what standard input says. */
function unwrapInterpreter(words: readonly ShellWord[], stdin: StandardInput): Unwrapped | undefined {
  if (stdin.kind !== "pipe") return undefined;
  const rest = words.slice(1);
  const inline = rest.some((word) => word.value !== undefined && INLINE_CODE.has(word.value));
  const fromStdin = rest.some((word) => word.value === "-");
  const script = rest.some((word) => word.value === undefined || !word.value.startsWith("-"));
  if (inline || (script && !fromStdin)) return undefined;
  return { transparent: false, unknown: "it runs a program it reads from a pipe, known only when it runs" };
}

function unwrapSource(words: readonly ShellWord[], stdin: StandardInput): Unwrapped {
  const file = words[1];
  if (STANDARD_INPUT_FILES.has(file?.value ?? "")) return fromStandardInput(stdin);
  if (file && file.value === undefined && file.pattern === undefined) {
    return { transparent: false, unknown: UNKNOWN_SCRIPT };
  }
  return file ? { transparent: false, scriptFile: file } : { transparent: false };
}

const SQLITE_VALUED = ["-cmd", "-init", "-separator", "-newline", "-nullvalue", "-escape", "-vfs", "-mmap"];
/** A dot command that runs a shell command: `.shell CMD`, `.system CMD`, `.output |CMD` and the like. */
const SQLITE_SHELL =
  /^\s*\.(?:(?:shell|system)\s+(.+)|(?:output|once|read|import|excel)\s+(?:-\S+\s+)*['"]?\|(.+?)['"]?)\s*$/gm;

/**
 * `sqlite3 [DB] [SQL…]`: its SQL and `-cmd` words may run shell commands (`.shell cat f`, `.once |cmd`),
 * judged as scripts; `.load` loads native code, and with no SQL word it runs what a pipe gives it.
 */
function unwrapSqlite(words: readonly ShellWord[], stdin: StandardInput): Unwrapped | undefined {
  const args = parseArgs(words, 1, { valued: SQLITE_VALUED, permute: true });
  const fed = args.operands.length < 2 && stdin.kind === "script" ? [stdin.text] : [];
  const code = [...optionValues(args, "-cmd"), ...args.operands.slice(1), ...fed];
  if (code.some((word) => word === undefined || word.value === undefined))
    return { transparent: false, unknown: "it runs SQL known only when it runs" };
  const texts = code.map((word) => word?.value as string);
  if (texts.some((text) => /^\s*\.load\b/m.test(text)))
    return { transparent: false, unknown: "it loads an extension, code known only when it runs" };
  const scripts = texts.flatMap((text) =>
    [...text.matchAll(SQLITE_SHELL)].map((match) => {
      const command = (match[1] ?? match[2] ?? "").trim();
      return { written: command, value: command };
    }),
  );
  if (args.operands.length < 2 && stdin.kind === "pipe")
    return {
      scripts,
      transparent: false,
      unknown: "it runs SQL it reads from a pipe, known only when it runs",
    };
  return scripts.length > 0 ? { scripts, transparent: false } : undefined;
}

/** GNU sed's `e COMMAND` runs a command; `s///e` runs what the pattern space holds. */
function unwrapSed(words: readonly ShellWord[]): Unwrapped | undefined {
  const sed = readSed(words);
  if (sed.commands.length === 0 && !sed.unknown) return undefined;
  return {
    scripts: sed.commands.map((command) => ({ written: command, value: command })),
    transparent: false,
    unknown: sed.unknown,
  };
}

/** `script -c COMMAND [FILE]` runs COMMAND, recording it. */
function unwrapScript(words: readonly ShellWord[]): Unwrapped | undefined {
  const args = parseArgs(words, 1, { valued: SCRIPT_VALUED, permute: true });
  const commands = optionValues(args, "-c", "--command");
  return commands.length > 0 ? { scripts: commands.map(orUnknown), transparent: false } : undefined;
}

/** `trap 'ACTION' SIGNAL…`: the action runs later, as a script. */
function unwrapTrap(words: readonly ShellWord[]): Unwrapped | undefined {
  const args = parseArgs(words, 1, {});
  const action = words[args.operandsAt];
  if (!action || words.length - args.operandsAt < 2 || action.value === "-") return undefined;
  return { scripts: [action], transparent: true };
}

/** `alias name='command'`: the command runs wherever the name is used later. */
function unwrapAlias(words: readonly ShellWord[]): Unwrapped | undefined {
  const scripts: ShellWord[] = [];
  for (const word of words.slice(1)) {
    if (word.value === undefined) scripts.push({ written: word.written });
    else if (word.value.includes("=")) {
      const body = word.value.slice(word.value.indexOf("=") + 1);
      scripts.push({ written: body, value: body });
    }
  }
  // a later line may use the name with words of its own (`alias f=env`, then `f rm x`)
  const unknown = "an alias makes a name run its text with the words a later command gives it";
  return scripts.length > 0 ? { scripts, transparent: true, unknown } : undefined;
}

/** `hash -p FILE NAME` makes NAME run FILE. */
function unwrapHash(words: readonly ShellWord[]): Unwrapped | undefined {
  if (!words.some((word) => word.value === undefined || /^-[a-z]*p/.test(word.value))) return undefined;
  return { transparent: false, unknown: "hash -p makes a name run another program" };
}

/** `su [options] [-] [user] -c COMMAND`. */
function unwrapSu(words: readonly ShellWord[]): Unwrapped {
  const args = parseArgs(words, 1, {
    valued: ["-c", "--command", "-s", "--shell", "-g", "--group", "-G", "-w"],
    permute: true,
  });
  const command = optionValues(args, "-c", "--command");
  return command.length > 0
    ? { scripts: command.map(orUnknown), transparent: false }
    : { transparent: false };
}

/** `watch [options] COMMAND…`: the words are joined and run by `sh -c`, unless `-x`. */
function unwrapWatch(words: readonly ShellWord[]): Unwrapped {
  const args = parseArgs(words, 1, { valued: ["-n", "--interval"] });
  const rest = words.slice(args.operandsAt);
  if (hasOption(args, "-x", "--exec")) return { inner: rest, transparent: true };
  return { scripts: [joinWords(rest)], transparent: true };
}

/** `flock [options] FILE COMMAND…` or `flock [options] FILE -c COMMAND`. */
function unwrapFlock(words: readonly ShellWord[]): Unwrapped {
  const args = parseArgs(words, 1, { valued: ["-w", "--timeout", "-E", "--conflict-exit-code"] });
  const rest = words.slice(args.operandsAt + 1);
  const first = rest[0]?.value;
  if (first === "-c" || first === "--command") return { scripts: [orUnknown(rest[1])], transparent: true };
  return { inner: rest, transparent: true };
}

/** Words joined by spaces, as `eval` and `sh -c "$*"` read them; unknown when one of them is. */

function orUnknown(word: ShellWord | undefined): ShellWord {
  return word ?? { written: "" };
}
