import { hasOption, type OptionShape, optionValues, type ParsedArgs, parseArgs } from "./shell-args.js";
import type { FileTarget } from "./shell-files.js";
import { gitSubcommandAt, gitWorkingFolder } from "./shell-named-files.js";
import { literalWord, type ShellWord } from "./shell-words.js";
import type { StandardInput } from "./shell-wrappers.js";

/**
 * Commands that change the working tree without naming the files they change (SPEC §5: deny rules and
 * the protected files hold against every route): `git reset --hard`, `git checkout`, `git stash`,
 * `git clean`, merges and patches. Which files they change is asked of git (and read from the patch)
 * when the command is judged (src/policy/tree-changes.ts); the words only say what to ask.
 */
export interface TreeChange {
  /** The command as written, for messages. */
  command: string;
  /** The folder the command works from, relative to the shell's (`git -C`, `patch -d`). */
  folder: string;
  parts: TreePart[];
  /** Why which files it changes is known only when it runs. */
  unknown?: string;
}

/** One set of files a tree change may change; pathspecs are git's, from the command's folder (none: all). */
export type TreePart =
  /** Tracked files whose working copy or index differs from HEAD: a reset, a forced checkout, a stash. */
  | { kind: "local"; pathspecs: string[] }
  /**
   * Files that differ between HEAD and a revision: what a checkout, reset or merge of it rewrites. A
   * word that may be a path instead (`git checkout x`) counts only as a revision git knows; `ifExists`
   * is a revision that may be missing (ORIG_HEAD), which then changes nothing.
   */
  | { kind: "between"; rev: string; pathspecs: string[]; maybePath?: boolean; ifExists?: boolean }
  /** Files a commit changes against its parent: what a cherry-pick or revert of it applies. */
  | { kind: "commit"; rev: string }
  /** Untracked files (git clean, git stash -u), and whether ignored ones count. */
  | { kind: "untracked"; ignored: "no" | "also" | "only"; pathspecs: string[] }
  /** Tracked files: git rm, git mv's sources. */
  | { kind: "tracked"; pathspecs: string[] }
  /** The files a stash holds: what git stash pop and apply write back. */
  | { kind: "stash"; ref: string }
  /** The files a patch names. */
  | { kind: "patch"; source: PatchSource; strip: number | undefined; prefix: string; git: boolean };

/**
 * Where a patch's text comes from: a file (from the command's folder, or the shell's for a redirection),
 * the text itself (a heredoc), or only running tells.
 */
export type PatchSource = { file: string; fromShell?: boolean } | { text: string } | { unknown: string };

const UNKNOWN_WORD = "a word of it is known only when it runs";

/**
 * The tree changes of one command (`git …`, `patch …`): a delete for git clean, a write for the rest.
 * `gitUnknown` says why what git holds now does not tell what the command will change (an earlier git
 * command of the line may move HEAD, a branch, the index or the stash; GIT_DIR points elsewhere).
 */
export function treeWritesOf(
  name: string,
  words: readonly ShellWord[],
  stdin: StandardInput,
  gitUnknown?: string,
): FileTarget[] {
  const change =
    name === "git" ? gitTreeChange(words, stdin) : name === "patch" ? patchChange(words, stdin) : undefined;
  if (!change) return [];
  if (gitUnknown !== undefined && name === "git") change.unknown ??= gitUnknown;
  const clean = name === "git" && words[gitSubcommandAt(words) ?? 0]?.value === "clean";
  return [
    {
      kind: clean ? "delete" : "write",
      word: literalWord(change.folder),
      recursive: true,
      tree: change,
      why: `a file "${change.command}" changes`,
    },
  ];
}

const text = (words: readonly ShellWord[]) => words.map((word) => word.value ?? word.written).join(" ");

function gitTreeChange(words: readonly ShellWord[], stdin: StandardInput): TreeChange | undefined {
  const at = gitSubcommandAt(words);
  const subcommand = at === undefined ? undefined : words[at]?.value;
  if (at === undefined || subcommand === undefined) return undefined;
  const reader = GIT_TREE_WRITERS[subcommand];
  if (!reader) return undefined;
  const command = text(words);
  const folder = gitWorkingFolder(words);
  const before = words.slice(1, at).map((word) => word.value);
  // another work tree or repository than the folder's: which files git changes only running tells
  const elsewhere = before.some((value) => value === undefined || /^--(git-dir|work-tree)(=|$)/.test(value));
  const parsed = reader(words.slice(at), stdin);
  if (parsed === undefined) return undefined;
  const change: TreeChange = { command, folder: folder ?? ".", parts: parsed.parts ?? [] };
  const unknown =
    folder === undefined
      ? "the folder git -C names is known only when it runs"
      : elsewhere
        ? "it names another work tree or git folder"
        : parsed.unknown;
  if (unknown) change.unknown = unknown;
  return change;
}

