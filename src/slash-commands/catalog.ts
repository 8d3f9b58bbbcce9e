import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { filesBelow } from "../config/files-below.js";
import { readIfPresent } from "../config/read-if-present.js";
import { parseFrontMatter } from "../subagents/front-matter.js";
import { isInside } from "../workspace/paths.js";

/**
 * A custom slash command: a prompt template in a file. Claude Code's and Qwen Code's `.md` (front
 * matter `description`, `argument-hint`; `$ARGUMENTS`, `$1`…, `` !`cmd` ``), Gemini CLI's and Qwen
 * Code's `.toml` (`prompt`, `description`; `{{args}}`, `!{cmd}`, `@{file}`).
 */
export interface CustomCommand {
  /** `/name` without the slash; a subfolder is a namespace: `git/commit.md` is `git:commit`. */
  name: string;
  description?: string;
  argumentHint?: string;
  template: string;
  syntax: "markdown" | "toml";
  file: string;
  origin: "home" | "workspace";
  /** What the file asks for that Gantry does not do (allowed-tools, model): said when the command runs. */
  notes: string[];
  /** The bytes the command was parsed from: what trust judges (a file swapped since cannot slip in). */
  content: Uint8Array;
}

export interface CommandCatalog {
  commands: CustomCommand[];
  /** Files that could not be read or parsed. */
  problems: { file: string; message: string }[];
  get(name: string): CustomCommand | undefined;
}

const FOLDERS = [".claude/commands", ".gemini/commands", ".qwen/commands", ".agents/commands"];

/**
 * The custom commands of the user's home and of the workspace. A home command wins over a workspace's of
 * the same name (a repository cannot replace a command the user relies on, as with skills); within one
 * side, `.agents/commands` wins over the other harnesses' folders.
 */
export function discoverCommands(root: string, home: string): CommandCatalog {
  const byName = new Map<string, CustomCommand>();
  const problems: CommandCatalog["problems"] = [];
  for (const origin of ["workspace", "home"] as const) {
    for (const folder of FOLDERS) {
      const base = path.join(origin === "home" ? home : root, folder);
      for (const file of commandFilesIn(base)) {
        // a workspace's command file that links out of it (to ~/.ssh/id_rsa) would send that file as a prompt
        if (origin === "workspace" && !insideRoot(file, root)) {
          problems.push({ file, message: "links out of the workspace; skipped" });
          continue;
        }
        const parsed = parseCommandFile(file, base, origin);
        if (typeof parsed === "string") problems.push({ file, message: parsed });
        else byName.set(parsed.name, parsed);
      }
    }
  }
  const commands = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  return { commands, problems, get: (name) => byName.get(name) };
}

/**
 * The workspace's command files, for the trust decision to pin (src/trust/covered.ts): a shell line in
 * one runs only as approved.
 */
export function workspaceCommandFiles(root: string): string[] {
  return FOLDERS.flatMap((folder) => commandFilesIn(path.join(root, folder))).filter((file) =>
    insideRoot(file, root),
  );
}

function commandFilesIn(base: string): string[] {
  return filesBelow(base, /\.(md|toml)$/);
}

/** A prompt template is a page or two; a bigger file is not read (a repository could ship a huge one). */
const MAX_COMMAND_BYTES = 256 * 1024;

function parseCommandFile(file: string, base: string, origin: "home" | "workspace"): CustomCommand | string {
  let content: Buffer;
  try {
    const size = statSync(file).size;
    if (size > MAX_COMMAND_BYTES)
      return `${size} bytes: larger than a command file may be (${MAX_COMMAND_BYTES}); skipped`;
    // a named pipe is refused, not waited on; a link to /dev/zero is not read
    const bytes = readIfPresent(file, { maxBytes: MAX_COMMAND_BYTES });
    if (bytes === undefined) return "is gone; skipped";
    content = bytes;
  } catch (cause) {
    return `cannot read: ${(cause as Error).message}`;
  }
  const name = path
    .relative(base, file)
    .replace(/\.(md|toml)$/, "")
    .split(path.sep)
    .join(":");
  if (!/^[A-Za-z0-9][\w.:-]*$/.test(name))
    return `"${name}" cannot be a command name (letters, digits, - _ . and :)`;
  const common = { name, file, origin, content };
  const text = content.toString("utf8");
  return file.endsWith(".toml") ? parseToml(text, common) : parseMarkdown(text, common);
}

type Common = Pick<CustomCommand, "name" | "file" | "origin" | "content">;

function parseMarkdown(text: string, common: Common): CustomCommand | string {
  const front = parseFrontMatter(text);
  if (!front.ok && front.problem === "invalid") return front.message;
  const fields = front.ok ? front.fields : {};
  const body = front.ok ? front.body : text;
  const notes: string[] = [];
  if (fields["allowed-tools"] !== undefined)
    notes.push("its allowed-tools grant nothing here: the session's permission rules decide");
  if (fields.model !== undefined) notes.push("its model is not used: the session's model answers");
  return {
    ...common,
    template: body.trim(),
    syntax: "markdown",
    notes,
    ...(typeof fields.description === "string" ? { description: fields.description } : {}),
    ...(typeof fields["argument-hint"] === "string" ? { argumentHint: fields["argument-hint"] } : {}),
  };
}

function parseToml(text: string, common: Common): CustomCommand | string {
  let fields: Record<string, unknown>;
  try {
    fields = tomlParser()(text) as Record<string, unknown>;
  } catch (cause) {
    return `not valid TOML: ${(cause as Error).message.split("\n")[0]}`;
  }
  if (typeof fields.prompt !== "string" || fields.prompt.trim() === "")
    return 'a .toml command needs prompt = "..." (the text sent to the model)';
  return {
    ...common,
    template: fields.prompt,
    syntax: "toml",
    notes: [],
    ...(typeof fields.description === "string" ? { description: fields.description } : {}),
  };
}

type TomlParse = (text: string) => unknown;
let parseToml_: TomlParse | undefined;

/** Command files are rare: the TOML parser is loaded with the first one, not at start-up. */
function tomlParser(): TomlParse {
  parseToml_ ??= (
    process.getBuiltinModule("node:module").createRequire(import.meta.url)("smol-toml") as {
      parse: TomlParse;
    }
  ).parse;
  return parseToml_;
}

function insideRoot(file: string, root: string): boolean {
  try {
    return isInside(realpathSync(root), realpathSync(file));
  } catch {
    return false;
  }
}
