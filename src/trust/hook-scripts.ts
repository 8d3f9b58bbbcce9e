import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { type CommandRead, readCommandLine, UNKNOWN } from "./command-words.js";
import { codeDefinedBy, type DefinedCode } from "./repo-defined-code.js";
import { codeRunByProgram } from "./workspace-code.js";

const PROJECT_DIR_VARIABLES = [
  "GANTRY_PROJECT_DIR",
  "CLAUDE_PROJECT_DIR",
  "GEMINI_PROJECT_DIR",
  "QWEN_PROJECT_DIR",
];

export interface NamedByOptions {
  /** Also the paths named that do not exist yet (`scripts/gate.sh` in a checkout without it). */
  includeMissing?: boolean;
  /** Where the command runs (default: the workspace). */
  cwd?: string;
  /** `~` and `$HOME`. */
  home?: string;
}

/**
 * The files inside the workspace that a hook command names (`python3 .agents/gate.py`,
 * `"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh`, `sh "$PWD/x.sh"`, `bash -c 'node scripts/{a,b}.js'`),
 * read with the shell's grammar: every word that, with known variables (`$PWD`, the project-dir
 * variables, `$HOME`) filled in and its braces and glob expanded, is an existing file in the workspace,
 * from the folder the command runs in (the workspace) or one it `cd`s into (`cd .claude/hooks &&
 * ./check.sh`); a word with an unknown part (`${X:-.}/gate.sh`) by what follows it; and the code a
 * program runs without naming it as a path (`npx prettier`, `python3 -m pkg`: workspace-code.ts).
 * A file only written (`> log`, `tee log`) is left out. Absolute paths as named; a word through a
 * symlink counts where either end is inside. `includeMissing` adds the paths named that do not exist
 * yet: what the agent must not create, or the hook would run the agent's code outside any sandbox.
 */
export function scriptsNamedBy(command: string, root: string, options: NamedByOptions = {}): string[] {
  return workspaceCodeOf(command, root, options).scripts;
}

/** The workspace code a command runs: the scripts it names (pinned by trust), and the code its files define. */
export interface WorkspaceCode {
  /** Files it runs (scriptsNamedBy): a trust decision pins them. */
  scripts: string[];
  /** Code it runs that workspace files define (`npm test`: package.json's scripts; repo-defined-code.ts). */
  defined: DefinedCode[];
}

export function workspaceCodeOf(command: string, root: string, options: NamedByOptions = {}): WorkspaceCode {
  const cwd = options.cwd ?? root;
  const known: Record<string, string> = { PWD: cwd };
  for (const name of PROJECT_DIR_VARIABLES) known[name] = root;
  if (options.home !== undefined) known.HOME = options.home;
  return filesOfRead(
    readCommandLine(command, { known, ...(options.home ? { home: options.home } : {}) }),
    root,
    cwd,
    options,
  );
}

/** The same for a program started without a shell (an MCP server): its words are taken as they are. */
export function scriptsRunByArgv(
  argv: readonly string[],
  root: string,
  options: NamedByOptions = {},
): string[] {
  return workspaceCodeOfArgv(argv, root, options).scripts;
}

export function workspaceCodeOfArgv(
  argv: readonly string[],
  root: string,
  options: NamedByOptions = {},
): WorkspaceCode {
  const cwd = options.cwd ?? root;
  const nested = argv
    .filter((word) => /\s/.test(word))
    .map((line) => workspaceCodeOf(line, root, { ...options, cwd }));
  const own = filesOfRead({ commands: [argv.map((word) => [word])], loose: [] }, root, cwd, options);
  return {
    scripts: [...new Set([...own.scripts, ...nested.flatMap((code) => code.scripts)])],
    defined: [...own.defined, ...nested.flatMap((code) => code.defined)],
  };
}

