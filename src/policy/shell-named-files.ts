import { hasOption, type OptionShape, optionValues, parseArgs } from "./shell-args.js";
import type { FileTarget } from "./shell-files.js";
import { literalWord, type ShellWord } from "./shell-words.js";

/** Programs that read every file operand and write none (their options, enough to find the operands). */
export const READERS: Record<string, OptionShape> = {
  cat: {},
  tac: {},
  nl: {},
  less: {},
  more: {},
  head: { valued: ["-n", "-c", "--lines", "--bytes"] },
  tail: { valued: ["-n", "-c", "-s", "--lines", "--bytes", "--pid", "--sleep-interval"] },
  wc: { valued: ["--files0-from"], reads: ["--files0-from"] },
  od: { valued: ["-A", "-j", "-N", "-t", "-w"] },
  hexdump: { valued: ["-n", "-s", "-e", "-f"], reads: ["-f"] },
  strings: { valued: ["-n", "-t", "-e"] },
  base64: { valued: ["-w", "--wrap"] },
  base32: { valued: ["-w", "--wrap"] },
  md5sum: {},
  sha1sum: {},
  sha256sum: {},
  sha512sum: {},
  cksum: {},
  cmp: { valued: ["-i", "-n", "--bytes", "--ignore-initial"] },
  diff: {
    valued: ["--label", "-L", "-I", "-F", "--from-file", "--to-file", "--exclude-from", "-X"],
    reads: ["--from-file", "--to-file", "--exclude-from", "-X"],
  },
  cut: { valued: ["-b", "-c", "-f", "-d", "--bytes", "--characters", "--fields", "--delimiter"] },
  paste: { valued: ["-d", "--delimiters"] },
  fold: { valued: ["-w", "--width"] },
  fmt: { valued: ["-w", "--width", "-p", "--prefix"] },
  expand: { valued: ["-t", "--tabs"] },
  unexpand: { valued: ["-t", "--tabs"] },
  column: { valued: ["-s", "-c", "-t", "-o"] },
  pr: { valued: ["-h", "--header", "-l", "-w", "-o"] },
  rev: {},
  look: {},
  comm: {},
  join: { valued: ["-t", "-1", "-2", "-j", "-o", "-e", "-a", "-v"] },
  jq: { valued: ["--arg", "--argjson", "--slurpfile", "--rawfile", "--indent", "-L"] },
};

/**
 * Programs that name paths without reading or changing what they hold (`echo x`, `stat x`, `cd x`),
 * or whose words are handled elsewhere: their words are not files a program Gantry does not know uses.
 */
const NAMES_ONLY = new Set([
  "echo",
  "printf",
  "test",
  "[",
  "[[",
  "true",
  "false",
  ":",
  "cd",
  "pushd",
  "popd",
  "export",
  "unset",
  "local",
  "declare",
  "typeset",
  "readonly",
  "set",
  "shopt",
  "shift",
  "exit",
  "return",
  "basename",
  "dirname",
  "realpath",
  "readlink",
  "which",
  "type",
  "hash",
  "stat",
  "file",
  "du",
  "kill",
  "sleep",
  "wait",
  "seq",
  "date",
  "expr",
  "let",
  "read",
  "mapfile",
  "readarray",
  "getopts",
  "umask",
  "printenv",
  "pwd",
  "id",
  "whoami",
  "uname",
  "find",
]);

/**
 * Programs besides the interpreters whose words are code that may open files or run commands: awk
 * (`getline < "f"`, `system("cat f")`), SQL shells (`.read f`, `readfile('f')`, `.shell cat f`), editors
 * run by ex commands (`vim -c '!cat f'`), `make --eval`, debuggers.
 */
const CODE_TAKERS = new Set(
  "awk gawk mawk nawk sqlite3 sqlite duckdb mysql mariadb psql vim vi nvim view ex ed emacs make gmake gdb tclsh expect Rscript deno".split(
    " ",
  ),
);
/** Whether the words after `name` are code of its own, which `pathsInCode` scans. */
export const takesCode = (name: string): boolean => CODE_TAKERS.has(name);
/** A quoted literal in code: `"…"` or `'…'` on one line. */
const QUOTED = /"((?:[^"\\\n]|\\.){1,1024})"|'((?:[^'\\\n]|\\.){1,1024})'/g;
/** A URL, whose path is no file here. */
const URL = /[a-z][a-z0-9+.-]*:\/\/\S*/gi;
/** Characters a path in code is read up to (quotes, brackets, operators, spaces end it). */
const PATH_CHARS = /[\w.~/@%+-]+/g;