interface Parsed {
  parts?: TreePart[];
  unknown?: string;
}

type GitReader = (words: readonly ShellWord[], stdin: StandardInput) => Parsed | undefined;

/** The operands' values; undefined when one is known only when running. */
function values(operands: readonly ShellWord[]): string[] | undefined {
  const found = operands.map((word) => word.value);
  return found.includes(undefined) ? undefined : (found as string[]);
}

/** Parses a git subcommand's words (from the subcommand itself); pathspecs read from a file are unknown. */
function gitArgs(words: readonly ShellWord[], shape: OptionShape): ParsedArgs {
  return parseArgs(words, 1, { permute: true, ...shape });
}

function fromFile(args: ParsedArgs): boolean {
  return hasOption(args, "--pathspec-from-file") || hasOption(args, "--stdin");
}

/** Operands before `--` and after it, from the words themselves (parseArgs joins them). */
function splitAtDashes(
  words: readonly ShellWord[],
  args: ParsedArgs,
): { before: ShellWord[]; after?: ShellWord[] } {
  const dashes = words.findIndex((word, index) => index > 0 && word.value === "--");
  if (dashes < 0) return { before: args.operands };
  const after = words.slice(dashes + 1);
  return { before: args.operands.slice(0, args.operands.length - after.length), after };
}

const clean: GitReader = (words) => {
  const args = gitArgs(words, { valued: ["-e", "--exclude"] });
  if (hasOption(args, "-n", "--dry-run")) return undefined;
  const pathspecs = values(args.operands);
  if (!pathspecs) return { unknown: UNKNOWN_WORD };
  const ignored = hasOption(args, "-X") ? "only" : hasOption(args, "-x") ? "also" : "no";
  return { parts: [{ kind: "untracked", ignored, pathspecs }] };
};

const reset: GitReader = (words) => {
  const args = gitArgs(words, { valued: ["--pathspec-from-file"] });
  if (!hasOption(args, "--hard", "--merge", "--keep")) return undefined;
  const revs = values(args.operands);
  if (!revs) return { unknown: UNKNOWN_WORD };
  return {
    parts: [
      { kind: "local", pathspecs: [] },
      { kind: "between", rev: revs[0] ?? "HEAD", pathspecs: [] },
    ],
  };
};

const CHECKOUT_SHAPE: OptionShape = {
  valued: ["-b", "-B", "--orphan", "--pathspec-from-file"],
};

/**
 * `git checkout [REV] [--] [PATHS]`: a word before `--` may be a revision or a path, so each is asked
 * both ways (a revision's changes, and the working copy's of the paths). A new branch starts at REV.
 */
const checkout: GitReader = (words) => {
  const args = gitArgs(words, CHECKOUT_SHAPE);
  if (fromFile(args)) return { unknown: "it reads its paths from a file" };
  const { before, after } = splitAtDashes(words, args);
  const revsOrPaths = values(before);
  const paths = after ? values(after) : [];
  if (!revsOrPaths || !paths) return { unknown: UNKNOWN_WORD };
  if (hasOption(args, "--orphan")) return { parts: [{ kind: "tracked", pathspecs: [] }] };
  const candidates = revsOrPaths.map((value) => (value === "-" ? "@{-1}" : value));
  const [rev, ...rest] = candidates;
  const forced = hasOption(args, "-f", "--force", "-m", "--merge", "-p", "--patch");
  if (after) {
    const parts: TreePart[] = [{ kind: "local", pathspecs: paths }];
    if (rev !== undefined) parts.push({ kind: "between", rev, pathspecs: paths });
    return { parts };
  }
  if (rev === undefined) return forced ? { parts: [{ kind: "local", pathspecs: [] }] } : undefined;
  // without `--` the first word is a revision (the rest its paths) or a path like the rest
  const parts: TreePart[] = [
    { kind: "between", rev, pathspecs: rest, maybePath: true },
    { kind: "local", pathspecs: candidates },
  ];
  if (forced) parts.push({ kind: "local", pathspecs: rest });
  return { parts };
};

