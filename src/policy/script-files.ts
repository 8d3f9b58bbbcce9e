import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { ShellCommand } from "../tools/contract.js";
import { landingPlaces } from "./command-paths.js";
import type { Check } from "./rules.js";
import type { ProgramRun } from "./shell-analysis.js";
import { baseName } from "./shell-files.js";
import { SHELLS } from "./shell-wrappers.js";

/** Scripts inside scripts judged before giving up; the largest script read. */
const MAX_SCRIPT_DEPTH = 3;
const MAX_SCRIPT_BYTES = 256 * 1024;

type JudgeScript = (command: ShellCommand, depth: number) => Promise<Check[]>;

/**
 * A shell script a command runs (`bash x.sh`, `source x.sh`, `./x.sh`) is read and judged like the
 * command line it is, but only for what must hold whatever allowed running it: deny rules, the protected
 * files and programs known only when it runs (`onlyDenials`). Allow and ask rules judge the command that
 * runs it. A script the same command line writes is known only when it runs.
 */
export async function scriptFileChecks(
  run: ProgramRun,
  written: ReadonlySet<string>,
  depth: number,
  judge: JudgeScript,
): Promise<Check[]> {
  const file = run.scriptFile;
  const value = file?.word.value;
  if (!file || value === undefined) return [];
  const checks: Check[] = [];
  for (const folder of path.isAbsolute(value) ? ["/"] : file.folders.paths) {
    for (const landing of await landingPlaces(folder, value)) {
      if (landing === undefined) continue;
      if (written.has(landing)) {
        checks.push(
          opaque(`${value} (a script)`, "it runs a script this command line writes, known only when it runs"),
        );
        continue;
      }
      const text = await readShellScript(landing, file.viaShell);
      if (text === undefined) continue;
      if (depth >= MAX_SCRIPT_DEPTH) {
        checks.push({
          ...opaque(`${value} (a script)`, "it nests scripts too deeply to judge"),
          onlyDenials: true,
        });
        continue;
      }
      const inner = await judge({ commandLine: text, folders: [folder] }, depth + 1);
      checks.push(
        ...inner.map((check) => ({ ...check, label: `${check.label} (in ${value})`, onlyDenials: true })),
      );
    }
  }
  return checks;
}

function opaque(label: string, unknown: string): Check {
  return {
    tool: "run_command",
    safety: "execute",
    label,
    value: { type: "command", text: label },
    unknown,
  };
}

/** A readable text file run as a shell script: through a shell, or by its `#!` line (none: bash runs it). */
async function readShellScript(abs: string, viaShell: boolean): Promise<string | undefined> {
  const info = await stat(abs).catch(() => undefined);
  if (!info?.isFile() || info.size > MAX_SCRIPT_BYTES) return undefined;
  const text = await readFile(abs, "utf8").catch(() => undefined);
  if (text === undefined || text.includes("\0")) return undefined;
  if (viaShell || !text.startsWith("#!")) return text;
  const words = text
    .slice(2, text.indexOf("\n") < 0 ? undefined : text.indexOf("\n"))
    .trim()
    .split(/\s+/);
  let interpreter = baseName(words[0] ?? "");
  if (interpreter === "env")
    interpreter = baseName(words.slice(1).find((word) => !word.startsWith("-")) ?? "");
  return SHELLS.has(interpreter) ? text : undefined;
}
