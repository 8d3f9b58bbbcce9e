import { commandsInOptions } from "./shell-option-commands.js";
import { parseShellScript, type ShNode } from "./shell-parser.js";
import { literalWord, readWord, requote, type ShellWord } from "./shell-words.js";

/**
 * Commands hidden in configuration: `git -c core.pager='rm x' log`, `git -c alias.x='!rm x' x`,
 * `GIT_SSH_COMMAND='rm x' git fetch`, `PAGER='rm x' man ls`. Their values run as shell commands.
 */
const COMMAND_KEYS =
  /^(core\.(pager|editor|sshcommand|fsmonitor|askpass|gitproxy)|sequence\.editor|diff\.external|gpg(\.[^.]+)?\.program|credential(\..+)?\.helper|alias\..+|pager\..+|interactive\.difffilter|filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command)|merge\..+\.driver|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack)|(difftool|mergetool|browser|man)\..+\.cmd|trailer\..+\.(command|cmd)|submodule\..+\.update|sendemail\.(sendmailcmd|smtpserver)|core\.alternaterefscommand)$/;
/** Whether a git configuration key (lower-case) holds a command git runs. */
export const isGitCommandKey = (key: string): boolean => COMMAND_KEYS.test(key);

/** Keys that point git at other files it runs or reads its configuration from. */
const FILE_KEYS = /^(core\.hookspath|include\.path|includeif\..+\.path)$/;
/** Keys that let git run the commands an `ext::` URL names, wherever the URL comes from (a remote's configuration). */
const PROTOCOL_KEYS = /^protocol(\..+)?\.allow$/;
const COMMAND_VARIABLES =
  /^(GIT_SSH_COMMAND|GIT_SSH|GIT_PAGER|GIT_EDITOR|GIT_SEQUENCE_EDITOR|GIT_EXTERNAL_DIFF|GIT_ASKPASS|SSH_ASKPASS|PAGER|MANPAGER|SYSTEMD_PAGER|EDITOR|VISUAL|BROWSER|LESSOPEN|LESSCLOSE|PROMPT_COMMAND|GIT_PROXY_COMMAND|RSYNC_RSH|RSYNC_CONNECT_PROG)$/;
/** Prompt strings: their `$(…)` runs each time the prompt shows (PS4 before every line of `bash -x`). */
const PROMPT_VARIABLES = /^PS[0124]$/;
/** Variables whose value names code or configuration the program loads before doing what it was asked. */
const LOADING_VARIABLES =
  /^(BASH_ENV|ENV|LD_PRELOAD|LD_AUDIT|GIT_CONFIG|GIT_CONFIG_PARAMETERS|GIT_CONFIG_COUNT|GIT_CONFIG_KEY_\d+|GIT_CONFIG_VALUE_\d+|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|GIT_EXEC_PATH|GIT_TEMPLATE_DIR|PYTHONSTARTUP|PERL5DB|PERL5OPT|VIMINIT|EXINIT|MYVIMRC|SCREENRC|LESSKEYIN|NPM_CONFIG_USERCONFIG|NPM_CONFIG_GLOBALCONFIG|LD_LIBRARY_PATH|GIT_ALLOW_PROTOCOL|RIPGREP_CONFIG_PATH)$/;
