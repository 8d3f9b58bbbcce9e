import path from "node:path";
import type { ShellCommand } from "../tools/contract.js";
import { isInside } from "../workspace/paths.js";
import type { CheckContext } from "./checks.js";
import {
  isExistingFile,
  isExistingFolder,
  landingPlacesOnce,
  nameMayBeProtected,
  type ProtectedPlaces,
  patternMayHitProtected,
  physicalPath,
  protectedFileAt,
  protectedFileInside,
  protectedHardLink,
  shownPath,
} from "./command-paths.js";
import { linkTargetChecks } from "./folder-links.js";
import type { Check } from "./rules.js";
import { scriptFileChecks } from "./script-files.js";
import {
  type AnalysisOptions,
  analyzeShellCommand,
  type FileEffect,
  type FolderSet,
  type ProgramRun,
} from "./shell-analysis.js";
import { baseName } from "./shell-files.js";
import { GIT_LOCATION_VARIABLES, LOCATION_VARIABLES } from "./shell-location-variables.js";
import type { TreeChange } from "./shell-tree-writes.js";
import { literalWord, requote } from "./shell-words.js";
import { changedByTree } from "./tree-changes.js";

const COMMAND_TOOL = "run_command";
const TOOL_OF = { write: "write_to_file", delete: "delete_file", read: "view_file" } as const;

/**
 * The checks of one shell command line: each program it runs (judged as `run_command`, whichever
 * tool runs it) and each file it writes (as `write_to_file`), deletes (`delete_file`) or reads
 * (`view_file`), resolved against every folder the shell may be in. Input sent to a running task
 * carries the checks of the task's own command.
 */
export async function commandChecks(
  command: ShellCommand,
  context: CheckContext,
  depth = 0,
): Promise<Check[]> {
  const start = startOf(command, context);
  const analysis = analyzeShellCommand(command.commandLine, analysisOptions(start));
  if (!analysis.ok) {
    const text = command.commandLine.trim();
    return withCarrier(
      [runCheck({ label: text, text, looseSpellings: [], unparseable: true })],
      command,
      context,
    );
  }
  const checks = analysis.runs.map(runCheck);
  // each file is resolved on the disk (realpath, lstat, one component at a time): all at once, in order
  const perFile = await Promise.all(
    analysis.files.map((effect) => (effect.tree ? [] : fileChecksWithLinks(effect, context))),
  );
  // what a tree change changes is asked of git and read from patches, which the line may write first
  const lineWrites = writtenBy(perFile.flat());
  await Promise.all(
    analysis.files.map(async (effect, index) => {
      if (effect.tree) perFile[index] = await treeChecks(effect, effect.tree, context, lineWrites);
    }),
  );
  analysis.files.forEach((effect, index) => {
    checks.push(...(perFile[index] as Check[]));
    if (effect.kind === "delete" && !effect.moves && !effect.tree) checks.push(deletionAsRm(effect));
  });
  const written = writtenBy(checks);
  const judgeScript = (script: ShellCommand, inner: number) => commandChecks(script, context, inner);
  for (const run of analysis.runs) checks.push(...(await scriptFileChecks(run, written, depth, judgeScript)));
  if (checks.length === 0) {
    const text = command.commandLine.replace(/\s+/g, " ").trim();
    checks.push(runCheck({ label: text, text, looseSpellings: [] }));
  }
  return withCarrier(checks, command, context);
}

/** The files checks write, resolved (not those a program may change, as judged of any file it names). */
function writtenBy(checks: readonly Check[]): Set<string> {
  return new Set(
    checks.flatMap((check) =>
      check.tool === TOOL_OF.write &&
      check.value.type === "path" &&
      check.value.resolved &&
      !check.onlyDenials
        ? [check.value.resolved]
        : [],
    ),
  );
}

/**
 * A command that changes files without naming them (`git reset --hard`, `patch < x`): each file it
 * would change is judged by deny rules and the protected files (and, for git clean, as the `rm` it
 * amounts to). When only running tells which, it is a write known only when running, protected when
 * a protected file lies in the tree.
 */
