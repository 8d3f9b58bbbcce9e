import path from "node:path";

type Args = Record<string, unknown>;

/** One argument as a harness names and shapes it, both ways. */
export interface FieldMap {
  /** Gantry's arguments → the dialect's, into `out` (fields the call lacks stay absent). */
  to(args: Args, root: string, out: Args): void;
  /** A hook's rewrite (dialect names) → Gantry's, over `out` (a copy of the original); an error when it cannot be applied. */
  from(input: Args, out: Args): string | undefined;
  /** The dialect's keys this field reads back. */
  readonly keys: readonly string[];
}

/** A Gantry tool as another harness names and shapes it. */
export interface DialectTool {
  name: string;
  /** Other names that harness knows the tool by (matchers may use them). */
  aliases?: readonly string[];
  fields: readonly FieldMap[];
}

const absolute = (root: string, value: unknown) =>
  typeof value === "string" ? path.resolve(root, value) : value;

/** A renamed argument; `path` ones reach scripts absolute, as every harness promises. */
export function field(gantry: string, dialect: string, options: { path?: boolean } = {}): FieldMap {
  return {
    keys: [dialect],
    to(args, root, out) {
      if (args[gantry] === undefined) return;
      out[dialect] = options.path ? absolute(root, args[gantry]) : args[gantry];
    },
    from(input, out) {
      if (dialect in input) out[gantry] = input[dialect];
      return undefined;
    },
  };
}

/** Gantry's "wait 0 ms = background at once" as a harness's background flag. */
export function backgroundFlag(dialect: string): FieldMap {
  return {
    keys: [dialect],
    to(args, _root, out) {
      if (typeof args.WaitMsBeforeAsync === "number") out[dialect] = args.WaitMsBeforeAsync === 0;
    },
    from(input, out) {
      if (input[dialect] === true) out.WaitMsBeforeAsync = 0;
      return undefined;
    },
  };
}

/**
 * An argument of the harness's tool that Gantry's tool has no counterpart for (Claude's and Qwen's Bash
 * `timeout`, a kill deadline): never shown to hooks, and a rewrite that sets it is refused, not dropped.
 */
export function unsupported(dialect: string, why: string): FieldMap {
  return {
    keys: [dialect],
    to: () => undefined,
    from: (input) => (input[dialect] === undefined ? undefined : `it sets ${dialect}, but ${why}`),
  };
}

/** A first line and a count (Claude's 1-based offset, Qwen's 0-based one) for StartLine–EndLine. */
export function lineWindow(base: 0 | 1): FieldMap {
  return {
    keys: ["offset", "limit"],
    to(args, _root, out) {
      const start = typeof args.StartLine === "number" ? args.StartLine : undefined;
      const end = typeof args.EndLine === "number" ? args.EndLine : undefined;
      if (start !== undefined) out.offset = start - 1 + base;
      if (end !== undefined) out.limit = end - (start ?? 1) + 1;
    },
    from(input, out) {
      if (typeof input.offset === "number") out.StartLine = input.offset + 1 - base;
      if (typeof input.limit === "number") {
        const start = typeof out.StartLine === "number" ? out.StartLine : 1;
        out.EndLine = start + input.limit - 1;
      }
      return undefined;
    },
  };
}

/** Gantry's Includes (a list of globs) as one glob string (`*.ts`, `{*.ts,*.tsx}`). */
export function globField(dialect: string): FieldMap {
  return {
    keys: [dialect],
    to(args, _root, out) {
      const globs = Array.isArray(args.Includes) ? (args.Includes as string[]) : [];
      if (globs.length === 1) out[dialect] = globs[0];
      else if (globs.length > 1) out[dialect] = `{${globs.join(",")}}`;
    },
    from(input, out) {
      if (typeof input[dialect] === "string") out.Includes = [input[dialect]];
      return undefined;
    },
  };
}

/** A flag that is the opposite of a Gantry flag (Gemini's `names_only` is `MatchPerLine: false`). */
export function negated(gantry: string, dialect: string): FieldMap {
  return {
    keys: [dialect],
    to(args, _root, out) {
      if (typeof args[gantry] === "boolean") out[dialect] = !args[gantry];
    },
    from(input, out) {
      if (typeof input[dialect] === "boolean") out[gantry] = !input[dialect];
      return undefined;
    },
  };
}

/** A value that only exists on the dialect's side (seed 002's `language: "bash"`). */
export function constant(dialect: string, value: unknown): FieldMap {
  return {
    keys: [],
    to: (_args, _root, out) => void (out[dialect] = value),
    from: () => undefined,
  };
}

type Chunk = Record<string, unknown>;
const chunksOf = (args: Args) =>
  Array.isArray(args.ReplacementChunks) ? (args.ReplacementChunks as Chunk[]) : [];