function filesOfRead(read: CommandRead, root: string, cwd: string, options: NamedByOptions): WorkspaceCode {
  const found = new Set<string>();
  const defined: DefinedCode[] = [];
  const bases = [cwd];
  const consider = (word: string, includeMissing: boolean) => {
    const candidate = word.includes(UNKNOWN) ? afterUnknown(word) : word;
    if (candidate === undefined || candidate === "") return;
    for (const base of bases) {
      for (const abs of globbed(path.resolve(base, candidate))) {
        if (isRegularFile(abs) && (isInside(root, abs) || isInside(root, realOrSelf(abs)))) found.add(abs);
        else if (includeMissing && isInside(root, abs) && looksLikeScript(candidate) && !existsSync(abs))
          found.add(abs);
      }
    }
  };
  const missing = options.includeMissing === true;
  for (const words of read.commands) {
    const program = path.basename(words[0]?.[0] ?? "");
    let changesFolder = false;
    for (const [index, values] of words.entries()) {
      for (const value of values) {
        const word = value.replace(/^[A-Za-z_][A-Za-z0-9_]*=/, "");
        if (changesFolder && !word.includes(UNKNOWN))
          bases.push(...bases.map((base) => path.resolve(base, word)).filter(isFolder));
        // tee's operands are files it writes
        if (program === "tee" && index > 0 && !word.startsWith("-")) continue;
        if (word.startsWith("-")) {
          const inline = /^--?[^=]+=(.+)$/s.exec(word)?.[1];
          if (inline !== undefined) consider(inline, false);
        } else consider(word, missing);
      }
      changesFolder = index === 0 && CHANGE_FOLDER.has(program);
    }
    const argv = words.map((values) => values[0] ?? "");
    if (argv.every((word) => !word.includes(UNKNOWN)))
      for (const abs of codeRunByProgram(argv, bases, root))
        if (isRegularFile(abs) && (isInside(root, abs) || isInside(root, realOrSelf(abs)))) found.add(abs);
    // `npm test -- "$FILE"` still runs package.json's script: only the program must be known
    if (!(argv[0] ?? UNKNOWN).includes(UNKNOWN)) defined.push(...codeDefinedBy(argv, bases, root));
  }
  for (const values of read.loose) for (const value of values) consider(value, false);
  return { scripts: [...found], defined };
}

/** `${X:-.}/.agents/gate.sh`: the path after the last part only running tells, below some folder. */
function afterUnknown(word: string): string | undefined {
  const tail = word.slice(word.lastIndexOf(UNKNOWN) + 1).replace(/^\/+/, "");
  return tail.includes("/") || SCRIPT_EXTENSION.test(tail) ? tail : undefined;
}

const SCRIPT_EXTENSION = /\.(?:sh|bash|zsh|py|js|mjs|cjs|ts|mts|rb|pl|php|lua|ps1)$/i;

/** A word naming a file to run rather than an argument: a path with a folder in it, or a script's extension. */
function looksLikeScript(word: string): boolean {
  if (/[*?[\]{}~]|:\/\//.test(word)) return false;
  return word.replace(/^(?:\.\/)+/, "").includes("/") || SCRIPT_EXTENSION.test(word);
}

const CHANGE_FOLDER = new Set(["cd", "pushd"]);
const GLOB = /[*?[]/;
const MAX_GLOB_MATCHES = 64;

/** The path itself, or the files its last segment's glob (`gate.s?`, `*.sh`) matches in its folder. */
function globbed(abs: string): string[] {
  const name = path.basename(abs);
  const folder = path.dirname(abs);
  if (!GLOB.test(name) || GLOB.test(folder)) return [abs];
  const pattern = globPattern(name);
  if (!pattern) return [];
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return [];
  }
  return entries
    .filter((entry) => !entry.startsWith(".") && pattern.test(entry))
    .slice(0, MAX_GLOB_MATCHES)
    .map((entry) => path.join(folder, entry));
}

/** A shell glob of one name as a regular expression (`*`, `?`, `[...]`); undefined when it is not one. */
function globPattern(name: string): RegExp | undefined {
  const source = [...name]
    .map((c) => (c === "*" ? "[^/]*" : c === "?" ? "[^/]" : /[[\]!^-]/.test(c) ? c : escapeRegExp(c)))
    .join("");
  try {
    return new RegExp(`^${source.replace(/\[!/g, "[^")}$`);
  } catch {
    return undefined;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function isFolder(abs: string): boolean {
  try {
    return statSync(abs).isDirectory();
  } catch {
    return false;
  }
}

function isRegularFile(abs: string): boolean {
  try {
    return statSync(abs).isFile();
  } catch {
    return false;
  }
}

function realOrSelf(abs: string): string {
  try {
    return realpathSync(abs);
  } catch {
    return abs;
  }
}

function isInside(root: string, abs: string): boolean {
  const rel = path.relative(root, abs);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel);
}