/**
 * The paths named in code given on the command line (`python3 -c 'open("f")'`, `node -e`, `perl -e`,
 * an awk program, `os.system("cat f")`, `sqlite3 db '.read f'`): each quoted literal that looks like a
 * path (it holds a `/` or a `.`), and each such word inside the code, is judged as a file the program
 * may read or change. Code can build a name no scan sees; the sandbox is what keeps a denied file
 * unreadable for every program.
 */
export function pathsInCode(words: readonly ShellWord[]): FileTarget[] {
  const found = new Set<string>();
  for (const word of words.slice(1)) {
    const code = word.value;
    if (code === undefined) continue;
    for (const match of code.matchAll(QUOTED)) {
      const literal = (match[1] ?? match[2] ?? "").replace(/\\(.)/g, "$1");
      if (/[/.]/.test(literal) && !literal.includes("://")) found.add(literal);
    }
    // a path inside a command the code runs, or an ex or dot command: `system("cat f")`, `.read f`
    for (const [token] of code.replace(URL, " ").matchAll(PATH_CHARS))
      if (token !== code && /[/.]/.test(token) && /[^/.]/.test(token)) found.add(token);
  }
  return [...found].map((path) => ({ kind: "read", word: literalWord(path), unknownUse: true }));
}

/** A read of the files a list names (`tar -T -`), known only when the command runs. */
export const namesFromAList = (): FileTarget => ({
  kind: "read",
  word: { written: "the files named in a list it reads (its standard input or a file)" },
});

/**
 * `tar -T -`, `tar --files-from=list`, `zip -@`, `cpio -o`, `rsync --files-from`: files named one per
 * line in a list (standard input, or a file) rather than by the words, read only when it runs.
 */
export function readsNamesFromList(name: string, words: readonly ShellWord[]): boolean {
  return givenOption(words, LIST_OPTIONS[archiverFamily(name)]);
}

const LIST_OPTIONS: Record<string, RegExp | undefined> = {
  tar: /^(-[A-Za-z]*T.*|--files-from(=.*)?)$/,
  zip: /^-[A-Za-z]*@[A-Za-z]*$/,
  cpio: /^(-[A-Za-z]*[op][A-Za-z]*|--create|--pass-through)$/,
  rsync: /^--files-from(=.*)?$/,
};
const REMOVE_OPTIONS: Record<string, RegExp | undefined> = {
  tar: /^--remove-files$/,
  zip: /^(-[A-Za-z0-9]*m[A-Za-z0-9]*|--move)$/,
  "7z": /^-sdel$/,
};

/** tar, bsdtar and gtar are one family; so are 7z, 7za and 7zr. */
function archiverFamily(name: string): string {
  if (name === "bsdtar" || name === "gtar") return "tar";
  return name === "7za" || name === "7zr" ? "7z" : name;
}

/** Whether a literal word after the program matches `option` (none: false). */
function givenOption(words: readonly ShellWord[], option: RegExp | undefined): boolean {
  return (
    option !== undefined && words.slice(1).some((word) => word.value !== undefined && option.test(word.value))
  );
}

/**
 * Options with which a program that otherwise only names paths reads a file, whose lines then show in
 * its output or its errors: `file -f LIST`, `du --files0-from=LIST`, `date -f DATES`.
 */
const NAMES_ONLY_READS: Record<string, OptionShape> = {
  file: {
    valued: ["-f", "--files-from", "-m", "--magic-file", "-F", "--separator", "-P", "--parameter"],
    reads: ["-f", "--files-from", "-m", "--magic-file"],
  },
  du: {
    valued: ["--files0-from", "-X", "--exclude-from", "--exclude", "-d", "--max-depth", "-B", "--block-size"],
    reads: ["--files0-from", "-X", "--exclude-from"],
  },
  date: {
    // `-I[FMT]` takes its value attached only: `date -I -f F` still reads F
    valued: ["-f", "--file", "-r", "--reference", "-d", "--date", "--rfc-3339"],
    attachedOnly: ["-I"],
    reads: ["-f", "--file"],
  },
};

