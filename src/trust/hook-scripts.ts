import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";

const PROJECT_DIR_VARIABLES = [
  "GANTRY_PROJECT_DIR",
  "CLAUDE_PROJECT_DIR",
  "GEMINI_PROJECT_DIR",
  "QWEN_PROJECT_DIR",
];

/**
 * The files inside the workspace that a hook command names (`python3 .agents/gate.py`,
 * `"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh`, `bash -c 'node scripts/x.js'`): every word that,
 * unquoted and unescaped, with the project-dir variables expanded and its glob expanded, is an existing
 * file in the workspace, from the workspace or from a folder the command `cd`s into
 * (`cd .claude/hooks && ./check.sh`). Absolute paths of the files as named; a word through a symlink
 * counts where either end is inside. `includeMissing` adds the paths named that do not exist yet
 * (`scripts/gate.sh` in a checkout without it): what the agent must not create, or the hook would run
 * the agent's code outside any sandbox.
 */
export function scriptsNamedBy(
  command: string,
  root: string,
  options: { includeMissing?: boolean } = {},
): string[] {
  const found = new Set<string>();
  const bases = [root];
  let changesFolder = false;
  for (const word of wordsOf(withoutOutputFiles(command))) {
    const expanded = expandProjectDir(word, root);
    if (expanded === "" || expanded.includes("$")) {
      changesFolder = false;
      continue;
    }
    if (changesFolder) bases.push(...bases.map((base) => path.resolve(base, expanded)).filter(isFolder));
    changesFolder = CHANGE_FOLDER.has(expanded);
    for (const base of bases) {
      for (const abs of globbed(path.resolve(base, expanded))) {
        if (isRegularFile(abs) && (isInside(root, abs) || isInside(root, realOrSelf(abs)))) found.add(abs);
        else if (
          options.includeMissing &&
          isInside(root, abs) &&
          looksLikeScript(expanded) &&
          !existsSync(abs)
        )
          found.add(abs);
      }
    }
  }
  return [...found];
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

/** A shell word: quoted parts, escapes and plain characters up to a blank or an operator. */
const WORD = String.raw`(?:"[^"]*"|'[^']*'|\\.|[^\s;&|<>()\x60"'\\])+`;
const OUTPUT_REDIRECT = new RegExp(String.raw`(?:\d+|&)?>>?\|?\s*${WORD}`, "g");
const TEE_FILES = new RegExp(String.raw`(^|[\s;&|(\x60])tee(?![^\s;&|)\x60])((?:[ \t]+${WORD})*)`, "g");

/**
 * The command without the files it only writes: the targets of `>`, `>>`, `2>`, `&>` and the files
 * `tee` copies into. A hook's log (`>> "$CLAUDE_PROJECT_DIR"/hook.log`) changes at every run and would
 * otherwise count as a script added or changed since the folder was trusted, switching the hooks off.
 * A file that is also read or run (`> gen.sh; sh gen.sh`) is still named by its other word.
 */
function withoutOutputFiles(command: string): string {
  return command
    .replace(OUTPUT_REDIRECT, " ")
    .replace(TEE_FILES, (_whole, before: string, operands: string) => {
      const options = operands.split(/[ \t]+/).filter((word) => word.startsWith("-"));
      return `${before}tee ${options.join(" ")}`;
    });
}

/** Words split at blanks and shell operators, quotes and backslashes removed (enough to spot paths; nothing is run). */
function wordsOf(command: string): string[] {
  return command
    .split(/[\s;&|<>()`]+/)
    .map((word) =>
      word
        .replace(/["']/g, "")
        .replace(/\\(.)/g, "$1")
        .replace(/^[A-Za-z_][A-Za-z0-9_]*=/, ""),
    )
    .filter((word) => word !== "" && !word.startsWith("-"));
}

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

function expandProjectDir(word: string, root: string): string {
  let result = word;
  for (const name of PROJECT_DIR_VARIABLES) {
    result = result.replaceAll(`\${${name}}`, root).replaceAll(`$${name}`, root);
  }
  return result;
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