async function treeChecks(
  effect: FileEffect,
  change: TreeChange,
  context: CheckContext,
  lineWrites: ReadonlySet<string>,
): Promise<Check[]> {
  const root = context.workspaceRoot;
  if (effect.folders.unknown)
    return [unknownTree(effect, context, change, "the folder it runs in is known only when it runs", root)];
  const checks: Check[] = [];
  // a file named comes first in a refusal, before a folder where only running tells
  const unknowns: Check[] = [];
  for (const folder of effect.folders.paths) {
    const found = await changedByTree(change, folder, lineWrites);
    if ("unknown" in found) {
      unknowns.push(await unknownTreeChecked(effect, context, change, found.unknown, found.top));
      continue;
    }
    for (const changed of found.paths) {
      const shown = shownPath(root, changed.abs);
      const resolved = (await physicalPath("/", changed.abs)) ?? changed.abs;
      const place = {
        label: `${shown} (${effect.why})`,
        named: changed.abs,
        resolved,
        recursive: changed.folder,
      };
      const check = await placeCheck({ ...effect, recursive: changed.folder }, place, context);
      checks.push({ ...check, implied: true, onlyDenials: true });
      if (effect.kind === "delete")
        checks.push(deletionAsRm({ ...effect, word: literalWord(shown), recursive: changed.folder }));
    }
  }
  return dedupe([...checks, ...unknowns]);
}

async function unknownTreeChecked(
  effect: FileEffect,
  context: CheckContext,
  change: TreeChange,
  why: string,
  top: string,
): Promise<Check> {
  const hit = context.allowAgentConfigEdits
    ? undefined
    : await protectedFileInside(protectedPlaces(context), { named: top, resolved: top });
  return unknownTree(effect, context, change, why, top, hit !== undefined);
}

function unknownTree(
  effect: FileEffect,
  context: CheckContext,
  change: TreeChange,
  why: string,
  top: string,
  mayBeProtected = true,
): Check {
  const check = unknownTarget(
    effect,
    context,
    `${change.command} (in ${shownPath(context.workspaceRoot, top) || "."})`,
    mayBeProtected,
  );
  check.unknown = `which files it changes is known only when it runs (${why})`;
  check.fix = "Name the files, or run it as a command of its own";
  return check;
}

async function withCarrier(checks: Check[], command: ShellCommand, context: CheckContext): Promise<Check[]> {
  if (!command.feeds) return checks;
  const carrier = await commandChecks(command.feeds, context);
  return checks.map((check) => ({ ...check, carrier }));
}

interface ShellStart {
  folders: FolderSet;
  /** The shell's `$HOME`, for `~` and a bare `cd`; undefined when it may have been changed. */
  home: string | undefined;
  /** Variables that change where commands lead, set in the shell (src/policy/shell-location-variables.ts). */
  variables: readonly string[];
}

function analysisOptions(start: ShellStart): AnalysisOptions {
  const set = (name: string) => start.variables.includes(name) || (process.env[name] ?? "") !== "";
  return {
    folders: start.folders,
    home: start.home,
    cdpath: set("CDPATH"),
    gitElsewhere: [...GIT_LOCATION_VARIABLES].find((name) => start.variables.includes(name)),
    locationVariables: start.variables,
  };
}

/** Where the shell may be when it reads the line, and its `$HOME`: as given, then as what it ran before left them. */
function startOf(command: ShellCommand, context: CheckContext): ShellStart {
  let start: ShellStart = {
    folders: { paths: command.folders, unknown: command.folders.length === 0 },
    home: command.home === undefined ? context.home : (command.home ?? undefined),
    // a shell whose variables cannot be told may have any of them set
    variables: command.locationVariables === null ? LOCATION_VARIABLES : (command.locationVariables ?? []),
  };
  for (const earlier of command.earlier ?? []) {
    const analysis = analyzeShellCommand(earlier, analysisOptions(start));
    start = analysis.ok
      ? { folders: analysis.folders, home: analysis.home, variables: analysis.locationVariables }
      : {
          folders: { paths: start.folders.paths, unknown: true },
          home: undefined,
          variables: LOCATION_VARIABLES,
        };
  }
  return start;
}

function runCheck(run: ProgramRun): Check {
  const check: Check = {
    tool: COMMAND_TOOL,
    safety: "execute",
    label: run.label,
    value: {
      type: "command",
      text: run.text,
      ...(run.label !== run.text ? { written: run.label } : {}),
      ...(run.looseSpellings.length > 0 ? { looseSpellings: run.looseSpellings } : {}),
    },
  };
  if (run.unparseable) check.unparseable = true;
  if (run.unknown) check.unknown = run.unknown;
  if (run.wrapper) check.implied = true;
  return check;
}

/**
 * A delete by any command (`unlink x`, `find . -delete`, `shred -u x`) is also judged as the `rm` it
 * amounts to, by deny and ask rules: deny `Bash(rm:*)` holds against every way of deleting a file.
 */
