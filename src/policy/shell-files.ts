import {
  hasOption,
  type OptionShape,
  optionValues,
  parseArgs,
  SCRIPT_VALUED,
  XARGS_SHAPE,
} from "./shell-args.js";
import { namesFromAList, pathsInCode, READERS, readsNamesFromList } from "./shell-named-files.js";
import { curlFiles, wgetFiles } from "./shell-net-files.js";
import { readSed } from "./shell-sed.js";
import type { TreeChange } from "./shell-tree-writes.js";
import { literalWord, type ShellWord } from "./shell-words.js";

/**
 * Files a command writes, reads or deletes by itself, where its words name them (SPEC §5): `tee out`,
 * `sed -i f`, `cp a b`, `dd of=x`, `rm -r dir`. Commands whose files come from data (tar, git, a
 * script) are not here: they are judged as commands, and the sandbox keeps protected files read-only.
 */
export interface FileTarget {
  kind: "write" | "read" | "delete";
  word: ShellWord;
  /** A folder and all it holds. */
  recursive?: boolean;
  /** When `word` is a folder, the files land inside it under these names' base names (`cp a b dir`). */
  into?: ShellWord[];
  /** `word` is always a folder to put `into` in (`cp -t dir`). */
  alwaysInto?: boolean;
  /** Only entries whose names match every one of these patterns (`find -name '*.tmp' -delete`). */
  onlyNames?: string[];
  /** A folder whose entries are listed (`ls dir`), not read whole. */
  lists?: boolean;
  /** A delete that moves the file elsewhere (mv's sources), not one that removes it. */
  moves?: boolean;
  /** A file a new link points at (`ln -s FILE link`, `ln FILE link`): writing the link writes it. */
  linksTo?: boolean;
  /** Named by a program Gantry has no account of: a read, and a change as far as deny rules and protected files go. */
  unknownUse?: boolean;
  /** Why the command reaches the file, shown after it in messages where the words alone do not say. */
  why?: string;
  /** The files a command changes without naming them (`git reset --hard`, `patch < x`): `word` is its folder. */
  tree?: TreeChange;
}

type Handler = (words: readonly ShellWord[]) => FileTarget[];

export const write = (word: ShellWord, extra: Partial<FileTarget> = {}): FileTarget => ({
  kind: "write",
  word,
  ...extra,
});
export const read = (word: ShellWord, extra: Partial<FileTarget> = {}): FileTarget => ({
  kind: "read",
  word,
  ...extra,
});
export const remove = (word: ShellWord, extra: Partial<FileTarget> = {}): FileTarget => ({
  kind: "delete",
  word,
  ...extra,
});

/** Every operand is written, read or deleted alike. */
function operandsAre(kind: FileTarget["kind"], shape: OptionShape, recursiveWith: string[] = []): Handler {
  return (words) => {
    const args = parseArgs(words, 1, { permute: true, ...shape });
    const recursive = hasOption(args, ...recursiveWith);
    const optionReads = optionValues(args, ...(shape.reads ?? [])).flatMap((word) =>
      word ? [read(word)] : [],
    );
    return [...args.operands.map((word) => ({ kind, word, recursive })), ...optionReads];
  };
}

const TARGET = ["-t", "--target-directory", "-S", "--suffix"];

/** cp, mv, install, ln: the last operand (or -t's folder) receives the others. */
function copyLike(options: { reads: boolean; deletes: boolean; recursive: (recursive: boolean) => boolean }) {
  return (words: readonly ShellWord[], valued: string[] = TARGET): FileTarget[] => {
    const args = parseArgs(words, 1, { valued, permute: true });
    const recursive = options.recursive(hasOption(args, "-r", "-R", "-a", "--recursive", "--archive"));
    const folder = optionValues(args, "-t", "--target-directory")[0];
    const sources = folder ? args.operands : args.operands.slice(0, -1);
    const destination = folder ?? args.operands[args.operands.length - 1];
    const targets: FileTarget[] = [];
    // a moved file's content shows under its new name: Read rules judge mv's sources as reads too
    if (options.reads || options.deletes) targets.push(...sources.map((word) => read(word, { recursive })));
    if (options.deletes)
      targets.push(...sources.map((word) => remove(word, { recursive: true, moves: true })));
    if (!destination || sources.length === 0) return targets;
    const plain = hasOption(args, "-T", "--no-target-directory");
    targets.push(
      write(destination, plain ? { recursive } : { recursive, into: sources, alwaysInto: !!folder }),
    );
    return targets;
  };
}

const cp = copyLike({ reads: true, deletes: false, recursive: (r) => r });
const mv = copyLike({ reads: false, deletes: true, recursive: () => true });
const install = copyLike({ reads: true, deletes: false, recursive: () => false });

