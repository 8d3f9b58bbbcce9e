import { literalWord, type ShellWord } from "./shell-words.js";

/**
 * Commands hidden in configuration: `git -c core.pager='rm x' log`, `git -c alias.x='!rm x' x`,
 * `GIT_SSH_COMMAND='rm x' git fetch`, `PAGER='rm x' man ls`. Their values run as shell commands.
 */
const COMMAND_KEYS =
  /^(core\.(pager|editor|sshcommand|fsmonitor|askpass|gitproxy)|sequence\.editor|diff\.external|gpg(\.[^.]+)?\.program|credential(\..+)?\.helper|alias\..+|pager\..+|interactive\.difffilter|filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command)|merge\..+\.driver|uploadpack\.packobjectshook)$/;
/** Whether a git configuration key (lower-case) holds a command git runs. */
export const isGitCommandKey = (key: string): boolean => COMMAND_KEYS.test(key);

/** Keys that point git at other files it runs or reads its configuration from. */
const FILE_KEYS = /^(core\.hookspath|include\.path|includeif\..+\.path)$/;
const COMMAND_VARIABLES =
  /^(GIT_SSH_COMMAND|GIT_SSH|GIT_PAGER|GIT_EDITOR|GIT_SEQUENCE_EDITOR|GIT_EXTERNAL_DIFF|GIT_ASKPASS|SSH_ASKPASS|PAGER|MANPAGER|SYSTEMD_PAGER|EDITOR|VISUAL|BROWSER|LESSOPEN|LESSCLOSE|PROMPT_COMMAND|GIT_PROXY_COMMAND)$/;
/** Prompt strings: their `$(…)` runs each time the prompt shows (PS4 before every line of `bash -x`). */
const PROMPT_VARIABLES = /^PS[0124]$/;
/** Variables whose value names code or configuration the program loads before doing what it was asked. */
const LOADING_VARIABLES =
  /^(BASH_ENV|ENV|LD_PRELOAD|LD_AUDIT|GIT_CONFIG|GIT_CONFIG_PARAMETERS|GIT_CONFIG_COUNT|GIT_CONFIG_KEY_\d+|GIT_CONFIG_VALUE_\d+|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|GIT_EXEC_PATH|GIT_TEMPLATE_DIR|PYTHONSTARTUP|PERL5DB|PERL5OPT|VIMINIT|EXINIT|MYVIMRC|SCREENRC|LESSKEYIN|NPM_CONFIG_USERCONFIG|NPM_CONFIG_GLOBALCONFIG)$/;
/** Options for the program, some of which name files it loads (`NODE_OPTIONS="--require ./x.js"`, `RUBYOPT=-rx`). */
const OPTION_VARIABLES = /^(NODE_OPTIONS|RUBYOPT)$/;
/** Those whose value is a file (or `:`-separated files) the program reads: judged as reads too. */
const FILE_VARIABLES =
  /^(BASH_ENV|ENV|LD_PRELOAD|LD_AUDIT|GIT_CONFIG|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|PYTHONSTARTUP|MYVIMRC|SCREENRC|LESSKEYIN|NPM_CONFIG_USERCONFIG|NPM_CONFIG_GLOBALCONFIG)$/;
/** Files of settings, not code, a program reads (`INPUTRC=f bash -i` shows f's lines in its errors): reads only. */
const SETTINGS_VARIABLES = /^(INPUTRC|MAGIC|WGETRC|PIP_CONFIG_FILE)$/;
/** An exported function, as bash imports it from the environment: `BASH_FUNC_name%%=() { …; }`. */
const EXPORTED_FUNCTION = /^BASH_FUNC_(.+)%%$/;

export interface ConfigCommands {
  scripts: ShellWord[];
  unknown?: string;
  /** Files the variable makes the program read or run (`BASH_ENV=f`): Read rules judge them. */
  files?: ShellWord[];
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
  if (text === undefined) return { scripts: [] };
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
  return { scripts, unknown, spelling };
}

/** One `key=value` of `git -c` (or `--config-env=key=VAR`, whose value comes from the environment). */
function gitSetting(setting: ShellWord | undefined, fromEnvironment: boolean): ConfigCommands {
  const text = setting?.value;
  if (text === undefined) return { scripts: [], unknown: "its git configuration is known only when it runs" };
  const equals = text.indexOf("=");
  const key = (equals < 0 ? text : text.slice(0, equals)).toLowerCase();
  if (FILE_KEYS.test(key))
    return { scripts: [], unknown: `${key} makes git run or read files named only when it runs` };
  if (!COMMAND_KEYS.test(key)) return { scripts: [] };
  if (fromEnvironment) return { scripts: [], unknown: `${key} is a command known only when it runs` };
  const command = equals < 0 ? "" : text.slice(equals + 1).replace(/^!/, "");
  return { scripts: [{ written: command, value: command }] };
}