/** npm reads its settings from the environment whatever their case: these swap the shell or the code it runs scripts with. */
const NPM_LOADING = /^npm_config_(script_shell|shell|node_options|userconfig|globalconfig|prefix)$/i;
/** Options a program reads from a variable as if given on its command line (`TAR_OPTIONS='--to-command=…'`). */
const OPTIONS_OF: Readonly<Record<string, string>> = { TAR_OPTIONS: "tar", MANOPT: "man", ZIPOPT: "zip" };
/** git's trace settings: a value that is an absolute path is a file git appends to. */
const TRACE_VARIABLES = /^GIT_TRACE(2|2_EVENT|2_PERF|_[A-Z_]+)?$/;
/** Options for the program, some of which name files it loads (`NODE_OPTIONS="--require ./x.js"`, `RUBYOPT=-rx`). */
const OPTION_VARIABLES = /^(NODE_OPTIONS|RUBYOPT)$/;
/** Those whose value is a file (or `:`-separated files) the program reads: judged as reads too. */
const FILE_VARIABLES =
  /^(BASH_ENV|ENV|LD_PRELOAD|LD_AUDIT|GIT_CONFIG|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|PYTHONSTARTUP|MYVIMRC|SCREENRC|LESSKEYIN|NPM_CONFIG_USERCONFIG|NPM_CONFIG_GLOBALCONFIG|RIPGREP_CONFIG_PATH)$/;
/** Files of settings, not code, a program reads (`INPUTRC=f bash -i` shows f's lines in its errors): reads only. */
const SETTINGS_VARIABLES = /^(INPUTRC|MAGIC|WGETRC|PIP_CONFIG_FILE)$/;
/** An exported function, as bash imports it from the environment: `BASH_FUNC_name%%=() { …; }`. */
const EXPORTED_FUNCTION = /^BASH_FUNC_(.+)%%$/;

export interface ConfigCommands {
  scripts: ShellWord[];
  unknown?: string;
  /** Files the variable makes the program read or run (`BASH_ENV=f`): Read rules judge them. */
  files?: ShellWord[];
  /** Files the variable makes the program write (`GIT_TRACE=/path`): judged as writes. */
  writes?: ShellWord[];
}

/** `NAME=VALUE` (an assignment before a command, or env's): VALUE when NAME holds a command. */
export function commandsInAssignment(name: string, value: ShellWord | undefined): ConfigCommands {
  if (name === "PATH" && !isSystemPath(value))
    return {
      scripts: [],
      unknown:
        "PATH makes program names run files from folders other than the system's, so what runs is known only when it runs",
    };
  // its files are judged as reads; the program it starts is still the one the line names
  if (OPTION_VARIABLES.test(name)) return { scripts: [], files: filesInOptions(value) };
  if (SETTINGS_VARIABLES.test(name)) return { scripts: [], files: filesIn(value) };
  if (TRACE_VARIABLES.test(name)) return traceFile(value);
  if (Object.hasOwn(OPTIONS_OF, name)) return optionsIn(name, OPTIONS_OF[name] as string, value);
  if (NPM_LOADING.test(name))
    return {
      scripts: [],
      unknown: `${name} makes npm run scripts with a shell or code named only when it runs`,
    };
  if (LOADING_VARIABLES.test(name)) {
    const unknown = `${name} makes it run or read code or settings named only when it runs`;
    if (!FILE_VARIABLES.test(name)) return { scripts: [], unknown };
    return { scripts: [], unknown, files: filesIn(value) };
  }
  const exported = EXPORTED_FUNCTION.exec(name);
  if (exported || PROMPT_VARIABLES.test(name)) return commandsInValue(name, value, exported?.[1]);
  if (!COMMAND_VARIABLES.test(name)) return { scripts: [] };
  if (!value || value.value === undefined) {
    return { scripts: [], unknown: `${name} is a command known only when it runs` };
  }
  return { scripts: [{ written: value.written, value: value.value.replace(/^\|/, "") }] };
}

/** `GIT_TRACE=/abs/path` appends to that file; `1`, `2`, `true` print to the standard error. */
function traceFile(value: ShellWord | undefined): ConfigCommands {
  const text = value?.value;
  if (text === undefined) return { scripts: [], writes: [value ?? { written: "" }] };
  return text.startsWith("/") ? { scripts: [], writes: [literalWord(text)] } : { scripts: [] };
}

