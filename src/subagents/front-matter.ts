import { createRequire } from "node:module";

/** A markdown file's YAML front matter (between `---` lines) and the text after it. */
export type FrontMatter =
  | { ok: true; fields: Record<string, unknown>; body: string }
  /** `list`: the YAML is a list, not a mapping (Gemini CLI's files of remote agents are). */
  | { ok: false; problem: "missing" | "invalid" | "list"; message: string };

const FRONT_MATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/;

type YamlParse = (text: string) => unknown;
let parseYaml: YamlParse | undefined;

/** Agent and profile files are rare: the YAML parser is loaded on the first one, not at start-up. */
function yamlParser(): YamlParse {
  parseYaml ??= (createRequire(import.meta.url)("yaml") as { parse: YamlParse }).parse;
  return parseYaml;
}

/** The YAML between the `---` lines, as written (for a reader more lenient than YAML). */
export function frontMatterText(text: string): string | undefined {
  return FRONT_MATTER.exec(text)?.[1];
}

export function parseFrontMatter(text: string): FrontMatter {
  const match = FRONT_MATTER.exec(text);
  if (!match) return { ok: false, problem: "missing", message: "no front matter between `---` lines" };
  let fields: unknown;
  try {
    fields = yamlParser()(match[1] as string);
  } catch (cause) {
    return {
      ok: false,
      problem: "invalid",
      message: `front matter is not valid YAML: ${(cause as Error).message}`,
    };
  }
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) {
    return {
      ok: false,
      problem: Array.isArray(fields) ? "list" : "invalid",
      message: "front matter must be a mapping (name: ..., tools: ...)",
    };
  }
  return { ok: true, fields: fields as Record<string, unknown>, body: match[2] as string };
}
