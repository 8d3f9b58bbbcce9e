import path from "node:path";
import { commandOutput } from "../tools/exec/command-output.js";
import type { ToolPipeline } from "../tools/pipeline.js";
import type { WorkspaceTrust } from "../trust/workspace-trust.js";
import type { CustomCommand } from "./catalog.js";

export type Expansion = { ok: true; text: string; notes: string[] } | { ok: false; error: string };

/** How long a command's `!` shell line may run before its output is taken as it stands. */
const SHELL_WAIT_MS = 60_000;

/**
 * A custom command's prompt for `args` (the rest of the line). Its shell lines (`` !`cmd` ``, `!{cmd}`)
 * and file references (`@{path}`) are calls through the session's pipeline, as the agent's would be:
 * the permission rules, hooks and the workspace guard judge them, and the user is asked where a call
 * asks. A call that does not run stops the command, saying why; nothing is sent then.
 */
export async function expandCommand(
  command: CustomCommand,
  args: string,
  context: { pipeline: ToolPipeline; signal: AbortSignal; trust: Pick<WorkspaceTrust, "root" | "file"> },
): Promise<Expansion> {
  const run = async (name: string, callArgs: Record<string, unknown>) =>
    context.pipeline.run({ name, args: callArgs }, { signal: context.signal, agentId: "main" });
  try {
    const pieces = piecesOf(command);
    if (command.origin === "workspace" && pieces.some((p) => p.kind === "shell"))
      refuseUnapprovedShell(command, context.trust);
    const text = await expandPieces(command, pieces, args, run);
    return { ok: true, text, notes: command.notes.map((note) => `/${command.name}: ${note}`) };
  } catch (cause) {
    return { ok: false, error: `/${command.name}: ${(cause as Error).message}` };
  }
}

/**
 * Like a hook's script, a shell line is a command the repository chose: it runs only once the folder is
 * trusted, and only as the decision approved the file (judged on the bytes it was parsed from); a file
 * changed or added since (a pull, the agent's own edit) runs none until the folder is trusted again.
 */
function refuseUnapprovedShell(command: CustomCommand, trust: Pick<WorkspaceTrust, "root" | "file">): void {
  const status = trust.file(command.file, command.content);
  if (status.trusted) return;
  const shown = path.relative(trust.root, command.file).split(path.sep).join("/");
  const since = status.state === "changed" || status.state === "new";
  throw new Error(`its shell lines come from ${shown}${since ? ", which was " : ": "}${status.why}`);
}

type Run = (name: string, args: Record<string, unknown>) => ReturnType<ToolPipeline["run"]>;

type Piece = { kind: "text" | "shell" | "file"; text: string };

/**
 * Claude Code's `$ARGUMENTS` and `$1`…`$9`, Gemini CLI's `{{args}}`; without a placeholder the arguments
 * follow the prompt. The template is read once, in order: what a shell line prints, what a file holds
 * and what the arguments say are put in as text, never read again for more shell lines (a file or an
 * argument holding `!{…}` runs nothing). Inside a shell line the arguments are shell-quoted.
 */
async function expandPieces(
  command: CustomCommand,
  pieces: Piece[],
  args: string,
  run: Run,
): Promise<string> {
  const markdown = command.syntax === "markdown";
  const words = splitArguments(args);
  const fill = (text: string, quote: (value: string) => string) =>
    // one pass: what the arguments say is never read again for placeholders
    markdown
      ? text.replace(/\$ARGUMENTS|\$([1-9])/g, (_, index?: string) =>
          quote(index === undefined ? args : (words[Number(index) - 1] ?? "")),
        )
      : text.replaceAll("{{args}}", () => quote(args));
  let out = "";
  for (const piece of pieces) {
    if (piece.kind === "text") out += fill(piece.text, (value) => value);
    else if (piece.kind === "shell") out += await shellOutput(fill(piece.text, shellQuote), run);
    else out += await fileText(piece.text, run);
  }
  const placeholder = markdown ? /\$ARGUMENTS|\$[1-9]/ : /\{\{args\}\}/;
  if (placeholder.test(command.template) || args === "") return out;
  return markdown ? `${out}\n\nARGUMENTS: ${args}` : `${out}\n\n/${command.name} ${args}`;
}

/**
 * The shell lines a command would run, as written (before its arguments fill them in): what trusting
 * its folder approves (src/trust/review.ts). None when the template cannot be read (it then runs nothing).
 */
export function shellLinesOf(command: CustomCommand): string[] {
  try {
    return piecesOf(command).flatMap((piece) => (piece.kind === "shell" ? [piece.text] : []));
  } catch {
    return [];
  }
}

function piecesOf(command: CustomCommand): Piece[] {
  return command.syntax === "markdown" ? markdownPieces(command.template) : tomlPieces(command.template);
}

/** Claude Code's shell lines: `` !`cmd` ``. */
function markdownPieces(template: string): Piece[] {
  const pieces: Piece[] = [];
  let at = 0;
  for (const match of template.matchAll(/!`([^`\n]+)`/g)) {
    pieces.push({ kind: "text", text: template.slice(at, match.index) });
    pieces.push({ kind: "shell", text: match[1] as string });
    at = (match.index ?? 0) + match[0].length;
  }
  pieces.push({ kind: "text", text: template.slice(at) });
  return pieces;
}

/** Gemini CLI's `!{cmd}` and `@{file}`, braces balanced inside (a shell line may hold `${x}` or `{a,b}`). */
function tomlPieces(template: string): Piece[] {
  const pieces: Piece[] = [];
  let at = 0;
  for (let start = nextBlock(template, 0); start >= 0; start = nextBlock(template, at)) {
    let depth = 1;
    let end = start + 2;
    for (; end < template.length && depth > 0; end++)
      depth += template[end] === "{" ? 1 : template[end] === "}" ? -1 : 0;
    if (depth > 0)
      throw new Error(`its ${template.slice(start, start + 2)}…} at character ${start} is not closed`);
    pieces.push({ kind: "text", text: template.slice(at, start) });
    pieces.push({
      kind: template[start] === "!" ? "shell" : "file",
      text: template.slice(start + 2, end - 1),
    });
    at = end;
  }
  pieces.push({ kind: "text", text: template.slice(at) });
  return pieces;
}

function nextBlock(template: string, from: number): number {
  const shell = template.indexOf("!{", from);
  const file = template.indexOf("@{", from);
  if (shell < 0) return file;
  return file < 0 ? shell : Math.min(shell, file);
}

async function shellOutput(line: string, run: Run): Promise<string> {
  const result = await run("run_command", { CommandLine: line, Cwd: ".", WaitMsBeforeAsync: SHELL_WAIT_MS });
  if (result.error) throw new Error(`its shell line \`${line}\` did not run: ${result.text}`);
  return commandOutput(result).trimEnd();
}

async function fileText(file: string, run: Run): Promise<string> {
  const result = await run("view_file", { AbsolutePath: file.trim() });
  if (result.error) throw new Error(`its file @{${file}} could not be read: ${result.text}`);
  return result.text;
}

const shellQuote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** Words as a shell would split them, quotes kept together: `fix "the bug" now` is three. */
function splitArguments(args: string): string[] {
  return [...args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
}