const INSTALL_VALUED = [...TARGET, "-g", "--group", "-m", "--mode", "-o", "--owner", "--strip-program"];

function installFiles(words: readonly ShellWord[]): FileTarget[] {
  const args = parseArgs(words, 1, { valued: INSTALL_VALUED, permute: true });
  if (hasOption(args, "-d", "--directory")) return args.operands.map((word) => write(word));
  return install(words, INSTALL_VALUED);
}

/**
 * `ln TARGET LINK`, `ln TARGET… DIR`, `ln -t DIR TARGET…`, `ln TARGET` (a link named after it, here).
 * The link is written; its target gains a name that writes it: judged too (`linksTo`).
 */
function lnFiles(words: readonly ShellWord[]): FileTarget[] {
  const args = parseArgs(words, 1, { valued: TARGET, permute: true });
  const symbolic = hasOption(args, "-s", "--symbolic");
  const folder = optionValues(args, "-t", "--target-directory")[0];
  const single = args.operands.length === 1 && !folder;
  const targets = folder || single ? args.operands : args.operands.slice(0, -1);
  const link = folder ?? (single ? undefined : args.operands[args.operands.length - 1]);
  const files: FileTarget[] = [];
  for (const target of targets) {
    const linked = linkTarget(target, symbolic, link, !!folder || targets.length > 1);
    // the link shows the target's content under a new name: Read rules judge it as a read of the target
    files.push(linked, read(linked.word, { recursive: true }));
  }
  if (single && targets[0]) {
    const value = targets[0].value;
    files.push(write(value !== undefined ? literalWord(baseName(value)) : { written: targets[0].written }));
  } else if (link) {
    const plain = hasOption(args, "-T", "--no-target-directory");
    files.push(write(link, plain ? {} : { into: targets, alwaysInto: !!folder }));
  }
  return files;
}

/** A symbolic link's target is relative to the link's folder; a hard link's to where ln runs. */
function linkTarget(
  target: ShellWord,
  symbolic: boolean,
  link: ShellWord | undefined,
  intoFolder: boolean,
): FileTarget {
  const value = target.value;
  if (!symbolic || value === undefined || value.startsWith("/") || !link)
    return write(target, { linksTo: true });
  if (link.value === undefined) return write({ written: target.written }, { linksTo: true });
  const folder = intoFolder ? link.value : link.value.slice(0, link.value.lastIndexOf("/") + 1);
  return write(literalWord(folder === "" ? value : `${folder.replace(/\/?$/, "/")}${value}`), {
    linksTo: true,
  });
}

const RSYNC_VALUED = [
  "-e",
  "--rsh",
  "--exclude",
  "--include",
  "-f",
  "--filter",
  "--files-from",
  "-T",
  "--temp-dir",
];

/** rsync copies as cp does; with `--remove-source-files` the files it sends leave their sources (a move). */
function rsyncFiles(words: readonly ShellWord[]): FileTarget[] {
  const copied = cp(words, RSYNC_VALUED);
  const moves = words.some((word) => word.value === "--remove-source-files");
  const sources = moves ? copied.filter((target) => target.kind === "read") : [];
  return [
    ...copied,
    ...sources.map((source) => remove(source.word, { recursive: true, moves: true })),
    ...(readsNamesFromList("rsync", words) ? [namesFromAList()] : []),
  ];
}

function sedFiles(words: readonly ShellWord[]): FileTarget[] {
  const sed = readSed(words);
  return [
    ...sed.inPlace.map((word) => write(word)),
    ...sed.writes.map((file) => write(literalWord(file))),
    ...sed.reads.map((file) => read(literalWord(file))),
    ...sed.inputs.map((word) => read(word)),
    ...sed.scriptFiles.map((word) => read(word)),
  ];
}

/**
 * perl's script (its first operand, without -e) is read; each further operand is a file `-n`, `-p` and
 * `<>` read, or a word the script may open: judged as read by a program Gantry has no account of (as
 * python3's are). `-i` rewrites each of them, after reading it.
 */
function perlFiles(words: readonly ShellWord[]): FileTarget[] {
  const args = parseArgs(words, 1, { valued: ["-e", "-E", "-I", "-M", "-m", "-x"], attachedOnly: ["-i"] });
  const scripted = hasOption(args, "-e", "-E");
  const script = scripted ? [] : args.operands.slice(0, 1).map((word) => read(word));
  const files = scripted ? args.operands : args.operands.slice(1);
  const quoted = pathsInCode(words);
  if (hasOption(args, "-i"))
    return [...script, ...quoted, ...files.flatMap((word) => [read(word), write(word)])];
  return [...script, ...quoted, ...files.map((word) => read(word, { unknownUse: true }))];
}