/** multi_replace's chunks as Claude's MultiEdit `edits`; a rewrite's edits merge over the chunks by index. */
export function editsField(): FieldMap {
  return {
    keys: ["edits"],
    to(args, _root, out) {
      out.edits = chunksOf(args).map((chunk) => ({
        old_string: chunk.TargetContent,
        new_string: chunk.ReplacementContent,
        replace_all: chunk.AllowMultiple,
      }));
    },
    from(input, out) {
      if (!Array.isArray(input.edits)) return undefined;
      const chunks = chunksOf(out);
      out.ReplacementChunks = (input.edits as Chunk[]).map((edit, i) => {
        const chunk: Chunk = { StartLine: 1, EndLine: 1_000_000_000, AllowMultiple: false, ...chunks[i] };
        if (edit.old_string !== undefined) chunk.TargetContent = edit.old_string;
        if (edit.new_string !== undefined) chunk.ReplacementContent = edit.new_string;
        if (edit.replace_all !== undefined) chunk.AllowMultiple = edit.replace_all;
        return chunk;
      });
      return undefined;
    },
  };
}

/**
 * multi_replace as one `replace`/`edit` call (Gemini CLI and Qwen Code have no multi-edit): every chunk's
 * text joined, so a scanner of `new_string` sees all of it. A rewrite can change the text of a
 * single-chunk call only; for several chunks there is no way to split it back.
 */
export function joinedChunks(allowKey: string): FieldMap {
  const keys = ["old_string", "new_string", allowKey];
  return {
    keys,
    to(args, _root, out) {
      const chunks = chunksOf(args);
      out.old_string = chunks.map((chunk) => chunk.TargetContent).join("\n");
      out.new_string = chunks.map((chunk) => chunk.ReplacementContent).join("\n");
      out[allowKey] = chunks.some((chunk) => chunk.AllowMultiple === true);
    },
    from(input, out) {
      const chunks = chunksOf(out);
      const changed = (key: string, now: string) => key in input && input[key] !== now;
      const before = {
        old_string: chunks.map((chunk) => chunk.TargetContent).join("\n"),
        new_string: chunks.map((chunk) => chunk.ReplacementContent).join("\n"),
      };
      if (!changed("old_string", before.old_string) && !changed("new_string", before.new_string))
        return undefined;
      if (chunks.length !== 1)
        return `the hook rewrote old_string/new_string of a ${chunks.length}-chunk multi-replace, which cannot be split back into its chunks`;
      const [chunk] = chunks as [Chunk];
      out.ReplacementChunks = [
        {
          ...chunk,
          ...(input.old_string !== undefined ? { TargetContent: input.old_string } : {}),
          ...(input.new_string !== undefined ? { ReplacementContent: input.new_string } : {}),
        },
      ];
      return undefined;
    },
  };
}

/** Gemini's web_fetch takes a prompt holding the URL; back, the prompt's first URL is the Url. */
export function promptUrl(): FieldMap {
  return {
    keys: ["prompt"],
    to(args, _root, out) {
      if (typeof args.Url === "string") out.prompt = args.Url;
    },
    from(input, out) {
      if (typeof input.prompt !== "string") return undefined;
      out.Url = /https?:\/\/\S+/.exec(input.prompt)?.[0] ?? input.prompt;
      return undefined;
    },
  };
}

/** The same names on both sides (Qwen's `agent`, Claude's `Task`). */
export function sameNames(...names: string[]): FieldMap[] {
  return names.map((name) => field(name, name));
}

// Argument names that hold paths, for tools a dialect has no shape for: scripts still get absolute paths.
const PATH_FIELDS = new Set([
  "AbsolutePath",
  "TargetFile",
  "DirectoryPath",
  "SearchPath",
  "SearchDirectory",
  "Cwd",
]);

/** Gantry arguments → the dialect's shape; a tool the dialect lacks keeps Gantry's names, paths absolute. */
export function argsToDialect(tool: DialectTool | undefined, args: Args, root: string): Args {
  const out: Args = {};
  if (!tool) {
    for (const [key, value] of Object.entries(args))
      out[key] = PATH_FIELDS.has(key) ? absolute(root, value) : value;
    return out;
  }
  for (const fieldMap of tool.fields) fieldMap.to(args, root, out);
  return out;
}

/**
 * A hook's rewrite (in the dialect's names) merged over the original arguments: fields it leaves out keep
 * their values. Gantry names in the rewrite count too. Returns an error when the rewrite cannot be applied.
 */
export function argsFromDialect(
  tool: DialectTool | undefined,
  input: Args,
  original: Args,
): { ok: true; args: Args } | { ok: false; message: string } {
  const out: Args = { ...original };
  if (!tool) return { ok: true, args: { ...out, ...input } };
  for (const fieldMap of tool.fields) {
    const problem = fieldMap.from(input, out);
    if (problem) return { ok: false, message: problem };
  }
  const dialectKeys = new Set(tool.fields.flatMap((fieldMap) => fieldMap.keys));
  for (const [key, value] of Object.entries(input)) {
    if (!dialectKeys.has(key) && key in original) out[key] = value;
  }
  return { ok: true, args: out };
}
