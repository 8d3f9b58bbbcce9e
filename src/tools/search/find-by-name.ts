import { z } from "zod";
import { defineTool, okResult, type ToolResult } from "../contract.js";
import type { ToolEnvironment } from "../environment.js";
import { comparePaths } from "./engine.js";
import { compileGlobs, type EntryMatcher } from "./glob.js";
import type { WalkEntry } from "./walk.js";

const FindByNameArgs = z.object({
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
});

type FindArgs = z.infer<typeof FindByNameArgs>;

export function createFindByNameTool(env: ToolEnvironment) {
  return defineTool({
    spec: {
      name: "find_by_name",
      description:
        "Find files and folders by glob in the workspace; results are workspace-relative paths, sorted, folders ending in /. " +
        "Skips .gitignored paths, node_modules, build outputs, .git and secret files.",
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
        secrets: env.workspace.secrets,
        maxDepth: args.MaxDepth,
        signal: ctx.signal,
        visit(entry) {
          const verdict = wanted(entry);
          if (verdict === "prune") return false;
          if (verdict === "match") found.push(entry.isDir ? `${entry.rel}/` : entry.rel);
          return undefined;
        },
      });
      return formatFound(found.sort(comparePaths), args, env.workspace.limits.maxMatches);
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

function formatFound(found: string[], args: FindArgs, maxMatches: number): ToolResult {
  if (found.length === 0) {
    return okResult(
      `No ${describeType(args.Type)} match ${JSON.stringify(args.Pattern)} in ${args.SearchDirectory}.`,
      {
        matches: 0,
        shown: 0,
        truncated: false,
      },
    );
  }
  const shown = found.slice(0, maxMatches);
  const omitted = found.length - shown.length;
  const lines = [...shown];
  if (omitted > 0) {
    lines.push(
      `[${omitted} more results not shown (limit ${maxMatches}); narrow Pattern, SearchDirectory or MaxDepth]`,
    );
  }
  return okResult(lines.join("\n"), { matches: found.length, shown: shown.length, truncated: omitted > 0 });
}

function describeType(type: FindArgs["Type"]): string {
  return type === "file" ? "files" : type === "directory" ? "folders" : "files or folders";
}