function namesOnlyReads(name: string, words: readonly ShellWord[]): FileTarget[] {
  const shape = Object.hasOwn(NAMES_ONLY_READS, name) ? NAMES_ONLY_READS[name] : undefined;
  if (!shape) return [];
  const args = parseArgs(words, 1, { ...shape, permute: true });
  const reads: FileTarget[] = optionValues(args, ...(shape.reads ?? [])).flatMap((word) =>
    word && word.value !== "-" ? [{ kind: "read" as const, word }] : [],
  );
  // du names what lies below each folder it is given, unless it only sums them up
  const summed =
    hasOption(args, "-s", "--summarize") ||
    /^(0|--max-depth=0)$/.test(optionValues(args, "-d", "--max-depth")[0]?.value ?? "");
  if (name === "du" && !summed) {
    const folders = args.operands.length > 0 ? args.operands : [literalWord(".")];
    reads.push(...folders.map((word) => ({ kind: "read" as const, word, lists: true, recursive: true })));
  }
  return reads;
}

/**
 * The folder a glob lists as the shell expands it (`echo secret/*` lists secret, as `ls secret` does);
 * a glob with wildcards before its last part lists what lies below its literal folder.
 */
export function globListing(word: ShellWord): FileTarget[] {
  // `*/` lists the folders of `.`, as `*` does
  const pattern = word.pattern?.replace(/(.)\/+$/, "$1");
  if (pattern === undefined) return [];
  const parts = pattern.split("/");
  const wild = parts.findIndex((part) => /[*?[]/.test(part));
  if (wild < parts.length - 1 || parts.slice(-1)[0]?.includes("**"))
    return [{ kind: "read", word, lists: true }];
  const folder = parts.slice(0, -1).join("/") || (pattern.startsWith("/") ? "/" : ".");
  return [{ kind: "read", word: literalWord(folder), lists: true }];
}

/**
 * The code an interpreter or a program of code reads from a heredoc or a here-string (`python3 <<'EOF'
 * … EOF`, `sqlite3 db <<< '.read f'`): scanned as `pathsInCode` scans its words; a text known only when
 * running is a read known only when running.
 */
export function pathsInFedCode(stdinText: ShellWord): FileTarget[] {
  if (stdinText.value === undefined)
    return [{ kind: "read", word: { written: "the files the code on its standard input names" } }];
  return pathsInCode([literalWord(""), stdinText]);
}

/** git subcommands that only read what their operands name (the rest may change it: `git rm`, `git checkout`). */
const GIT_READS = new Set([
  "diff",
  "log",
  "show",
  "status",
  "blame",
  "grep",
  "ls-files",
  "shortlog",
  "whatchanged",
]);

/**
 * The files a program Gantry has no account of may use (SPEC §5: a deny rule holds against every
 * route): each literal word after it that could be a path, and the value of `--opt=PATH`. Each is
 * judged as a read, and by deny rules and the protected files as a change (`gzip x` replaces x).
 * A word known only when running is a read known only when running, as `cat $f`'s is.
 */
export function filesNamedByUnknownProgram(
  name: string,
  words: readonly ShellWord[],
  interpreter: boolean,
): FileTarget[] {
  if (NAMES_ONLY.has(name)) return [...namesOnlyReads(name, words), ...words.slice(1).flatMap(globListing)];
  const subcommand = name === "git" ? gitSubcommand(words) : undefined;
  const readOnly = subcommand !== undefined && GIT_READS.has(subcommand);
  const targets: FileTarget[] = name === "git" ? gitHistoryReads(words, subcommand) : [];
  if (readsNamesFromList(name, words)) targets.push(namesFromAList());
  // archivers told to delete what they take (`tar --remove-files`, `zip -m`, `7z -sdel`) move it out
  const removes = givenOption(words, REMOVE_OPTIONS[archiverFamily(name)]);
  if (interpreter || takesCode(name)) targets.push(...pathsInCode(words));
  let scriptSeen = false;
  // git -C DIR: the words after its subcommand are paths from DIR (the words before it are judged as given)
  const gitAt = name === "git" ? gitSubcommandAt(words) : undefined;
  const movesGit = gitAt !== undefined && words.slice(1, gitAt).some((word) => word.value === "-C");
  const inGitFolder = movesGit ? gitFolderOf(words) : undefined;
  for (const [at, word] of words.entries()) {
    if (at === 0) continue;
    const named = pathPart(word);
    if (!named) continue;
    const candidate =
      inGitFolder && gitAt !== undefined && at > gitAt && named.value !== undefined
        ? inGitFolder(named.value)
        : named;
    // an interpreter's script is run, so read; the words after it are the script's to use
    const onlyRead = readOnly || (interpreter && !scriptSeen && !word.value?.startsWith("-"));
    if (interpreter && !word.value?.startsWith("-")) scriptSeen = true;
    targets.push({ kind: "read", word: candidate, ...(onlyRead ? {} : { unknownUse: true }) });
    if (removes) targets.push({ kind: "delete", word: candidate, recursive: true, moves: true });
  }
  return targets;
}

/**
 * git subcommands that print what files hold (the history's, the index's, the working tree's): each
 * reads every file its pathspecs cover, and every tracked file without one. Some print content only
 * with a patch option; `stash show` prints one when the repository's own configuration says so.
 */
const GIT_CONTENT = new Set([
  "grep",
  "show",
  "log",
  "whatchanged",
  "archive",
  "format-patch",
  "diff",
  "diff-index",
  "diff-files",
  "diff-tree",
  "range-diff",
  "difftool",
  "stash",
  "cat-file",
  "add",
  "stage",
  "reflog",
  "rerere",
  // copies of the files elsewhere, where no rule of this workspace covers them
  "clone",
  "worktree",
  "bundle",
  "checkout-index",
  "fast-export",
  "pack-objects",
]);
/**
 * git's own commands that print no file's content. Any other word there may be an alias (`git -c
 * alias.d=diff d`, `git config alias.d diff`) or a `git-<name>` program: judged as printing every file.
 */
const GIT_NO_CONTENT_COMMANDS = new Set([
  ..."am apply bisect blame annotate branch checkout cherry cherry-pick clean commit commit-graph".split(" "),
  ..."commit-tree config count-objects credential describe fetch fetch-pack for-each-ref fsck gc".split(" "),
  ..."hash-object help index-pack init init-db interpret-trailers ls-files ls-remote ls-tree lfs".split(" "),
  ..."maintenance merge merge-base merge-file mktag mktree mv name-rev notes pack-refs prune pull".split(" "),
  ..."push read-tree rebase remote repack replace reset restore rev-list rev-parse".split(" "),
  ..."revert rm shortlog show-branch show-ref sparse-checkout status submodule switch".split(" "),
  ..."symbolic-ref tag update-index update-ref var verify-commit verify-pack verify-tag version".split(" "),
  ..."write-tree".split(" "),
]);
const GIT_CONTENT_WITH_PATCH_ONLY = new Set([
  "log",
  "whatchanged",
  "reflog",
  "diff-index",
  "diff-files",
  "diff-tree",
]);
/** Options of diff, show, log and stash that make a patch (or a line history) whatever else is asked for. */
const GIT_PATCH =
  /^(-p|--patch|-u|--patch-with-stat|--patch-with-raw|-L.*|--cc|-c|--full-diff|-W|--function-context|-U\d*|--unified(=.*)?|--word-diff(=.*)?|--color-words(=.*)?|--binary)$/;
/** `git add` options that show each change's hunk (`-u` there only stages tracked files). */
const GIT_ADD_HUNKS = /^(-p|--patch|-i|--interactive|-e|--edit)$/;
/** Options with which diff, show and log print no file's content, unless a patch option is given too. */
const GIT_NO_CONTENT =
  /^(--stat(=.*)?|--shortstat|--numstat|--dirstat(=.*)?|--name-only|--name-status|--raw|-s|--no-patch)$/;
/** `cat-file` options that print an object's type, size or existence, not what it holds. */
const GIT_OBJECT_FACTS = /^(-t|-s|-e|--batch-check(=.*)?)$/;

/**
 * `git show HEAD:secret`, `git cat-file -p :secret` read a path the word holds after its `:`;
 * `git grep x`, `git diff`, `git show`, `git log -p`, `git archive` read every tracked file without a
 * pathspec after `--`, and each pathspec's whole folder with one (a glob or `:(magic)` pathspec may
 * match anywhere: the whole workspace).
 */
function gitHistoryReads(words: readonly ShellWord[], subcommand: string | undefined): FileTarget[] {
  const targets: FileTarget[] = [];
  const inGitFolder = gitFolderOf(words);
  for (const word of words.slice(1)) {
    const value = word.value;
    const colon = value?.indexOf(":") ?? -1;
    if (value !== undefined && colon >= 0 && !value.startsWith("-") && colon < value.length - 1)
      targets.push({ kind: "read", word: revPathWord(value.slice(colon + 1), inGitFolder) });
  }
  if (subcommand === undefined || GIT_NO_CONTENT_COMMANDS.has(subcommand)) return targets;
  const values = words.map((word) => word.value);
  const after = values.slice(values.indexOf(subcommand) + 1);
  const everything: FileTarget = {
    kind: "read",
    word: literalWord("."),
    recursive: true,
    why: `every tracked file "git ${subcommand}" may print; name the paths after "--"`,
  };
  if (subcommand === "clone") {
    const source = cloneSource(after);
    return source === undefined || isLocalRepository(source) ? [everything] : [];
  }
  const patches = patchAsked(subcommand, after);
  if (!patches && !printsContent(subcommand, after)) return targets;
  // `git diff --no-index a b` compares the two paths it names (folders with all they hold)
  if (subcommand === "diff" && after.includes("--no-index"))
    return [...targets, ...pathWords(words, values.indexOf(subcommand) + 1)];
  // without `--`, a word may be a revision as well as a path: `git diff main` prints every changed file
  const dashes = values.indexOf("--");
  if (dashes < 0 || dashes === values.length - 1) {
    // `REV:path` names what it prints, when every word is one and nothing else is asked for
    const operands = after.filter((value) => value !== "--" && !value?.startsWith("-"));
    const onlyRevPaths =
      operands.length > 0 && operands.every((value) => value !== undefined && isRevPath(value));
    return onlyRevPaths && !patches ? targets : [...targets, everything];
  }
  for (const word of words.slice(dashes + 1)) {
    const value = word.value;
    if (value === undefined || word.pattern !== undefined || /[*?[]/.test(value) || value.startsWith(":"))
      return [...targets, everything];
    targets.push({ kind: "read", word: inGitFolder(value), recursive: true });
  }
  return targets;
}

/**
 * Where git runs: `git -C a -C b` works in a/b, so its pathspecs and `REV:./path` lead from there
 * (a path it is given, as a word in the shell's folder); a `-C` known only when running makes them so.
 */
function gitFolderOf(words: readonly ShellWord[]): (relative: string) => ShellWord {
  const folder = gitWorkingFolder(words);
  if (folder === ".") return literalWord;
  if (folder === undefined) return (relative) => ({ written: `${relative} (after git -C)` });
  return (relative) => literalWord(relative.startsWith("/") ? relative : `${folder}/${relative}`);
}

/** The folder `git -C a -C b` works in, from the shell's (`.` without one); undefined when only running tells. */
export function gitWorkingFolder(words: readonly ShellWord[]): string | undefined {
  const folders: (string | undefined)[] = [];
  for (let at = 1; at < words.length; at++) {
    const value = words[at]?.value;
    if (value === "-C") folders.push(words[++at]?.value);
    else if (value === "-c" || value === "--git-dir" || value === "--work-tree") at++;
    else if (value === undefined || !value.startsWith("-")) break;
  }
  if (folders.includes(undefined)) return undefined;
  return folders.reduce<string>((joined, next) => (next?.startsWith("/") ? next : `${joined}/${next}`), ".");
}

/**
 * The file `REV:path` names: `./x` and `../x` lead from where git runs; any other path from the
 * repository's top, judged where the shell is (deny rules also match it as written).
 */
function revPathWord(named: string, inGitFolder: (relative: string) => ShellWord): ShellWord {
  return /^\.\.?(\/|$)/.test(named) ? inGitFolder(named) : literalWord(named);
}

/** The words from `from` on that are not options, each as a folder read with all it holds. */
function pathWords(words: readonly ShellWord[], from: number): FileTarget[] {
  return words
    .slice(from)
    .filter((word) => !word.value?.startsWith("-"))
    .map((word) => ({ kind: "read", word, recursive: true }));
}

/** `HEAD:path`, `:path`, `:0:path`: an object named by a revision and a path. */
function isRevPath(value: string): boolean {
  const colon = value.indexOf(":");
  return colon >= 0 && colon < value.length - 1;
}

/** `git clone`'s options that take the next word as their value. */
const CLONE_VALUE_OPTIONS = new Set(
  "-b --branch -o --origin -u --upload-pack --reference --reference-if-able --separate-git-dir --depth --shallow-since --shallow-exclude -c --config --template -j --jobs --filter --server-option --bundle-uri --ref-format".split(
    " ",
  ),
);

/** The repository `git clone` copies: its first operand; undefined when only running tells. */
function cloneSource(after: readonly (string | undefined)[]): string | undefined {
  for (let at = 0; at < after.length; at++) {
    const value = after[at];
    if (value === undefined) return undefined;
    if (value === "--") return after[at + 1];
    if (CLONE_VALUE_OPTIONS.has(value)) at++;
    else if (!value.startsWith("-")) return value;
  }
  return undefined;
}

/** A clone source on this machine (a path, `file://`), not another host's (`https://`, `host:path`). */
function isLocalRepository(source: string): boolean {
  if (source.startsWith("file:")) return true;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) return false;
  // scp-like `[user@]host:path`: a colon before any slash
  const colon = source.indexOf(":");
  return colon < 0 || source.slice(0, colon).includes("/");
}

/** Whether a git content subcommand is asked for patches (`diff --stat -p`, `stash show -p`, `add -p`). */
function patchAsked(subcommand: string, after: readonly (string | undefined)[]): boolean {
  const given = (pattern: RegExp) => after.some((value) => value !== undefined && pattern.test(value));
  if (subcommand === "add" || subcommand === "stage") return given(GIT_ADD_HUNKS);
  // `git stash -u` stashes untracked files; only show and list print what a stash holds
  if (subcommand === "stash") return (after.includes("show") || after.includes("list")) && given(GIT_PATCH);
  if (subcommand === "cat-file" || subcommand === "grep") return false;
  return given(GIT_PATCH);
}

/** Whether a git content subcommand prints a file's content without a patch option. */
function printsContent(subcommand: string, after: readonly (string | undefined)[]): boolean {
  const given = (pattern: RegExp) => after.some((value) => value !== undefined && pattern.test(value));
  // an alias or a git-<name> program: what it prints only running tells
  if (!GIT_CONTENT.has(subcommand)) return true;
  switch (subcommand) {
    case "grep":
    case "archive":
    case "format-patch":
    case "range-diff":
    case "difftool":
      return true;
    case "cat-file":
      return !given(GIT_OBJECT_FACTS);
    case "add":
    case "stage":
      return false;
    case "rerere":
      return after.includes("diff");
    case "worktree":
      return after.includes("add");
    case "bundle":
      return after.includes("create");
    case "checkout-index":
    case "fast-export":
    case "pack-objects":
      return true;
    case "stash":
      return after.includes("show") && !given(GIT_NO_CONTENT);
    default:
      return !GIT_CONTENT_WITH_PATCH_ONLY.has(subcommand) && !given(GIT_NO_CONTENT);
  }
}

/** The word as a path (or a pattern, or one known only when running), `--opt=PATH`'s PATH, or undefined for an option. */
function pathPart(word: ShellWord): ShellWord | undefined {
  if (word.pattern !== undefined) return word;
  const value = word.value;
  // `$f`: a read known only when it runs, as `cat $f` is (an option, `-x$y`, is none)
  if (value === undefined) return word.written.startsWith("-") ? undefined : word;
  if (value === "" || value === "-" || value.includes("\n")) return undefined;
  if (!value.startsWith("-")) return word;
  const equals = value.indexOf("=");
  if (equals < 0 || equals === value.length - 1) return undefined;
  return literalWord(value.slice(equals + 1));
}

function gitSubcommand(words: readonly ShellWord[]): string | undefined {
  const at = gitSubcommandAt(words);
  return at === undefined ? undefined : words[at]?.value;
}

/** Where git's subcommand word is (after its own options); undefined when only running tells. */
export function gitSubcommandAt(words: readonly ShellWord[]): number | undefined {
  for (let at = 1; at < words.length; at++) {
    const value = words[at]?.value;
    if (value === undefined) return undefined;
    if (value === "-C" || value === "-c" || value === "--git-dir" || value === "--work-tree") at++;
    else if (!value.startsWith("-")) return at;
  }
  return undefined;
}