const switchBranch: GitReader = (words) => {
  const args = gitArgs(words, {
    valued: ["-c", "-C", "--create", "--force-create", "--orphan", "--conflict"],
  });
  if (hasOption(args, "--orphan")) return { parts: [{ kind: "tracked", pathspecs: [] }] };
  const revs = values(args.operands);
  if (!revs) return { unknown: UNKNOWN_WORD };
  const target = revs[0] === "-" ? "@{-1}" : (revs[0] ?? "HEAD");
  const parts: TreePart[] = [{ kind: "between", rev: target, pathspecs: [] }];
  if (hasOption(args, "-f", "--force", "--discard-changes", "-m", "--merge"))
    parts.push({ kind: "local", pathspecs: [] });
  return { parts };
};

const restore: GitReader = (words) => {
  const args = gitArgs(words, { valued: ["-s", "--source", "--pathspec-from-file", "--conflict"] });
  if (hasOption(args, "-S", "--staged") && !hasOption(args, "-W", "--worktree")) return undefined;
  if (fromFile(args)) return { unknown: "it reads its paths from a file" };
  const pathspecs = values(args.operands);
  const [source] = optionValues(args, "-s", "--source");
  if (!pathspecs || (source && source.value === undefined)) return { unknown: UNKNOWN_WORD };
  const parts: TreePart[] = [{ kind: "local", pathspecs }];
  if (source?.value !== undefined) parts.push({ kind: "between", rev: source.value, pathspecs });
  return { parts };
};

const STASH_PUSH: OptionShape = { valued: ["-m", "--message", "--pathspec-from-file"] };

const stash: GitReader = (words) => {
  const sub = words.length === 1 ? "push" : words[1]?.value;
  if (sub === undefined) return { unknown: UNKNOWN_WORD };
  if (sub === "pop" || sub === "apply" || sub === "branch") {
    const args = gitArgs(words.slice(1), {});
    const refs = values(args.operands.slice(sub === "branch" ? 1 : 0));
    if (!refs) return { unknown: UNKNOWN_WORD };
    return { parts: [{ kind: "stash", ref: stashRef(refs[0]) }] };
  }
  const push = sub === "push" || sub === "save" || sub.startsWith("-");
  if (!push) return undefined;
  const args = gitArgs(sub.startsWith("-") ? words : words.slice(1), STASH_PUSH);
  if (fromFile(args)) return { unknown: "it reads its paths from a file" };
  // `git stash save MESSAGE` takes words as its message, not paths
  const pathspecs = sub === "save" ? [] : values(args.operands);
  if (!pathspecs) return { unknown: UNKNOWN_WORD };
  const parts: TreePart[] = [{ kind: "local", pathspecs }];
  if (hasOption(args, "-a", "--all")) parts.push({ kind: "untracked", ignored: "also", pathspecs });
  else if (hasOption(args, "-u", "--include-untracked"))
    parts.push({ kind: "untracked", ignored: "no", pathspecs });
  return { parts };
};

/** `stash@{1}`, `1` (git's short form) or the latest. */
function stashRef(ref: string | undefined): string {
  if (ref === undefined) return "stash@{0}";
  return /^\d+$/.test(ref) ? `stash@{${ref}}` : ref;
}

const MERGE_SHAPE: OptionShape = {
  valued: ["-m", "-F", "--file", "-s", "--strategy", "-X", "--strategy-option", "--into-name", "--cleanup"],
};

/** merge, cherry-pick, revert, rebase: their revisions' changes; `--abort` goes back to ORIG_HEAD. */
function replaying(kind: "merge" | "pick" | "rebase"): GitReader {
  const shape: OptionShape =
    kind === "rebase"
      ? {
          valued: [
            "--onto",
            "-s",
            "--strategy",
            "-X",
            "--strategy-option",
            "-x",
            "--exec",
            "--whitespace",
            "-C",
          ],
        }
      : kind === "pick"
        ? { valued: ["-m", "--mainline", "-X", "--strategy-option", "--strategy", "--cleanup", "-S"] }
        : MERGE_SHAPE;
  return (words) => {
    const args = gitArgs(words, shape);
    if (hasOption(args, "--quit")) return undefined;
    const back: TreePart[] = [
      { kind: "local", pathspecs: [] },
      { kind: "between", rev: "ORIG_HEAD", pathspecs: [], ifExists: true },
    ];
    if (hasOption(args, "--abort", "--continue", "--skip")) return { parts: back };
    const revs = values([
      ...args.operands,
      ...optionValues(args, "--onto").filter((word) => word !== undefined),
    ]);
    if (!revs) return { unknown: UNKNOWN_WORD };
    if (revs.some((rev) => rev.includes(".."))) return { unknown: "it names a range of commits" };
    if (kind === "rebase" && revs.length === 0)
      return { parts: [{ kind: "between", rev: "@{upstream}", pathspecs: [] }] };
    return {
      parts: revs.flatMap((rev): TreePart[] =>
        kind === "pick"
          ? [
              { kind: "between", rev, pathspecs: [] },
              { kind: "commit", rev },
            ]
          : [{ kind: "between", rev, pathspecs: [] }],
      ),
    };
  };
}