function ddFiles(words: readonly ShellWord[]): FileTarget[] {
  const targets: FileTarget[] = [];
  for (const word of words.slice(1)) {
    const text = word.value ?? word.written;
    if (text.startsWith("of=")) targets.push(write(afterEquals(word)));
    if (text.startsWith("if=")) targets.push(read(afterEquals(word)));
  }
  return targets;
}

export function afterEquals(word: ShellWord): ShellWord {
  const at = word.written.indexOf("=") + 1;
  if (word.value !== undefined) return literalWord(word.value.slice(word.value.indexOf("=") + 1));
  return { written: word.written.slice(at) };
}

/** chmod MODE FILE…, chown OWNER FILE…: modes such as `-x` look like options, so they are read by hand. */
function modeChange(words: readonly ShellWord[]): FileTarget[] {
  const rest = words.slice(1);
  const isOption = (word: ShellWord) => /^(-[Rcfvh]+|--[a-z-]+(=.*)?)$/.test(word.value ?? "");
  const reference = rest.some((word) => (word.value ?? "").startsWith("--reference"));
  const recursive = rest.some(
    (word) => /^-[a-zA-Z]*R/.test(word.value ?? "") || word.value === "--recursive",
  );
  const operands = rest.filter((word) => !isOption(word));
  return (reference ? operands : operands.slice(1)).map((word) => write(word, { recursive }));
}

/** grep PATTERN FILE…, rg PATTERN [PATH…]: files read, folders read whole with -r (rg always). */
function grepFiles(recursiveByDefault: boolean): Handler {
  return (words) => {
    const args = parseArgs(words, 1, {
      valued: ["-e", "--regexp", "-f", "--file", "-m", "--max-count", "-A", "-B", "-C", "-d", "-D"].concat([
        "-g",
        "--glob",
        "-t",
        "--type",
        "-T",
        "--type-not",
        "-j",
        "--threads",
        "-M",
        "--max-depth",
      ]),
      permute: true,
    });
    const patterned = hasOption(args, "-e", "--regexp", "-f", "--file");
    const paths = patterned ? args.operands : args.operands.slice(1);
    const recursive =
      recursiveByDefault || hasOption(args, "-r", "-R", "--recursive", "--dereference-recursive");
    const files = optionValues(args, "-f", "--file").flatMap((word) => (word ? [read(word)] : []));
    if (paths.length === 0 && recursive) return [...files, read(literalWord("."), { recursive: true })];
    return [...files, ...paths.map((word) => read(word, { recursive }))];
  };
}

/** ls and tree list their operands, or the folder they run in; `ls -R` and tree list all below. */
function listing(shape: OptionShape, recursiveWith: string[]): Handler {
  return (words) => {
    const args = parseArgs(words, 1, { permute: true, ...shape });
    const recursive = recursiveWith.length === 0 || hasOption(args, ...recursiveWith);
    const paths = args.operands.length > 0 ? args.operands : [literalWord(".")];
    const outputs = optionValues(args, "-o").flatMap((word) =>
      word && recursiveWith.length === 0 ? [write(word)] : [],
    );
    return [...paths.map((word) => read(word, { recursive, lists: !recursive })), ...outputs];
  };
}

function outputOption(...names: string[]): Handler {
  return (words) => {
    const args = parseArgs(words, 1, { valued: names });
    return optionValues(args, ...names).flatMap((word) => (word ? [write(word)] : []));
  };
}

