import path from "node:path";
import type { AnyTool, ShellCommand } from "../tools/contract.js";
import { lstatOf, realPath } from "../workspace/open-file.js";
import type { Check } from "./rules.js";

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
/** Shell commands are judged as run_command's, whichever tool runs them: `Bash(...)` rules hold for all. */
export const COMMAND_TOOL = "run_command";

export interface CallToJudge {
  tool: AnyTool;
  args: Record<string, unknown>;
}

/** What the checks of a call depend on besides the call. */
export interface CheckContext {
  workspaceRoot: string;
  /** `$HOME` of the commands Gantry runs, for `~` and a bare `cd`. */
  home?: string;
  /** Whether the agent may change the files that govern it (`allowAgentConfigEdits`): off, such writes are refused. */
  allowAgentConfigEdits: boolean;
  /** More protected paths than the workspace's patterns, absolute: the scripts hooks run, the user's config folders. */
  protectedPaths?: readonly string[];
  /** Whether a deny or ask rule names files view_file reads: then the links in a folder read whole are looked into. */
  readRulesBind?: () => boolean;
  /** Where paths land, resolved once per call (a command names a file for a read and a write; the disk may change between calls). */
  landings?: Map<string, Promise<(string | undefined)[]>>;
}

/**
 * What rules judge in one call: every program a shell command runs and every file it names (see
 * command-checks.ts), every path after `..` and symlinks are resolved, a URL's host, or the tool alone.
 */
export async function checksForCall(call: CallToJudge, context: CheckContext): Promise<Check[]> {
  const { spec } = call.tool;
  const commands = await shellCommandsOf(call, context.workspaceRoot);
  if (commands !== undefined) {
    const checks: Check[] = spec.name === COMMAND_TOOL ? [] : [toolCheck(call.tool)];
    const callContext = { ...context, landings: new Map() };
    // the shell analysis (a parser and the tables of what programs read, write and run) loads with
    // the first command judged, not with every start
    const { commandChecks } = await import("./command-checks.js");
    for (const command of commands) checks.push(...(await commandChecks(command, callContext)));
    return checks.length > 0 ? checks : [toolCheck(call.tool)];
  }
  const checks: Check[] = [];
  for (const [field, { directory }] of Object.entries(PATH_FIELDS)) {
    const input = call.args[field];
    if (typeof input !== "string" || input === "") continue;
    checks.push({
      tool: spec.name,
      safety: spec.safety,
      label: input,
      value: await pathValue(context.workspaceRoot, input, directory),
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
  if (checks.length === 0) checks.push(toolCheck(call.tool));
  return [...checks, ...(await effectChecks(call, context.workspaceRoot))];
}

/** A tool's declared reads and writes, judged like a read (view_file) and an edit (write_to_file) of each. */
async function effectChecks(call: CallToJudge, workspaceRoot: string): Promise<Check[]> {
  const effects = call.tool.spec.effects?.(call.args);
  if (!effects) return [];
  const judged = async (tool: string, safety: "read_only" | "write", target: string): Promise<Check> => ({
    tool,
    safety,
    label: target,
    value: await pathValue(workspaceRoot, target, false),
  });
  return Promise.all([
    ...(effects.reads ?? []).map((target) => judged("view_file", "read_only", target)),
    ...(effects.writes ?? []).map((target) => judged("write_to_file", "write", target)),
  ]);
}

/** The tool's own account of the commands it runs, or a `CommandLine` argument run in `Cwd`. */
async function shellCommandsOf(call: CallToJudge, root: string): Promise<ShellCommand[] | undefined> {
  if (call.tool.spec.shellCommands) return call.tool.spec.shellCommands(call.args);
  const command = call.args[COMMAND_FIELD];
  if (typeof command !== "string") return undefined;
  const cwd = path.resolve(root, typeof call.args.Cwd === "string" ? call.args.Cwd : ".");
  return [{ commandLine: command, folders: [cwd] }];
}

function toolCheck(tool: AnyTool): Check {
  const { spec } = tool;
  return { tool: spec.name, safety: spec.safety, label: spec.name, value: { type: "none" } };
}

/** A path argument of a file tool: resolved as the workspace guard resolves it (`..` first, then links). */
export async function pathValue(base: string, input: string, directory: boolean): Promise<Check["value"]> {
  const named = path.resolve(base, input);
  return { type: "path", named, resolved: await realPathOf(named), directory };
}

/** realpath of the nearest existing ancestor plus the rest, as the workspace resolver does; undefined through a dangling link. */
async function realPathOf(abs: string): Promise<string | undefined> {
  const missing: string[] = [];
  let current = abs;
  for (;;) {
    try {
      const real = await realPath(current);
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
    return (await lstatOf(candidate)).isSymbolicLink();
  } catch {
    return false;
  }
}