const rm: GitReader = (words) => {
  const args = gitArgs(words, { valued: ["--pathspec-from-file"] });
  if (hasOption(args, "--cached", "-n", "--dry-run")) return undefined;
  if (fromFile(args)) return { unknown: "it reads its paths from a file" };
  const pathspecs = values(args.operands);
  if (!pathspecs) return { unknown: UNKNOWN_WORD };
  return { parts: [{ kind: "tracked", pathspecs }] };
};

/** git mv's sources (its destination is a path its words name, judged as such). */
const mv: GitReader = (words) => {
  const args = gitArgs(words, {});
  if (hasOption(args, "-n", "--dry-run")) return undefined;
  const operands = values(args.operands);
  if (!operands) return { unknown: UNKNOWN_WORD };
  return { parts: [{ kind: "tracked", pathspecs: operands.slice(0, -1) }] };
};

const checkoutIndex: GitReader = (words) => {
  const args = gitArgs(words, { valued: ["--prefix", "--stage"] });
  if (hasOption(args, "--stdin")) return { unknown: "it reads its paths from its standard input" };
  // a prefix writes every file again below another folder: which names, only the index tells
  if (hasOption(args, "--prefix")) return { unknown: "it writes the files below the folder --prefix names" };
  const pathspecs = values(args.operands);
  if (!pathspecs) return { unknown: UNKNOWN_WORD };
  return { parts: [{ kind: "local", pathspecs: hasOption(args, "-a", "--all") ? [] : pathspecs }] };
};

const APPLY_SHAPE: OptionShape = {
  valued: [
    ..."-p -C --directory --include --exclude --whitespace --build-fake-ancestor --patch-format".split(" "),
    ..."-S --gpg-sign --resolvemsg --quoted-cr --empty".split(" "),
  ],
};

/** git apply and git am: the patches they are given, or their standard input. */
function applying(am: boolean): GitReader {
  return (words, stdin) => {
    const args = gitArgs(words, APPLY_SHAPE);
    if (
      am &&
      hasOption(args, "--abort", "--skip", "--continue", "--quit", "--show-current-patch", "-r", "--resolved")
    )
      return hasOption(args, "--show-current-patch", "--quit")
        ? undefined
        : {
            parts: [{ kind: "local", pathspecs: [] }],
            unknown: "it applies the patches git keeps from an earlier git am",
          };
    const onlyReports = hasOption(args, "--stat", "--numstat", "--summary", "--check");
    if (!am && ((onlyReports && !hasOption(args, "--apply")) || hasOption(args, "--cached")))
      return undefined;
    const [level] = optionValues(args, "-p");
    const [directory] = optionValues(args, "--directory");
    if ((level && level.value === undefined) || (directory && directory.value === undefined))
      return { unknown: UNKNOWN_WORD };
    const strip = level?.value === undefined ? 1 : Number.parseInt(level.value, 10);
    const prefix = directory?.value ?? "";
    const sources = patchSources(args.operands, stdin);
    return { parts: sources.map((source) => ({ kind: "patch", source, strip, prefix, git: true })) };
  };
}

/** The patch files named (`-` is the standard input), or the standard input when none is. */
function patchSources(operands: readonly ShellWord[], stdin: StandardInput): PatchSource[] {
  if (operands.length === 0) return [stdinSource(stdin)];
  return operands.map((word) =>
    word.value === "-"
      ? stdinSource(stdin)
      : word.value === undefined
        ? { unknown: UNKNOWN_WORD }
        : { file: word.value },
  );
}

function stdinSource(stdin: StandardInput): PatchSource {
  if (stdin.kind === "file" && stdin.word.value !== undefined)
    return { file: stdin.word.value, fromShell: true };
  if (stdin.kind === "script" && stdin.text.value !== undefined) return { text: stdin.text.value };
  return { unknown: "the patch comes from its standard input, known only when it runs" };
}

