import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from "node:fs";
import path from "node:path";
import { isInside } from "../workspace/paths.js";

/** Project instruction files at the workspace root, in this order (SPEC §7), with Claude Code's other places. */
export const INSTRUCTION_FILES = [
  "AGENTS.md",
  "CLAUDE.md",
  ".claude/CLAUDE.md",
  "CLAUDE.local.md",
  "GEMINI.md",
  "QWEN.md",
];
/** The user's own instructions for every workspace, as each harness keeps them in the home folder. */
export const HOME_INSTRUCTION_FILES = [
  ".agents/AGENTS.md",
  ".claude/CLAUDE.md",
  ".gemini/GEMINI.md",
  ".qwen/QWEN.md",
];
const MAX_INSTRUCTION_CHARS = 64 * 1024;
// UTF-8 takes at most 4 bytes a character: enough for what the cap keeps, never a whole huge file
const MAX_INSTRUCTION_BYTES = MAX_INSTRUCTION_CHARS * 4 + 1;
/** Claude Code follows imports five files deep. */
const MAX_IMPORT_DEPTH = 5;

export interface ProjectInstruction {
  /** As shown to the model: `CLAUDE.md`, `~/.claude/CLAUDE.md`. */
  file: string;
  text: string;
}

export interface InstructionOptions {
  /** The user's home: its instruction files count, and `@~/…` imports resolve there. */
  home?: string;
  /** The workspace's secret guard (workspace-relative paths): a secret is never imported. */
  isSecret?: (relPath: string) => boolean;
  /** Receives one line per workspace instruction file left out, and why. */
  skipped?: string[];
}

/**
 * The instruction files of the user's home and of the workspace root, each with the files it imports
 * (Claude Code's and Gemini CLI's `@path` lines: `@docs/style.md`, `@~/.claude/my-rules.md`), capped so
 * a huge file cannot fill the context. An import stays inside the folder its file belongs to (a
 * workspace's file imports only from the workspace, the home's from the home or the workspace), and is
 * never a secret: what the agent could not read with view_file, its instructions cannot bring in.
 */
export function loadProjectInstructions(
  workspaceRoot: string,
  options: InstructionOptions = {},
): ProjectInstruction[] {
  const found: ProjectInstruction[] = [];
  const sources = [
    ...(options.home
      ? HOME_INSTRUCTION_FILES.map((rel) => ({ base: options.home as string, rel, home: true }))
      : []),
    ...INSTRUCTION_FILES.map((rel) => ({ base: workspaceRoot, rel, home: false })),
  ];
  for (const source of sources) {
    const file = path.join(source.base, source.rel);
    // a workspace's own file is its text under view_file's guard: not a link out of it, nor to a secret
    const refused = source.home ? undefined : refusal(file, workspaceRoot, options.isSecret);
    if (refused) {
      options.skipped?.push(`${source.rel} ${refused}; it is not read into the prompt`);
      continue;
    }
    const text = readText(file);
    if (typeof text === "object") {
      options.skipped?.push(
        `${source.home ? `~/${source.rel}` : source.rel} ${text.refused}; it is not read into the prompt`,
      );
      continue;
    }
    if (text === undefined || text.trim() === "") continue;
    const roots = source.home ? [source.base, workspaceRoot] : [workspaceRoot];
    const imports = new Imports({ roots, workspaceRoot, options });
    imports.seen.add(realOf(file) ?? file);
    const body = cap(`${text}${imports.of(text, path.dirname(file), 1)}`, source.rel, imports.unread);
    found.push({ file: source.home ? `~/${source.rel}` : source.rel, text: body });
  }
  return found;
}

class Imports {
  readonly seen = new Set<string>();
  /** Characters read so far: past the cap, nothing more is read (a file importing thousands of files). */
  private read = 0;
  /** Imports left unread for the cap, said with it. */
  unread = 0;
  constructor(
    private readonly scope: { roots: string[]; workspaceRoot: string; options: InstructionOptions },
  ) {}

  /** The files `text` imports, each as a section after it, their own imports after them. */
  of(text: string, dir: string, depth: number): string {
    let out = "";
    this.read += text.length;
    for (const written of importsIn(text)) {
      if (this.read > MAX_INSTRUCTION_CHARS) {
        this.unread++;
        continue;
      }
      const target = this.resolve(written, dir);
      if (typeof target !== "string") {
        if (target.why) out += `\n\n[@${written} not imported: ${target.why}]`;
        continue;
      }
      if (this.seen.has(target)) continue;
      this.seen.add(target);
      const read = readText(target);
      if (typeof read === "object") {
        out += `\n\n[@${written} not imported: it ${read.refused}]`;
        continue;
      }
      const content = read ?? "";
      const nested = depth < MAX_IMPORT_DEPTH ? this.of(content, path.dirname(target), depth + 1) : "";
      out += `\n\n--- imported from @${written} ---\n${content.trimEnd()}${nested}`;
    }
    return out;
  }

  /** The real file an import names, or why it is not imported (nothing: not a file, so not an import). */
  private resolve(written: string, dir: string): string | { why?: string } {
    const { home, isSecret } = this.scope.options;
    const named = written.startsWith("~/")
      ? home && path.join(home, written.slice(2))
      : path.resolve(dir, written);
    const real = named ? realOf(named) : undefined;
    if (!real) return {};
    const root = this.scope.roots.find((candidate) => isInside(candidate, real));
    if (!root) return { why: "outside the folder of the file that imports it" };
    const base = isInside(this.scope.workspaceRoot, real) ? this.scope.workspaceRoot : root;
    if (isSecret?.(path.relative(base, real))) return { why: "a secret file" };
    return real;
  }
}

/** `@path` words outside code: after a space or at a line's start, a path with no spaces. */
function importsIn(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/(?:^|[\s(])@((?:~\/|\.{1,2}\/|\/)?[\w.-][\w./-]*)/gm)].map((m) =>
    (m[1] as string).replace(/[.,;:)]+$/, ""),
  );
}

function refusal(
  file: string,
  workspaceRoot: string,
  isSecret: InstructionOptions["isSecret"],
): string | undefined {
  const real = realOf(file);
  if (real === undefined) return undefined;
  const rel = path.relative(workspaceRoot, real);
  if (rel === "" || !isInside(workspaceRoot, real)) return `links outside the workspace (to ${real})`;
  if (isSecret?.(rel.split(path.sep).join("/"))) return `is a secret file (${rel})`;
  return undefined;
}

/**
 * A regular file's text, at most what the cap keeps; undefined when it cannot be opened (none there). A
 * named pipe or device is never opened blocking, and is refused by name (a pipe would block the start,
 * /dev/zero fill the prompt).
 */
function readText(file: string): string | { refused: string } | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isFIFO()) return { refused: "is a named pipe (FIFO), not a regular file" };
    if (!stat.isFile())
      return stat.isDirectory() ? undefined : { refused: "is not a regular file (a device or socket)" };
    const buffer = Buffer.alloc(MAX_INSTRUCTION_BYTES);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, length).toString("utf8");
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function realOf(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

function cap(text: string, name: string, unread = 0): string {
  if (text.length <= MAX_INSTRUCTION_CHARS) return text;
  const left = unread > 0 ? `; ${unread} more import${unread === 1 ? "" : "s"} not read` : "";
  return `${text.slice(0, MAX_INSTRUCTION_CHARS)}\n[${name} truncated at ${MAX_INSTRUCTION_CHARS} characters${left}]`;
}