/** A variable of options, split as the program splits it (shell-like words), judged as those options. */
function optionsIn(name: string, program: string, value: ShellWord | undefined): ConfigCommands {
  const unknown = `${name} holds ${program} options known only when it runs`;
  if (value?.value === undefined) return { scripts: [], unknown };
  const parsed = parseShellScript(`: ${value.value}`);
  if (!parsed.ok) return { scripts: [], unknown };
  const call = (parsed.parsed.file.Stmts as ShNode[])[0]?.Cmd as ShNode | undefined;
  const args = (call?.Args as ShNode[] | undefined) ?? [];
  const words = args.map((arg) => readWord(arg, parsed.parsed, undefined));
  const found = commandsInOptions(program, [literalWord(program), ...words.slice(1)]);
  return found ? { scripts: found.scripts, unknown: found.unknown } : { scripts: [] };
}

/** The files a variable names (`:`-separated); a value known only when it runs is a read known only when it runs. */
function filesIn(value: ShellWord | undefined): ShellWord[] {
  if (value?.value === undefined) return [{ written: value?.written ?? "" }];
  return value.value.split(/[:\s]+/).flatMap((file) => (file ? [literalWord(file)] : []));
}

/** The words of an options variable that may name a file: operands, `--opt=FILE`'s FILE and `-rFILE`'s FILE. */
function filesInOptions(value: ShellWord | undefined): ShellWord[] {
  if (value?.value === undefined) return [{ written: value?.written ?? "" }];
  return value.value.split(/\s+/).flatMap((token) => {
    if (token === "") return [];
    if (token.startsWith("--"))
      return token.includes("=") ? [literalWord(token.slice(token.indexOf("=") + 1))] : [];
    if (token.startsWith("-"))
      return token.length > 2 && token[1] === "r" ? [literalWord(token.slice(2))] : [];
    return [literalWord(token)];
  });
}

/** A PATH of system folders only (`/usr/local/bin:/usr/bin:/bin`): a name still runs the program it names. */
function isSystemPath(value: ShellWord | undefined): boolean {
  if (value?.value === undefined) return false;
  return value.value.split(":").every((entry) => /^\/(usr\/)?(local\/)?s?bin\/?$/.test(entry));
}

/** A prompt's command substitutions run as `echo PROMPT` would; an exported function's body as its definition. */
function commandsInValue(name: string, value: ShellWord | undefined, functionName?: string): ConfigCommands {
  if (!value || value.value === undefined) {
    return { scripts: [], unknown: `${name} holds commands known only when it runs` };
  }
  if (functionName === undefined)
    return { scripts: [{ written: value.written, value: `echo ${value.value}` }] };
  if (!value.value.startsWith("() {")) return { scripts: [] };
  return { scripts: [{ written: value.written, value: `${functionName} ${value.value}` }] };
}