function deletionAsRm(effect: FileEffect): Check {
  const target = effect.word.value !== undefined ? requote(effect.word.value) : effect.word.written;
  const flags = effect.recursive ? ["-r ", "-rf ", "-fr ", "-R "] : ["", "-f "];
  const [first, ...others] = flags.map((flag) => `rm ${flag}${target}`);
  return {
    tool: COMMAND_TOOL,
    safety: "execute",
    label: effect.via,
    value: { type: "command", text: first as string, looseSpellings: others },
    implied: true,
  };
}

/**
 * A file named by a program Gantry has no account of (`gzip x`, `xxd x`): judged as a read, and as a
 * change by deny rules and the protected files. Known only when running, it is a read that asks (as
 * `cat $f` does); not a change, or every `prog $x` in yolo would be refused as a possible hook file.
 */
async function unknownUseChecks(effect: FileEffect, context: CheckContext): Promise<Check[]> {
  const plain = { ...effect, unknownUse: undefined };
  const [reads, changes] = await Promise.all([
    fileChecks(plain, context),
    fileChecks({ ...plain, kind: "write" }, context),
  ]);
  const explained = (check: Check) => ({
    ...check,
    label: `${check.label} (named by "${effect.via}", a program Gantry cannot tell reads or changes it)`,
  });
  // a folder given to such a program may be read whole (`tar -cf - .`, `zip -r - src`): deny and ask
  // rules on anything inside it hold
  const judged: Check[] = await Promise.all(
    reads.map(async (check) => {
      if (check.unknown !== undefined || check.value.type !== "path") return check;
      const folder = check.value.resolved !== undefined && (await isExistingFolder(check.value.resolved));
      const value = folder
        ? { ...check.value, directory: true, recursive: true }
        : { ...check.value, directory: check.value.directory };
      return explained({ ...check, value });
    }),
  );
  for (const check of changes) {
    if (check.unknown === undefined) judged.push(explained({ ...check, implied: true, onlyDenials: true }));
  }
  return judged;
}

/** A file's checks, and while Read rules bind, those of the links out of each folder it reads whole. */
async function fileChecksWithLinks(effect: FileEffect, context: CheckContext): Promise<Check[]> {
  const checks = await fileChecks(effect, context);
  if (effect.kind !== "read" || !context.readRulesBind?.()) return checks;
  const throughLinks = await Promise.all(checks.map(linkTargetChecks));
  return [...checks, ...throughLinks.flat()];
}

/** The checks of one file a command names, for every folder it may be relative to. */
async function fileChecks(effect: FileEffect, context: CheckContext): Promise<Check[]> {
  if (effect.unknownUse) return unknownUseChecks(effect, context);
  const word = effect.word;
  const named = word.value ?? word.pattern;
  if (named === undefined) {
    // `$dir/log.txt` cannot be a protected file, whatever $dir is: their names are known
    const names = [word.name, ...(effect.into ?? []).map((source) => source.value && baseName(source.value))];
    const mayBeProtected =
      effect.recursive === true || names.some((name) => !name || nameMayBeProtected(name));
    return [unknownTarget(effect, context, describeUnknown(effect), mayBeProtected)];
  }
  // /proc/self/cwd and the like name the shell's own files, not Gantry's
  if (named.startsWith("/proc/"))
    return [unknownTarget(effect, context, `${named} (a path of the process itself)`)];
  const checks: Check[] = [];
  const relative = !path.isAbsolute(named);
  if (relative && effect.folders.unknown) {
    const reason =
      "the folder it is relative to is known only when the command runs (a cd before it, find -execdir)";
    checks.push(
      unknownTarget(effect, context, `${named} (${reason})`, nameMayBeProtected(named) || !!effect.recursive),
    );
  }
  const folders = relative ? effect.folders.paths : ["/"];
  for (const folder of folders) {
    if (word.pattern !== undefined) checks.push(await patternCheck(effect, folder, word.pattern, context));
    else checks.push(...(await placeChecks(effect, folder, named, context, shownAs(effect))));
  }
  const why = effect.why;
  return dedupe(why ? checks.map((check) => ({ ...check, label: `${check.label} (${why})` })) : checks);
}

/** How a path is shown: as its value, or as written when `~` stood for the home folder. */
function shownAs(effect: FileEffect): string {
  const { word } = effect;
  return word.written.startsWith("~") ? word.written : (word.value ?? word.written);
}

