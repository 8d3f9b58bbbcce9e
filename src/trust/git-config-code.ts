import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { isGitCommandKey } from "../policy/shell-config-commands.js";
import { enclosingGitEntry, repositoryConfigFiles } from "../tools/exec/git-layout.js";
import type { DefinedCode } from "./repo-defined-code.js";

/**
 * What the repository's own git files make any `git` command run (a home hook's `git status` or `git
 * diff`): a command its configuration names (`core.fsmonitor`, `diff.external`, a filter, the alias
 * the command calls; the user's own ~/.gitconfig is not the workspace's), and a hook in its hooks folder
 * (`git status` writes the index and runs `post-index-change`; `commit`, `checkout`, `merge` run
 * theirs). Only for a repository whose `.git` lies in the workspace; a `.git` file is followed where
 * it points, since the workspace wrote the pointer. A fresh clone sets none of these.
 */
export function gitDefinedCode(
  args: readonly string[],
  folders: readonly string[],
  root: string,
): DefinedCode[] {
  const { subcommand, folder } = gitInvocation(args);
  if (subcommand === undefined || /^(?:--?(?:version|help)|help|version)$/.test(subcommand)) return [];
  const found: DefinedCode[] = [];
  const seen = new Set<string>();
  for (const base of folders) {
    const dotGit = enclosingGitEntry(path.resolve(base, folder));
    if (dotGit === undefined || !isInsideOrAt(root, path.dirname(dotGit)) || seen.has(dotGit)) continue;
    seen.add(dotGit);
    const hooksPaths: string[] = [];
    for (const file of repositoryConfigFiles(dotGit))
      for (const entry of configEntries(file, root, 0)) {
        if (entry.key === "core.hookspath") hooksPaths.push(path.resolve(path.dirname(dotGit), entry.value));
        else if (runsCommand(entry, subcommand))
          found.push({ file: entry.file, why: `git runs the ${entry.key} command {} defines` });
      }
    const hooks = hooksPaths.at(-1) ?? path.join(commonGitDir(dotGit), "hooks");
    for (const hook of activeHooks(hooks))
      if (!READING.test(subcommand) || path.basename(hook) === "post-index-change")
        found.push({ file: hook, why: "git runs the hook {}" });
  }
  return found;
}

/** Commands that change no ref and no work tree: of the hooks only `post-index-change` runs (a refreshed index is written). */
const READING =
  /^(?:status|diff|log|show|blame|annotate|grep|ls-files|ls-tree|rev-parse|rev-list|describe|shortlog|cat-file|diff-files|diff-index|diff-tree|config|whatchanged)$/;

/** git's own options before the subcommand (`-C dir`, `-c k=v`, `--no-pager`). */
function gitInvocation(args: readonly string[]): { subcommand?: string; folder: string } {
  let folder = ".";
  for (let at = 0; at < args.length; at++) {
    const word = args[at] ?? "";
    if (word === "-C") {
      // `-C a -C b` is a/b; `-C /x` starts again from /x
      const value = args[++at] ?? ".";
      folder = path.isAbsolute(value) ? value : path.join(folder, value);
    } else if (word === "-c" || word === "--git-dir" || word === "--work-tree" || word === "--namespace")
      at++;
    else if (!word.startsWith("-") || word === "--version" || word === "--help")
      return { subcommand: word, folder };
  }
  return { folder };
}

/** `core.fsmonitor = true` is git's own daemon, not a command; an alias counts when the command calls it. */
function runsCommand(entry: ConfigEntry, subcommand: string): boolean {
  if (entry.value === "" || !isGitCommandKey(entry.key)) return false;
  if (entry.key === "core.fsmonitor") return !/^(?:true|false|yes|no|on|off|1|0)$/i.test(entry.value);
  if (entry.key.startsWith("alias.")) return entry.key === `alias.${subcommand.toLowerCase()}`;
  return true;
}

interface ConfigEntry {
  key: string;
  value: string;
  file: string;
}

const MAX_INCLUDE_DEPTH = 4;

/**
 * The entries of one git config file, keys lower-cased (`filter.lfs.clean`), with what the includes it
 * names hold when they lie in the workspace (one outside it is the user's own, or nobody's to judge).
 */
function configEntries(file: string, root: string, depth: number): ConfigEntry[] {
  let text: string;
  try {
    if (!statSync(file).isFile() || statSync(file).size > 1_000_000) return [];
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const entries: ConfigEntry[] = [];
  let section = "";
  for (const raw of joinContinuations(text).split("\n")) {
    const line = raw.trim();
    const header = /^\[\s*([^\s\]"]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\](.*)$/.exec(line);
    if (header) {
      const name = (header[1] ?? "").toLowerCase();
      section = header[2] === undefined ? name : `${name}.${header[2].replace(/\\(.)/g, "$1")}`;
      const rest = (header[3] ?? "").trim();
      if (rest === "" || /^[#;]/.test(rest)) continue;
      entries.push(...entryOf(rest, section, file));
      continue;
    }
    entries.push(...entryOf(line, section, file));
  }
  const included = entries.flatMap((entry) => {
    if (depth >= MAX_INCLUDE_DEPTH || !/^(?:include|includeif\..+)\.path$/.test(entry.key)) return [];
    const target = path.resolve(path.dirname(file), entry.value);
    return isInsideOrAt(root, target) ? configEntries(target, root, depth + 1) : [];
  });
  return [...entries, ...included];
}

function entryOf(line: string, section: string, file: string): ConfigEntry[] {
  if (line === "" || /^[#;]/.test(line) || section === "") return [];
  const match = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/.exec(line);
  if (!match) return [];
  const value = match[2] === undefined ? "true" : configValue(match[2]);
  return [{ key: `${section}.${(match[1] ?? "").toLowerCase()}`, value, file }];
}

/** A value as git reads it: quotes removed, escapes applied, a comment outside quotes dropped. */
function configValue(raw: string): string {
  let value = "";
  let quoted = false;
  for (let at = 0; at < raw.length; at++) {
    const c = raw[at] as string;
    if (c === "\\") {
      const next = raw[++at] ?? "";
      value += next === "n" ? "\n" : next === "t" ? "\t" : next;
    } else if (c === '"') quoted = !quoted;
    else if (!quoted && (c === "#" || c === ";")) break;
    else value += c;
  }
  return value.trim();
}

function joinContinuations(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(/\\\n/g, "");
}

/** The hooks git would run: files not named `*.sample` that may be executed. */
function activeHooks(folder: string): string[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  return names
    .filter((name) => !name.endsWith(".sample"))
    .map((name) => path.join(folder, name))
    .filter((file) => {
      try {
        const stats = statSync(file);
        return stats.isFile() && (stats.mode & 0o111) !== 0;
      } catch {
        return false;
      }
    });
}

function commonGitDir(dotGit: string): string {
  let gitDir = dotGit;
  try {
    if (statSync(dotGit).isFile()) {
      const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, "utf8"))?.[1];
      if (pointer) gitDir = path.resolve(path.dirname(dotGit), pointer);
    }
    const common = path.join(gitDir, "commondir");
    if (existsSync(common)) return path.resolve(gitDir, readFileSync(common, "utf8").trim());
  } catch {
    // an unreadable pointer: git would fail the same way
  }
  return gitDir;
}

function isInsideOrAt(root: string, abs: string): boolean {
  const rel = path.relative(root, abs);
  return !rel.startsWith("..") && !path.isAbsolute(rel);
}
