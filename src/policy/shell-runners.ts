import { hasOption, optionValues, parseArgs } from "./shell-args.js";
import { joinWords, type ShellWord } from "./shell-words.js";
import type { StandardInput, Unwrapped } from "./shell-wrappers.js";

/**
 * Programs that run a command they are given, beyond the plain wrappers (SPEC §5: rules judge what will
 * run): package and environment runners (`npx rm x`, `uv run rm x`), debuggers and profilers (`gdb
 * --args`, `perf stat`), terminal multiplexers (`tmux new -d 'rm x'`, `screen -dm rm x`), job queues
 * (`at now <<< 'rm x'`), sandboxes (`bwrap … rm x`), `sg -c`, `entr`, GNU `parallel`.
 */
export function unwrapRunner(
  name: string,
  words: readonly ShellWord[],
  stdin: StandardInput,
): Unwrapped | undefined {
  const sub = words[1]?.value;
  switch (name) {
    case "npx":
    case "bunx":
      return unwrapPackageRunner(words, 1);
    case "npm":
    case "pnpm":
    case "yarn":
      return unwrapPackageManager(name, words);
    case "make":
    case "gmake":
      return unwrapMake(words);
    case "bun":
      return sub === "x" ? unwrapPackageRunner(words, 2) : undefined;
    case "bundle":
      return sub === "exec" ? afterOptions(words, 2, []) : undefined;
    case "uv":
    case "poetry":
    case "pipenv":
    case "pdm":
    case "hatch":
    case "rye":
    case "pixi":
    case "conda":
    case "mamba":
    case "micromamba":
      return sub === "run" ? afterOptions(words, 2, ENVIRONMENT_VALUED, ["--directory"]) : undefined;
    case "perf":
      return sub === "stat" || sub === "record" || sub === "trace" ? unwrapPerf(words) : undefined;
    case "gdb": {
      const at = words.findIndex((word) => word.value === "--args");
      return at > 0 ? { inner: words.slice(at + 1), transparent: false } : undefined;
    }
    case "tmux":
      return unwrapTmux(words);
    case "screen":
      return unwrapScreen(words);
    case "at":
    case "batch":
      return unwrapAt(words, stdin);
    case "sg":
      return unwrapSg(words);
    case "bwrap":
      return unwrapBwrap(words);
    case "entr":
      return unwrapEntr(words);
    case "parallel":
      return unwrapParallel(words, stdin);
    default:
      return undefined;
  }
}

/** How a shell (or `source`, `at`) that reads its script from standard input runs it. */
export function fromStandardInput(stdin: StandardInput): Unwrapped {
  if (stdin.kind === "pipe") {
    return { transparent: false, unknown: "it runs a script it reads from a pipe, known only when it runs" };
  }
  if (stdin.kind === "script") return { scripts: [stdin.text], transparent: true };
  // `bash < x.sh` runs x.sh as `bash x.sh` does
  if (stdin.kind === "file") return { transparent: false, scriptFile: stdin.word };
  return { transparent: false };
}

/**
 * An environment runner's command, after the options from `from` on (`--` ends them); its line vouches
 * for it. `chdirWith`: options whose value is the folder it runs in (`uv run --directory DIR`).
 */
function afterOptions(
  words: readonly ShellWord[],
  from: number,
  valued: readonly string[],
  chdirWith: readonly string[] = [],
): Unwrapped {
  const args = parseArgs(words, from, { valued });
  const chdir = optionValues(args, ...chdirWith)[0];
  return {
    inner: words.slice(args.operandsAt),
    transparent: false,
    vouched: true,
    ...(chdir ? { chdir } : {}),
  };
}

const ENVIRONMENT_VALUED = [
  ..."--with --with-requirements --with-editable --python -p --project --directory --package --extra --group".split(
    " ",
  ),
  ..."--env-file --index --index-url --default-index --extra-index-url --find-links -n --name --prefix -e".split(
    " ",
  ),
  ..."--environment --manifest-path".split(" "),
];