async function placeChecks(
  effect: FileEffect,
  folder: string,
  input: string,
  context: CheckContext,
  label: string,
) {
  const checks: Check[] = [];
  for (const landing of await landingPlacesOnce(context.landings, folder, input)) {
    if (landing === undefined) {
      checks.push(unknownTarget(effect, context, `${input} (through a dangling symlink)`));
      continue;
    }
    const named = path.resolve(folder, input);
    const into = effect.into && (effect.alwaysInto || (await isExistingFolder(landing)));
    if (!into) {
      checks.push(await placeCheck(effect, { label, named, resolved: landing }, context));
      continue;
    }
    for (const source of effect.into ?? []) {
      const name = source.value !== undefined ? baseName(source.value) : undefined;
      // a source whose name only running tells could land anywhere in the folder
      const place =
        name === undefined || name === "." || name === ".." || name === ""
          ? { label, named, resolved: landing, recursive: true }
          : {
              label: path.join(label, name),
              named: path.join(named, name),
              resolved: path.join(landing, name),
            };
      checks.push(await placeCheck(effect, place, context));
    }
  }
  return checks;
}

interface Place {
  label: string;
  named: string;
  resolved: string;
  recursive?: boolean;
}

async function placeCheck(effect: FileEffect, place: Place, context: CheckContext): Promise<Check> {
  const root = context.workspaceRoot;
  // a file holds no others: `grep -r x file` reads that file alone
  const recursive =
    (place.recursive === true || effect.recursive === true) && !(await isExistingFile(place.resolved));
  const kind = effect.kind;
  const check: Check = {
    tool: TOOL_OF[kind],
    safety: kind === "read" ? "read_only" : isInside(root, place.resolved) ? "write" : "execute",
    label: place.label,
    value: {
      type: "path",
      named: place.named,
      resolved: place.resolved,
      directory: recursive || effect.lists === true,
      ...(recursive ? { recursive: true } : {}),
    },
  };
  // a file a command reads, or one a new link points at, needs no approval of its own: deny and ask rules judge it
  if (kind === "read" || effect.linksTo) check.implied = true;
  if (kind !== "read" && !context.allowAgentConfigEdits) {
    const places = protectedPlaces(context);
    const hit = recursive
      ? await protectedFileInside(places, place, effect.onlyNames)
      : ((await protectedFileAt(places, place.named, place.resolved)) ??
        (await protectedHardLink(places, place.resolved)));
    if (hit !== undefined) check.protectedFile = hit;
  }
  return check;
}

/** `rm logs/*.txt`: judged on the pattern's folder and what it holds; protected if it could match one. */
async function patternCheck(effect: FileEffect, folder: string, pattern: string, context: CheckContext) {
  const absolute = path.isAbsolute(pattern);
  const base = absolute ? "/" : folder;
  const relative = absolute ? pattern.slice(1) : pattern;
  const literal = relative.split("/");
  const firstWild = literal.findIndex((part) => /[*?[]/.test(part));
  const literalFolder = literal.slice(0, Math.max(0, firstWild)).join("/") || ".";
  const [landing] = await landingPlacesOnce(context.landings, base, literalFolder);
  if (landing === undefined) return unknownTarget(effect, context, `${pattern} (through a dangling symlink)`);
  const check = await placeCheck(
    { ...effect, onlyNames: undefined },
    { label: pattern, named: path.resolve(base, literalFolder), resolved: landing, recursive: true },
    context,
  );
  delete check.protectedFile;
  if (effect.kind !== "read" && !context.allowAgentConfigEdits) {
    const rest = literal.slice(Math.max(0, firstWild)).join("/");
    const hit = await patternMayHitProtected(protectedPlaces(context), landing, rest);
    if (hit !== undefined) check.protectedFile = hit;
  }
  return check;
}

/** A file no rule can judge before the command runs: `> $OUT`, `tee "$(pick)"`, a path after `cd "$d"`. */
function unknownTarget(
  effect: FileEffect,
  context: CheckContext,
  label: string,
  mayBeProtected = true,
): Check {
  const kind = effect.kind;
  const check: Check = {
    tool: TOOL_OF[kind],
    safety: kind === "read" ? "read_only" : "execute",
    label,
    value: { type: "path", directory: false },
    unknown: "where it lands is known only when the command runs",
  };
  if (kind !== "read" && mayBeProtected && !context.allowAgentConfigEdits) check.mayBeProtected = true;
  return check;
}

function describeUnknown(effect: FileEffect): string {
  if (effect.via === "redirection") return "a redirection target known only when the command runs";
  return `${effect.word.written} (a file "${effect.via}" names, known only when it runs)`;
}

function protectedPlaces(context: CheckContext): ProtectedPlaces {
  return { root: context.workspaceRoot, extra: context.protectedPaths ?? [] };
}

function dedupe(checks: Check[]): Check[] {
  const seen = new Set<string>();
  return checks.filter((check) => {
    const key = JSON.stringify([check.tool, check.label, check.value]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
