import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";
import { withReadRules } from "../../policy/read-visibility.js";
import { defineTool, okResult, type ToolResult } from "../contract.js";
import type { ToolEnvironment } from "../environment.js";
import { nextCall, offsetArgument } from "../paging.js";
import { comparePaths } from "./engine.js";
import { compileGlobs, type EntryMatcher } from "./glob.js";
import type { WalkEntry } from "./walk.js";

const FindByNameArgs = lazySchema(() =>
  z.object({
    SearchDirectory: z
      .string()
      .describe("Folder to search in, relative to the workspace or absolute inside it."),
    Pattern: z
      .string()
      .min(1)
      .describe(
        'Glob. Without "/" it matches names anywhere ("*.ts"); with "/" it matches the workspace-relative path ("src/**/*.java", where **/ may also be zero folders).',
      ),
    Type: z
      .enum(["file", "directory", "any"])
      .optional()
      .describe("What to list: file, directory or any (default any)."),
    Excludes: z
      .array(z.string())
      .optional()
      .describe("Globs to leave out (same rules as Pattern); an excluded folder hides everything inside it."),
    Extensions: z
      .array(z.string())
      .optional()
      .describe('Only files with one of these extensions ("ts" or ".ts"; case-insensitive).'),
    MaxDepth: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("Deepest level to look at; 1 = only the entries directly inside SearchDirectory."),
    Offset: offsetArgument("Results to skip, in the sorted order; for the next part of a long result."),
  }),
);

type FindArgs = z.infer<ReturnType<typeof FindByNameArgs>>;

export function createFindByNameTool(env: ToolEnvironment) {
  return defineTool({
    spec: {
      name: "find_by_name",
      description:
        "Find files and folders by glob in the workspace; results are workspace-relative paths, sorted, folders ending in /. " +
        "Skips .gitignored paths, node_modules, build outputs, .git and secret files. A long result comes in parts: its last line gives the call (with Offset) for the next part.",
      parameters: FindByNameArgs,
      safety: "read_only",
      group: "Search",
      aliases: ["find"],
    },
    async execute(args, ctx): Promise<ToolResult> {
      // loaded on the first search, not with every `gantry tool`
      const [{ resolveSearchRoot }, { walkWorkspace }] = await Promise.all([
        import("./search-root.js"),
        import("./walk.js"),
      ]);
      const root = await resolveSearchRoot(env.workspace, args.SearchDirectory, "directory");
      if (!root.ok) return root.result;
      const wanted = entryFilter(args, root.rel);
      const found: string[] = [];
      await walkWorkspace({
        root: env.workspace.root,
        startRel: root.rel,
        chain: root.chain,
        secrets: withReadRules(env.permissions, "find_by_name", env.workspace.secrets).guard,
        maxDepth: args.MaxDepth,
        signal: ctx.signal,
        visit(entry) {
          const verdict = wanted(entry);
          if (verdict === "prune") return false;
          if (verdict === "match") found.push(entry.isDir ? `${entry.rel}/` : entry.rel);
          return undefined;
        },
      });
      return formatFound(found.sort(comparePaths), args, env.workspace.limits);
    },
  });
}

/** Decides each entry: listed, passed over, or (an excluded folder) pruned with all it holds. */
function entryFilter(args: FindArgs, searchRel: string): (entry: WalkEntry) => "match" | "skip" | "prune" {
  const matchesPattern = compileGlobs([args.Pattern]);
  const excluded: EntryMatcher | undefined =
    args.Excludes && args.Excludes.length > 0 ? compileGlobs(args.Excludes) : undefined;
  const extensions = args.Extensions?.map((ext) => `.${ext.replace(/^\.+/, "").toLowerCase()}`);
  const type = args.Type ?? "any";
  return (entry) => {
    if (excluded?.(entry.rel, entry.name, searchRel)) return entry.isDir ? "prune" : "skip";
    if (type === "file" && entry.isDir) return "skip";
    if (type === "directory" && !entry.isDir) return "skip";
    if (extensions && (entry.isDir || !extensions.some((ext) => entry.name.toLowerCase().endsWith(ext)))) {
      return "skip";
    }
    return matchesPattern(entry.rel, entry.name, searchRel) ? "match" : "skip";
  };
}

/** Room kept for the closing line (its next call repeats the arguments). */
const CLOSING_RESERVE = 600;

/** One part of the sorted results: from Offset, up to maxMatches and the output limit. */
function formatFound(
  found: string[],
  args: FindArgs,
  limits: { maxMatches: number; maxOutputChars: number },
): ToolResult {
  const offset = args.Offset ?? 0;
  if (found.length === 0) {
    return okResult(
      `No ${describeType(args.Type)} match ${JSON.stringify(args.Pattern)} in ${args.SearchDirectory}.`,
      {
        matches: 0,
        offset,
        shown: 0,
        truncated: false,
      },
    );
  }
  if (offset >= found.length) {
    return okResult(`[no more results: ${found.length} matched, and Offset ${offset} skips them all]`, {
      matches: found.length,
      offset,
      shown: 0,
      truncated: false,
    });
  }
  const budget = Math.max(limits.maxOutputChars - CLOSING_RESERVE, Math.floor(limits.maxOutputChars / 2));
  const lines: string[] = [];
  let used = 0;
  for (const entry of found.slice(offset, offset + limits.maxMatches)) {
    if (used + entry.length + 1 > budget && lines.length > 0) break;
    lines.push(entry);
    used += entry.length + 1;
  }
  const end = offset + lines.length;
  if (end < found.length) {
    lines.push(
      `[truncated: results ${offset + 1}-${end} of ${found.length} shown; ${found.length - end} left out. ${nextCall(args, end)}]`,
    );
  }
  return okResult(lines.join("\n"), {
    matches: found.length,
    offset,
    shown: end - offset,
    truncated: end < found.length,
  });
}

function describeType(type: FindArgs["Type"]): string {
  return type === "file" ? "files" : type === "directory" ? "folders" : "files or folders";
}