/** Options of npm, pnpm and yarn before the subcommand: the folder they run in, and those taking a value. */
const MANAGER_FOLDER = ["-C", "--dir", "--cwd", "--prefix"];
const MANAGER_VALUED = [...MANAGER_FOLDER, "--filter", "-F", "-w", "--workspace", "--loglevel", "--reporter"];
/** Options with which they run the command in each package of a workspace: folders only running tells. */
const MANAGER_EACH = ["-r", "--recursive", "--filter", "-F", "-w", "--workspace", "--workspaces", "-ws"];

/** `npm exec`/`npm x`, `pnpm exec`/`dlx`, `yarn exec`/`dlx`, after options such as `pnpm -C DIR`. */
function unwrapPackageManager(name: string, words: readonly ShellWord[]): Unwrapped | undefined {
  const global = parseArgs(words, 1, { valued: MANAGER_VALUED });
  const sub = words[global.operandsAt]?.value;
  const runs = sub === "exec" || (name === "npm" ? sub === "x" : sub === "dlx");
  if (!runs) return undefined;
  const unwrapped = unwrapPackageRunner(words, global.operandsAt + 1);
  // npm's --prefix names where it looks for packages; the command still runs here
  const folder = name === "npm" ? undefined : optionValues(global, ...MANAGER_FOLDER)[0];
  const inEach = hasOption(global, ...MANAGER_EACH) ? { written: "each package's folder" } : undefined;
  const chdir = inEach ?? folder;
  return chdir ? { ...unwrapped, chdir } : unwrapped;
}

/** `make -C DIR …`: the makefile, its recipes and `--eval` lines run there (no command of its own). */
function unwrapMake(words: readonly ShellWord[]): Unwrapped | undefined {
  const valued = ["-C", "--directory", "-f", "--file", "--makefile", "-I", "--include-dir", "-j", "--jobs"];
  const args = parseArgs(words, 1, { valued: [...valued, "-l", "-o", "-W", "--eval"], permute: true });
  const folders = optionValues(args, "-C", "--directory");
  if (folders.length === 0) return undefined;
  const chdir = folders.length === 1 && folders[0] ? folders[0] : { written: "the folders of make -C" };
  return { transparent: false, chdir };
}

/** `npx [-c CMD | CMD ARGS]`, `npm exec`, `pnpm dlx`, `yarn exec`, `bunx`: `-c` runs a shell command. */
function unwrapPackageRunner(words: readonly ShellWord[], from: number): Unwrapped {
  const valued = [
    "-c",
    "--call",
    "-p",
    "--package",
    "--prefix",
    "--cache",
    "--registry",
    "-w",
    "--workspace",
  ];
  const args = parseArgs(words, from, { valued });
  const call = optionValues(args, "-c", "--call");
  if (call.length > 0) return { scripts: call.map((word) => word ?? { written: "" }), transparent: false };
  return { inner: words.slice(args.operandsAt), transparent: false, vouched: true };
}

const PERF_VALUED = [
  ..."-o --output -e --event -r --repeat -x --field-separator -G --cgroup -C --cpu -F --freq -c --count".split(
    " ",
  ),
  ..."--call-graph -m --mmap-pages -u --uid -I --interval-print --post --pre -D --delay -p --pid -t --tid".split(
    " ",
  ),
];

/** `perf stat|record|trace [options] COMMAND`: no command with `-p`/`-t` (it watches running ones). */
function unwrapPerf(words: readonly ShellWord[]): Unwrapped | undefined {
  const args = parseArgs(words, 2, { valued: PERF_VALUED });
  if (hasOption(args, "-p", "--pid", "-t", "--tid")) return undefined;
  return { inner: words.slice(args.operandsAt), transparent: false };
}

/** tmux commands that run a shell command, with the options of each that take a value. */
const TMUX_RUNS: Record<string, string> = {
  "new-session": "-c -e -F -f -n -s -t -x -y",
  "new-window": "-c -e -F -n -t",
  "split-window": "-c -e -l -t -F",
  "respawn-pane": "-c -e -t",
  "respawn-window": "-c -e -t",
  "run-shell": "-c -d -t",
  "display-popup": "-b -c -d -e -h -s -S -t -T -w -x -y",
  "pipe-pane": "-t",
  "if-shell": "-t",
};
const TMUX_ALIASES: Record<string, string> = {
  new: "new-session",
  neww: "new-window",
  splitw: "split-window",
  respawnp: "respawn-pane",
  respawnw: "respawn-window",
  run: "run-shell",
  popup: "display-popup",
  pipep: "pipe-pane",
  if: "if-shell",
};

