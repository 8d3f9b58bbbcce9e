import { accessSync, constants, existsSync } from "node:fs";
import path from "node:path";
import type { HookConfig, HookProblem } from "./rules.js";
import { warning } from "./rules.js";
import { expandHeaderValues } from "./run-http.js";

// Interpreters whose first argument is the script: `python3 .agents/gate.py` checks the script's path.
const INTERPRETERS = new Set([
  "python",
  "python3",
  "node",
  "bash",
  "sh",
  "zsh",
  "ruby",
  "perl",
  "bun",
  "deno",
  "tsx",
]);

/**
 * Problems only a check finds: scripts that do not exist and commands not on PATH (each would exit 127
 * and silently disable its guard), and header variables that are not set.
 */
export function findMissingScripts(
  config: HookConfig,
  workspaceRoot: string,
  env = process.env,
): HookProblem[] {
  const problems: HookProblem[] = [];
  for (const group of config.groups) {
    for (const rule of group.rules) {
      for (const handler of rule.handlers) {
        if (handler.kind === "http") {
          const { missing } = expandHeaderValues(handler.headers, env, handler.allowedEnvVars);
          for (const name of missing) {
            problems.push(
              warning(group.file, `${handler.name}.headers`, `references ${name}, which is not set here`),
            );
          }
          continue;
        }
        if (handler.kind !== "command") continue;
        const missing = missingProgram(handler.command, workspaceRoot, env);
        if (missing) problems.push(warning(group.file, handler.name, missing));
      }
    }
  }
  return problems;
}

function missingProgram(command: string, workspaceRoot: string, env: NodeJS.ProcessEnv): string | undefined {
  const words = command
    .trim()
    .split(/\s+/)
    .map((word) => expandWord(word, workspaceRoot, env));
  const [first, second] = words;
  if (first === undefined || /[;&|<>()`]/.test(first) || first.includes("=")) return undefined;
  if (first.includes("/")) {
    return existsSync(path.resolve(workspaceRoot, first)) ? undefined : `script not found: ${first}`;
  }
  if (!onPath(first, env)) return `command not found on PATH: ${first}`;
  if (INTERPRETERS.has(first) && second !== undefined && second.includes("/") && !second.startsWith("-")) {
    return existsSync(path.resolve(workspaceRoot, second)) ? undefined : `script not found: ${second}`;
  }
  return undefined;
}

function expandWord(word: string, workspaceRoot: string, env: NodeJS.ProcessEnv): string {
  const unquoted = word.replace(/["']/g, "");
  const vars: Record<string, string | undefined> = {
    ...env,
    CLAUDE_PROJECT_DIR: workspaceRoot,
    GEMINI_PROJECT_DIR: workspaceRoot,
    GANTRY_PROJECT_DIR: workspaceRoot,
  };
  return unquoted
    .replace(/^~(?=\/|$)/, env.HOME ?? "~")
    .replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (m, a, b) => vars[a ?? b] ?? m);
}

function onPath(program: string, env: NodeJS.ProcessEnv): boolean {
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    try {
      accessSync(path.join(dir, program), constants.X_OK);
      return true;
    } catch {
      // not in this folder
    }
  }
  // Shell builtins and keywords are not files.
  return ["true", "false", "echo", "printf", "exit", "cat", "test", "[", ":", "exec", "cd"].includes(program);
}