const GIT_TREE_WRITERS: Record<string, GitReader> = {
  clean,
  reset,
  checkout,
  switch: switchBranch,
  restore,
  stash,
  merge: replaying("merge"),
  "cherry-pick": replaying("pick"),
  revert: replaying("pick"),
  rebase: replaying("rebase"),
  rm,
  mv,
  "checkout-index": checkoutIndex,
  apply: applying(false),
  am: applying(true),
  // what these leave in the working tree, only running tells
  "read-tree": (words) =>
    words.some((word) => word.value === "-u") ? { unknown: "it checks out a tree" } : undefined,
  bisect: () => ({ unknown: "it checks out the commits it tests" }),
  "sparse-checkout": (words) =>
    words[1]?.value === "list"
      ? undefined
      : { unknown: "it removes and restores files outside its patterns" },
  "filter-branch": () => ({ unknown: "it rewrites every commit" }),
};

const PATCH_SHAPE: OptionShape = {
  valued: [
    ..."-p --strip -d --directory -i --input -o --output -B --prefix -Y --basename-prefix -z --suffix".split(
      " ",
    ),
    ..."-V --version-control -D --ifdef -F --fuzz -g --get -r --reject-file --quoting-style".split(" "),
  ],
  permute: true,
};

/**
 * GNU patch: the files its patch names, from `-d DIR`. Without `-p` it may take each name's base name,
 * so every tail of a name counts; an operand is the one file it patches; `-o` writes elsewhere.
 */
function patchChange(words: readonly ShellWord[], stdin: StandardInput): TreeChange | undefined {
  const args = parseArgs(words, 1, PATCH_SHAPE);
  if (hasOption(args, "--dry-run")) return undefined;
  const command = text(words);
  const [output] = optionValues(args, "-o", "--output");
  // `-o FILE` writes the result there (a word judged as named), the originals stay
  if (output !== undefined) return undefined;
  const [input] = optionValues(args, "-i", "--input");
  const [level] = optionValues(args, "-p", "--strip");
  const [directory] = optionValues(args, "-d", "--directory");
  const backups = optionValues(args, "-B", "--prefix", "-Y", "--basename-prefix", "-z", "--suffix");
  const change: TreeChange = { command, folder: directory?.value ?? ".", parts: [] };
  if ((directory && directory.value === undefined) || (level && level.value === undefined)) {
    change.unknown = UNKNOWN_WORD;
    return change;
  }
  if (backups.length > 0) change.unknown = "it writes backups under names its options make";
  // `patch FILE [PATCH]`: FILE is the one file patched, a word judged as named
  if (args.operands.length > 0) return change.unknown ? change : undefined;
  const source: PatchSource =
    input === undefined || input.value === "-"
      ? stdinSource(stdin)
      : input.value === undefined
        ? { unknown: UNKNOWN_WORD }
        : { file: input.value };
  change.parts.push(patchPart(source, level?.value));
  return change;
}

function patchPart(source: PatchSource, level: string | undefined): TreePart {
  const strip = level === undefined ? undefined : Number.parseInt(level, 10);
  return { kind: "patch", source, strip: Number.isNaN(strip) ? undefined : strip, prefix: "", git: false };
}

/**
 * git subcommands after which what git holds still tells what a later tree change of the line changes:
 * the readers, and those that bring in no content they were not judged by (`git stash && … && git stash
 * pop` pops what the push was judged to take). A fetch's content is the remote's, as a pull's is.
 */
const GIT_KEEPS_CONTENT = new Set([
  ..."status log show diff diff-files diff-index diff-tree grep blame annotate ls-files ls-tree ls-remote".split(
    " ",
  ),
  ..."rev-parse rev-list cat-file describe shortlog whatchanged name-rev merge-base for-each-ref show-ref".split(
    " ",
  ),
  ..."count-objects var check-ignore check-attr version help cherry range-diff".split(" "),
  ..."add stage checkout switch restore clean rm mv fetch".split(" "),
]);

/** Whether a git command may bring content into HEAD, a branch, the index or the stash that it was not judged by. */
export function changesGitState(words: readonly ShellWord[]): boolean {
  const at = gitSubcommandAt(words);
  const subcommand = at === undefined ? undefined : words[at]?.value;
  if (subcommand === "stash") {
    const sub = words[(at as number) + 1]?.value;
    return sub === "store" || sub === undefined ? words.length > (at as number) + 1 : false;
  }
  return subcommand === undefined || !GIT_KEEPS_CONTENT.has(subcommand);
}