/** The same for a word `NAME=VALUE` as env and export take it. */
export function commandsInAssignmentWord(word: ShellWord): ConfigCommands {
  const text = word.value;
  // `env NAME=$x`: the name is written out even where the value is known only when it runs
  const written = /^["']?([A-Za-z_][A-Za-z0-9_]*)=/.exec(word.written);
  if (text === undefined)
    return written
      ? commandsInAssignment(written[1] as string, {
          ...word,
          written: word.written.slice(written[0].length),
        })
      : { scripts: [] };
  const equals = text.indexOf("=");
  if (equals <= 0) return { scripts: [] };
  const value = text.slice(equals + 1);
  return commandsInAssignment(text.slice(0, equals), { written: value, value });
}

export interface GitCommand extends ConfigCommands {
  /** git with its global options left out (`git -c x=y -C dir push` is `git push`), when it had any. */
  spelling?: ShellWord[];
}

const GIT_VALUED = new Set([
  "-C",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--super-prefix",
  "--config-env",
]);

/** `git [global options] SUBCOMMAND …`. */
export function readGit(words: readonly ShellWord[]): GitCommand {
  const scripts: ShellWord[] = [];
  let unknown: string | undefined;
  let at = 1;
  while (at < words.length) {
    const word = words[at] as ShellWord;
    const value = word.value;
    if (value === undefined || !value.startsWith("-")) break;
    if (value === "-c" || value === "--config-env" || value.startsWith("--config-env=")) {
      const setting =
        value === "-c" || value === "--config-env"
          ? words[at + 1]
          : { written: value, value: value.slice(13) };
      const found = gitSetting(setting, value !== "-c");
      scripts.push(...found.scripts);
      unknown ??= found.unknown;
      at += value.startsWith("--config-env=") ? 1 : 2;
      continue;
    }
    at += GIT_VALUED.has(value) ? 2 : 1;
  }
  const spelling = at > 1 ? [words[0] as ShellWord, ...words.slice(at)] : undefined;
  const programs = gitPrograms(words, at);
  return { scripts: [...scripts, ...programs.scripts], unknown: unknown ?? programs.unknown, spelling };
}

/** Options naming the program git runs on the other side (through a shell), for the subcommands that take them. */
const PACK_PROGRAM = /^(--upload-pack|--receive-pack|--exec)(=([\s\S]*))?$/;
/** Subcommands where `-u` is `--upload-pack` (for fetch it is `--update-head-ok`). */
const UPLOAD_PACK_U = new Set(["clone", "ls-remote"]);

/**
 * `git fetch --upload-pack=CMD`, `git push --receive-pack=CMD`, `git archive --remote=… --exec=CMD`,
 * `git ls-remote -u CMD`, and an `ext::CMD ARGS` URL (`%` escapes a space): commands git runs.
 */
function gitPrograms(words: readonly ShellWord[], at: number): ConfigCommands {
  const found: ConfigCommands = { scripts: [] };
  const subcommand = words[at]?.value;
  for (let index = at + 1; index < words.length; index++) {
    const word = words[index] as ShellWord;
    const value = word.value;
    if (value === undefined) continue;
    const option = PACK_PROGRAM.exec(value);
    const short = value === "-u" && subcommand !== undefined && UPLOAD_PACK_U.has(subcommand);
    if (option || short) {
      const program = option?.[2] !== undefined ? literalWord(option[3] as string) : words[++index];
      if (program?.value === undefined) found.unknown ??= `${value} is a command known only when it runs`;
      else found.scripts.push(program);
      continue;
    }
    const url = /^ext::([\s\S]*)$/.exec(value);
    if (url) found.scripts.push(extCommand(url[1] as string));
  }
  return found;
}

/** `ext::sh -c rm% victim` runs `sh -c 'rm victim'`: words split at spaces, `% ` a space, `%%` a percent. */
function extCommand(text: string): ShellWord {
  const words = text.split(/(?<!%) /).map((part) => part.replace(/%(.)/g, "$1"));
  const value = words
    .filter((part) => part !== "")
    .map(requote)
    .join(" ");
  return { written: `ext::${text}`, value };
}

/** One `key=value` of `git -c` (or `--config-env=key=VAR`, whose value comes from the environment). */
function gitSetting(setting: ShellWord | undefined, fromEnvironment: boolean): ConfigCommands {
  const text = setting?.value;
  if (text === undefined) return { scripts: [], unknown: "its git configuration is known only when it runs" };
  const equals = text.indexOf("=");
  const key = (equals < 0 ? text : text.slice(0, equals)).toLowerCase();
  if (FILE_KEYS.test(key))
    return { scripts: [], unknown: `${key} makes git run or read files named only when it runs` };
  if (PROTOCOL_KEYS.test(key))
    return {
      scripts: [],
      unknown: `${key} lets git run the commands ext:: URLs name, which only running tells`,
    };
  if (!COMMAND_KEYS.test(key)) return { scripts: [] };
  if (fromEnvironment) return { scripts: [], unknown: `${key} is a command known only when it runs` };
  const command = equals < 0 ? "" : text.slice(equals + 1).replace(/^!/, "");
  return { scripts: [{ written: command, value: command }] };
}