/**
 * `tmux [-c CMD] SUBCOMMAND … [\; SUBCOMMAND …]`: a shell command given as one word runs through the
 * shell, as several words directly; `send-keys` types into a terminal what only running shows.
 */
function unwrapTmux(words: readonly ShellWord[]): Unwrapped | undefined {
  const global = parseArgs(words, 1, { valued: ["-c", "-f", "-L", "-S", "-T"] });
  const scripts: ShellWord[] = optionValues(global, "-c").map((word) => word ?? { written: "" });
  const inner: ShellWord[][] = [];
  let unknown: string | undefined;
  let chdir: ShellWord | undefined;
  let command: ShellWord[] = [];
  const finish = () => {
    const sub = command[0]?.value;
    if (sub === "send-keys" || sub === "send")
      unknown = "it types keys into a terminal, a command known only when it runs";
    else if (sub !== undefined) {
      const full = Object.hasOwn(TMUX_ALIASES, sub) ? (TMUX_ALIASES[sub] as string) : sub;
      const valued = Object.hasOwn(TMUX_RUNS, full) ? TMUX_RUNS[full]?.split(" ") : undefined;
      const args = valued && parseArgs(command, 1, { valued });
      // if-shell's first operand is its shell command; the others are tmux commands
      const operands = args
        ? command.slice(args.operandsAt, full === "if-shell" ? args.operandsAt + 1 : undefined)
        : [];
      // its start directory (display-popup's is -d)
      const start = args && optionValues(args, full === "display-popup" ? "-d" : "-c")[0];
      if (start && operands.length > 0) chdir ??= start;
      if (operands.length === 1) scripts.push(operands[0] as ShellWord);
      else if (operands.length > 1) inner.push(operands);
    }
    command = [];
  };
  for (const word of words.slice(global.operandsAt)) {
    if (word.value === ";") finish();
    else command.push(word);
  }
  finish();
  if (scripts.length === 0 && inner.length === 0 && !unknown) return undefined;
  return { scripts, ...(inner[0] ? { inner: inner[0] } : {}), transparent: false, unknown, chdir };
}

/** `screen [options] [COMMAND…]`; `-X` sends a command (`stuff` types keys) to a running session. */
function unwrapScreen(words: readonly ShellWord[]): Unwrapped | undefined {
  const args = parseArgs(words, 1, {
    valued: ["-S", "-c", "-e", "-h", "-p", "-s", "-t", "-T", "-X", "-Logfile"],
  });
  if (hasOption(args, "-X"))
    return {
      transparent: false,
      unknown: "it sends a running screen keys or commands known only when it runs",
    };
  if (hasOption(args, "-r", "-R", "-x", "-ls", "-list", "-wipe", "-v")) return undefined;
  const inner = words.slice(args.operandsAt);
  return inner.length > 0 ? { inner, transparent: false } : undefined;
}

/** `at [options] TIME` and `batch` read the commands they queue from standard input or `-f FILE`. */
function unwrapAt(words: readonly ShellWord[], stdin: StandardInput): Unwrapped | undefined {
  const args = parseArgs(words, 1, { valued: ["-f", "-q", "-t"], permute: true });
  if (hasOption(args, "-l", "-r", "-d", "-c")) return undefined;
  const file = optionValues(args, "-f")[0];
  if (file) return { transparent: false, scriptFile: file };
  return { ...fromStandardInput(stdin), transparent: false };
}

/** `sg GROUP [-c] COMMAND`: the command runs through `/bin/sh -c`. */
function unwrapSg(words: readonly ShellWord[]): Unwrapped | undefined {
  const rest = words.slice(words[1]?.value === "-" ? 2 : 1).slice(1);
  const script = rest[0]?.value === "-c" ? rest.slice(1) : rest;
  if (script.length === 0) return undefined;
  return { scripts: [joinWords(script)], transparent: false };
}

