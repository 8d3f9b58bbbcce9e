import { existsSync, realpathSync, statSync } from "node:fs";
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
 * unquoted and with the project-dir variables expanded, is an existing file in the workspace.
 * Absolute paths of the files as named; a word through a symlink counts where either end is inside.
 * `includeMissing` adds the paths named that do not exist yet (`scripts/gate.sh` in a checkout without
 * it): what the agent must not create, or the hook would run the agent's code outside any sandbox.
 */
export function scriptsNamedBy(
  command: string,
  root: string,
  options: { includeMissing?: boolean } = {},
): string[] {
  const found = new Set<string>();
  for (const word of wordsOf(command)) {
    const expanded = expandProjectDir(word, root);
    if (expanded === "" || expanded.includes("$")) continue;
    const abs = path.resolve(root, expanded);
    if (isRegularFile(abs) && (isInside(root, abs) || isInside(root, realOrSelf(abs)))) found.add(abs);
    else if (options.includeMissing && isInside(root, abs) && looksLikeScript(expanded) && !existsSync(abs))
      found.add(abs);
  }
  return [...found];
}

const SCRIPT_EXTENSION = /\.(?:sh|bash|zsh|py|js|mjs|cjs|ts|mts|rb|pl|php|lua|ps1)$/i;

/** A word naming a file to run rather than an argument: a path with a folder in it, or a script's extension. */
function looksLikeScript(word: string): boolean {
  if (/[*?[\]{}~]|:\/\//.test(word)) return false;
  return word.replace(/^(?:\.\/)+/, "").includes("/") || SCRIPT_EXTENSION.test(word);
}

/** Words split at blanks and shell operators, quotes removed (enough to spot paths; nothing is run). */
function wordsOf(command: string): string[] {
  return command
    .split(/[\s;&|<>()`]+/)
    .map((word) => word.replace(/["']/g, "").replace(/^[A-Za-z_][A-Za-z0-9_]*=/, ""))
    .filter((word) => word !== "" && !word.startsWith("-"));
}

function expandProjectDir(word: string, root: string): string {
  let result = word;
  for (const name of PROJECT_DIR_VARIABLES) {
    result = result.replaceAll(`\${${name}}`, root).replaceAll(`$${name}`, root);
  }
  return result;
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
