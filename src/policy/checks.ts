import { lstat, realpath } from "node:fs/promises";
import path from "node:path";
import type { AnyTool } from "../tools/contract.js";
import { isInside } from "../workspace/paths.js";
import type { Check } from "./rules.js";
import { splitShellCommand } from "./shell-split.js";

/** Argument fields that name a path, and whether the tool treats it as a folder (SPEC §2 names). */
const PATH_FIELDS: Record<string, { directory: boolean }> = {
  AbsolutePath: { directory: false },
  TargetFile: { directory: false },
  DirectoryPath: { directory: true },
  SearchDirectory: { directory: true },
  SearchPath: { directory: true },
};
const COMMAND_FIELD = "CommandLine";
const URL_FIELD = "Url";

export interface CallToJudge {
  tool: AnyTool;
  args: Record<string, unknown>;
}

/**
 * What rules judge in one call: every part of a shell command (and every file its redirections
 * write or read), every path after `..` and symlinks are resolved, a URL's host, or the tool alone.
 */
export async function checksForCall(call: CallToJudge, workspaceRoot: string): Promise<Check[]> {
  const { spec } = call.tool;
  const command = call.args[COMMAND_FIELD];
  if (typeof command === "string")
    return commandChecks(spec.name, spec.safety, command, call.args, workspaceRoot);

  const checks: Check[] = [];
  for (const [field, { directory }] of Object.entries(PATH_FIELDS)) {
    const input = call.args[field];
    if (typeof input !== "string" || input === "") continue;
    checks.push({
      tool: spec.name,
      safety: spec.safety,
      label: input,
      value: await pathValue(workspaceRoot, input, directory),
    });
  }
  const url = call.args[URL_FIELD];
  if (typeof url === "string") {
    checks.push({
      tool: spec.name,
      safety: spec.safety,
      label: url,
      value: { type: "url", host: hostOf(url) },
    });
  }
  if (checks.length === 0)
    checks.push({ tool: spec.name, safety: spec.safety, label: spec.name, value: { type: "none" } });
  return checks;
}

async function commandChecks(
  tool: string,
  safety: AnyTool["spec"]["safety"],
  commandLine: string,
  args: Record<string, unknown>,
  workspaceRoot: string,
): Promise<Check[]> {
  const split = splitShellCommand(commandLine);
  if (!split.ok) {
    return [
      {
        tool,
        safety,
        label: commandLine,
        value: { type: "command", text: commandLine.trim() },
        unparseable: true,
      },
    ];
  }
  const checks: Check[] = split.parts.map((part) => ({
    tool,
    safety,
    label: part,
    value: { type: "command", text: part },
  }));
  const cwd = path.resolve(workspaceRoot, typeof args.Cwd === "string" ? args.Cwd : ".");
  // a redirection to a file is a write: judged like an edit of that file
  for (const target of split.writes)
    checks.push(await redirectCheck("write_to_file", "write", cwd, workspaceRoot, target));
  for (const target of split.reads)
    checks.push(await redirectCheck("view_file", "read_only", cwd, workspaceRoot, target));
  return checks;
}

async function redirectCheck(
  tool: string,
  safety: "write" | "read_only",
  cwd: string,
  workspaceRoot: string,
  target: string | undefined,
): Promise<Check> {
  // `~` and `$VAR` expand only when the shell runs: no rule or edit mode can vouch for such a target
  if (target === undefined || target.startsWith("~")) {
    const label = target ?? "a redirection target known only when the command runs";
    return {
      tool,
      safety: safety === "write" ? "execute" : safety,
      label,
      value: { type: "path", directory: false },
    };
  }
  const value = await pathValue(cwd, target, false);
  // auto-edit covers edits inside the workspace; a redirection elsewhere is judged like a command
  const inside =
    value.type === "path" && value.resolved !== undefined && isInside(workspaceRoot, value.resolved);
  return { tool, safety: safety === "write" && !inside ? "execute" : safety, label: target, value };
}

async function pathValue(base: string, input: string, directory: boolean): Promise<Check["value"]> {
  const named = path.resolve(base, input);
  return { type: "path", named, resolved: await realPathOf(named), directory };
}

/** realpath of the nearest existing ancestor plus the rest, as the workspace resolver does; undefined through a dangling link. */
async function realPathOf(abs: string): Promise<string | undefined> {
  const missing: string[] = [];
  let current = abs;
  for (;;) {
    try {
      const real = await realpath(current);
      return missing.length > 0 ? path.join(real, ...missing.reverse()) : real;
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") return undefined;
      if (await isSymlink(current)) return undefined;
      const parent = path.dirname(current);
      if (parent === current) return undefined;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname || undefined;
  } catch {
    return undefined;
  }
}

async function isSymlink(candidate: string): Promise<boolean> {
  try {
    return (await lstat(candidate)).isSymbolicLink();
  } catch {
    return false;
  }
}