/** bubblewrap's options and how many words each takes; the first other word is the command. */
const BWRAP_TWO = new Set(
  "--bind --bind-try --dev-bind --dev-bind-try --ro-bind --ro-bind-try --symlink --setenv --chmod --file --bind-data --ro-bind-data --overlay-src".split(
    " ",
  ),
);
const BWRAP_ONE = new Set(
  "--tmpfs --dir --proc --dev --mqueue --chdir --unsetenv --uid --gid --hostname --exec-label --file-label --lock-file --sync-fd --info-fd --json-status-fd --block-fd --userns-block-fd --seccomp --add-seccomp-fd --cap-add --cap-drop --perms --size --argv0 --userns --userns2 --pidns --remount-ro --args --tmp-overlay --ro-overlay --overlay".split(
    " ",
  ),
);

function unwrapBwrap(words: readonly ShellWord[]): Unwrapped | undefined {
  let at = 1;
  let chdir: ShellWord | undefined;
  while (at < words.length) {
    const value = words[at]?.value;
    if (value === "--") {
      at++;
      break;
    }
    if (value === undefined || !value.startsWith("-")) break;
    if (value === "--chdir") chdir = words[at + 1] ?? { written: "--chdir" };
    at += BWRAP_TWO.has(value) ? 3 : BWRAP_ONE.has(value) ? 2 : 1;
  }
  const inner = words.slice(at);
  return inner.length > 0 ? { inner, transparent: false, ...(chdir ? { chdir } : {}) } : undefined;
}

/** `entr [options] COMMAND…` runs it when a file changes; with `-s` its first word is a shell script. */
function unwrapEntr(words: readonly ShellWord[]): Unwrapped | undefined {
  const args = parseArgs(words, 1, {});
  const inner = words.slice(args.operandsAt);
  if (inner.length === 0) return undefined;
  if (hasOption(args, "-s")) return { scripts: [inner[0] as ShellWord], transparent: false };
  return { inner, transparent: false };
}

const PARALLEL_VALUED = [
  ..."-j --jobs -S --sshlogin --joblog --results --res -a --arg-file -d --delimiter -I --colsep -C -N -n".split(
    " ",
  ),
  ..."--max-args --tmpdir --timeout --delay --retries --workdir --wd --env --memfree --load -L --max-lines".split(
    " ",
  ),
  ..."-E --eof --tag-string --basefile --bf --sshloginfile --slf --halt --termseq --rpl --tagstring".split(
    " ",
  ),
];
const PARALLEL_INPUTS = /^:{3,4}\+?$/;

/**
 * GNU parallel: `parallel CMD ::: ARGS` runs CMD with each argument (a one-word CMD through the shell);
 * with no CMD, each argument (or each line of its input) is a command.
 */
function unwrapParallel(words: readonly ShellWord[], stdin: StandardInput): Unwrapped {
  const split = words.findIndex((word, at) => at > 0 && PARALLEL_INPUTS.test(word.value ?? ""));
  const head = split < 0 ? words : words.slice(0, split);
  const args = parseArgs(head, 1, { valued: PARALLEL_VALUED });
  const command = head.slice(args.operandsAt);
  const workdir = optionValues(args, "--workdir", "--wd")[0];
  const moved = workdir ? { chdir: workdir } : {};
  if (command.length === 1 && /\s/.test(command[0]?.value ?? "")) {
    return { scripts: [command[0] as ShellWord], transparent: false, ...moved };
  }
  if (command.length > 0) return { inner: command, transparent: false, openEnded: true, ...moved };
  if (split >= 0) {
    const inputs = words.slice(split + 1).filter((word) => !PARALLEL_INPUTS.test(word.value ?? ""));
    return { scripts: inputs, transparent: false, ...moved };
  }
  if (stdin.kind === "script") return { scripts: [stdin.text], transparent: false, ...moved };
  return { transparent: false, unknown: "it runs commands it reads from its input, known only when it runs" };
}