const HANDLERS: Record<string, Handler> = {
  tee: operandsAre("write", {}),
  sponge: operandsAre("write", {}),
  cp,
  mv,
  install: installFiles,
  ln: lnFiles,
  sed: sedFiles,
  perl: perlFiles,
  dd: ddFiles,
  rm: operandsAre("delete", {}, ["-r", "-R", "--recursive"]),
  rmdir: operandsAre("delete", {}),
  unlink: operandsAre("delete", {}),
  shred: (words) => {
    const args = parseArgs(words, 1, {
      valued: ["-n", "--iterations", "-s", "--size", "--random-source"],
      permute: true,
    });
    const removes = hasOption(args, "-u", "--remove", "--zero");
    return args.operands.flatMap((word) => (removes ? [write(word), remove(word)] : [write(word)]));
  },
  truncate: (words) => {
    const args = parseArgs(words, 1, { valued: ["-s", "--size", "-r", "--reference"], permute: true });
    return args.operands.map((word) => write(word));
  },
  touch: operandsAre("write", { valued: ["-d", "--date", "-t", "-r", "--reference"] }),
  mkdir: operandsAre("write", { valued: ["-m", "--mode", "--context"] }),
  mkfifo: operandsAre("write", { valued: ["-m", "--mode", "--context"] }),
  rsync: (words) => rsyncFiles(words),
  script: (words) => {
    const args = parseArgs(words, 1, { valued: SCRIPT_VALUED, permute: true });
    const logs = optionValues(
      args,
      "-O",
      "--log-out",
      "-I",
      "--log-in",
      "-B",
      "--log-io",
      "-T",
      "--log-timing",
    );
    const typescript = args.operands[0] ?? literalWord("typescript");
    return [typescript, ...logs].flatMap((word) => (word ? [write(word)] : []));
  },
  chmod: modeChange,
  chown: modeChange,
  chgrp: modeChange,
  sort: (words) => {
    const args = parseArgs(words, 1, {
      valued: [
        "-o",
        "--output",
        "-k",
        "--key",
        "-t",
        "--field-separator",
        "-S",
        "--buffer-size",
        "-T",
        "--files0-from",
      ],
      permute: true,
    });
    return [
      ...optionValues(args, "-o", "--output").flatMap((word) => (word ? [write(word)] : [])),
      ...optionValues(args, "--files0-from").flatMap((word) => (word ? [read(word)] : [])),
      ...args.operands.map((word) => read(word)),
    ];
  },
  time: outputOption("-o", "--output"),
  strace: outputOption("-o"),
  ltrace: outputOption("-o"),
  curl: curlFiles,
  wget: wgetFiles,
  grep: grepFiles(false),
  egrep: grepFiles(false),
  fgrep: grepFiles(false),
  rg: grepFiles(true),
  ls: listing({ valued: ["-I", "--ignore", "-w", "--width", "-T"] }, ["-R", "--recursive"]),
  tree: listing({ valued: ["-L", "-P", "-I", "-o"] }, []),
  uniq: uniqFiles,
  iconv: (words) => {
    const args = parseArgs(words, 1, {
      valued: ["-f", "-t", "--from-code", "--to-code", "-o", "--output"],
      permute: true,
    });
    const outputs = optionValues(args, "-o", "--output").flatMap((word) => (word ? [write(word)] : []));
    return [...args.operands.map((word) => read(word)), ...outputs];
  },
  mktemp: mktempFiles,
  xargs: (words) => {
    const args = parseArgs(words, 1, XARGS_SHAPE);
    return optionValues(args, "-a", "--arg-file").flatMap((word) => (word ? [read(word)] : []));
  },
};

/**
 * `mktemp [-d] [-p DIR] [TEMPLATE]` creates a file (or folder) whose name is TEMPLATE with its X's
 * filled in: a write in TEMPLATE's folder (or DIR) of a name matching it. Without a folder it creates
 * in $TMPDIR (`-t`, no template), outside the workspace.
 */
function mktempFiles(words: readonly ShellWord[]): FileTarget[] {
  const args = parseArgs(words, 1, { valued: ["-p", "--suffix"], permute: true });
  const folder = optionValues(args, "-p", "--tmpdir")[0];
  const template = args.operands[0];
  if (!template) return folder ? [write(folder, { recursive: true })] : [];
  const value = template.value;
  if (value === undefined) return [write(template)];
  const suffix = optionValues(args, "--suffix")[0]?.value ?? "";
  const slash = value.lastIndexOf("/");
  const name = `${value.slice(slash + 1).replace(/X{3,}$|X{3,}(?=[^X]*$)/, "*")}${suffix}`;
  const inFolder = folder ?? (slash >= 0 ? literalWord(value.slice(0, slash) || "/") : undefined);
  if (!inFolder && hasOption(args, "-t")) return [];
  return [write(inFolder ?? literalWord("."), { recursive: true, onlyNames: [name] })];
}

/** `uniq [INPUT [OUTPUT]]`. */
function uniqFiles(words: readonly ShellWord[]): FileTarget[] {
  const args = parseArgs(words, 1, {
    valued: ["-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"],
    permute: true,
  });
  const [input, output] = args.operands;
  return [...(input ? [read(input)] : []), ...(output ? [write(output)] : [])];
}

/** Whether Gantry knows which files `name` reads, writes and deletes (else each word it is given may be one). */
export function knowsFilesOf(name: string): boolean {
  return Object.hasOwn(HANDLERS, name) || Object.hasOwn(READERS, name);
}

/** Readers that read a folder operand with all it holds when given these options (`diff -r`). */
const RECURSIVE_READERS: Record<string, string[]> = { diff: ["-r", "--recursive"] };

/** The files `words` (program first) names as its own reads, writes and deletes. */
export function fileTargetsOf(name: string, words: readonly ShellWord[]): FileTarget[] {
  if (Object.hasOwn(HANDLERS, name)) return (HANDLERS[name] as Handler)(words);
  if (Object.hasOwn(READERS, name))
    return operandsAre("read", READERS[name] as OptionShape, RECURSIVE_READERS[name])(words);
  return [];
}

export function baseName(value: string): string {
  const trimmed = value.replace(/\/+$/, "");
  return trimmed.slice(trimmed.lastIndexOf("/") + 1);
}
