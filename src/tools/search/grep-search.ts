import { z } from "zod";
import { defineTool, errorResult, okResult, type ToolResult } from "../contract.js";
import type { ToolEnvironment } from "../environment.js";
import type { GrepOutcome, GrepRequest } from "./engine.js";
import { isNameOnly } from "./glob.js";
import { compileMatcher, type LineMatcher } from "./matcher.js";

/**
 * The walk, the engines and the `ignore` package load on the first search, not with every `gantry tool`;
 * the Node engine (and its worker threads) only when it is the one that answers.
 */
const loadSearchModules = () => Promise.all([import("./search-root.js"), import("./ripgrep.js")]);

const GrepSearchArgs = z.object({
  SearchPath: z
    .string()
    .describe("Folder or file to search, relative to the workspace or absolute inside it."),
  Query: z.string().min(1).describe("Text to find; a literal string unless IsRegex is true."),
  IsRegex: z
    .boolean()
    .optional()
    .describe(
      "Treat Query as a regular expression (ripgrep/Rust syntax; one line at a time). Default false.",
    ),
  CaseInsensitive: z.boolean().optional().describe("Match regardless of case. Default false."),
  Includes: z
    .array(z.string())
    .optional()
    .describe(
      'Only search files matching these globs: "*.ts" matches names anywhere, "src/**/*.ts" matches workspace-relative paths.',
    ),
  MatchPerLine: z
    .boolean()
    .optional()
    .describe(
      "true (default): one result per matching line, as path:line: text. false: only the matching file names.",
    ),
});

/** Lines longer than this are shown as a window around the first match. */
const MAX_LINE_CHARS = 300;

export function createGrepSearchTool(env: ToolEnvironment) {
  return defineTool({
    spec: {
      name: "grep_search",
      description:
        "Search file contents in the workspace (ripgrep when available). Literal by default; results as path:line: text, sorted by path. " +
        "Skips .gitignored paths, node_modules, build outputs, .git and secret files; large and binary files are skipped and counted.",
      parameters: GrepSearchArgs,
      safety: "read_only",
      group: "Search",
      aliases: ["grep"],
    },
    async execute(args, ctx): Promise<ToolResult> {
      if (/[\r\n]/.test(args.Query)) {
        return errorResult(
          "invalid_arguments",
          "Query must be a single line: grep_search matches one line at a time.",
        );
      }
      const [{ resolveSearchRoot, searchEngineSetting }, { findRipgrep, ripgrepSearch }] =
        await loadSearchModules();
      const root = await resolveSearchRoot(env.workspace, args.SearchPath, "file_or_directory");
      if (!root.ok) return root.result;
      const compiled = compileMatcher(args.Query, args.IsRegex ?? false, args.CaseInsensitive ?? false);
      const request = grepRequest(env, args, root, ctx.signal);
      const forcedNode = searchEngineSetting(env.settings) === "node";
      // the Node walk alone judges a single file and path globs in Includes (see README)
      const rg = forcedNode || !root.isDir || !isNameOnly(request.includes) ? null : findRipgrep();
      // ripgrep judges its own (Rust) regex syntax; the Node engine needs a JavaScript RegExp
      if (!rg && !compiled.ok) return errorResult("invalid_arguments", compiled.message);
      let result = rg
        ? await ripgrepSearch(rg, request, compiled.ok ? compiled.matcher : undefined)
        : undefined;
      // an rg too old for these flags, or one that crashed: the Node engine answers instead
      if (result === undefined || (!result.ok && result.code === "execution_failed" && compiled.ok)) {
        const { nodeSearch } = await import("./node-grep.js");
        result = await nodeSearch(request, (compiled as { matcher: LineMatcher }).matcher);
      }
      if (!result.ok) return errorResult(result.code, result.message);
      return formatOutcome(result.outcome, request, compiled.ok ? compiled.matcher : undefined);
    },
  });
}

function grepRequest(
  env: ToolEnvironment,
  args: z.infer<typeof GrepSearchArgs>,
  root: { rel: string; isDir: boolean; chain: GrepRequest["chain"]; gitignoreFolders: string[] },
  signal: AbortSignal,
): GrepRequest {
  return {
    root: env.workspace.root,
    searchRel: root.rel,
    searchIsDir: root.isDir,
    chain: root.chain,
    gitignoreFolders: root.gitignoreFolders,
    secrets: env.workspace.secrets,
    secretAllowGlobs: env.settings.secrets?.allow ?? [],
    query: args.Query,
    isRegex: args.IsRegex ?? false,
    caseInsensitive: args.CaseInsensitive ?? false,
    includes: args.Includes ?? [],
    matchPerLine: args.MatchPerLine ?? true,
    maxMatches: env.workspace.limits.maxMatches,
    maxFileBytes: env.workspace.limits.maxSearchFileBytes,
    signal,
  };
}

function formatOutcome(
  outcome: GrepOutcome,
  request: GrepRequest,
  matcher: LineMatcher | undefined,
): ToolResult {
  const out: string[] = [];
  let shown = 0;
  for (const file of outcome.files) {
    if (!request.matchPerLine) {
      out.push(file.path);
      shown++;
      continue;
    }
    for (const hit of file.lines) {
      out.push(`${file.path}:${hit.line}: ${shortenLine(hit.text, matcher)}`);
      shown++;
    }
  }
  const omitted = outcome.matches - shown;
  const skips = skipNote(outcome);
  if (outcome.matches === 0) out.push(`No matches for ${JSON.stringify(request.query)}.`);
  if (omitted > 0) {
    out.push(
      `[${omitted} more ${request.matchPerLine ? "matching lines" : "matching files"} not shown (limit ${request.maxMatches}); narrow SearchPath, Includes or Query]`,
    );
  }
  if (skips) out.push(skips);
  return okResult(out.join("\n"), {
    matches: outcome.matches,
    matchedFiles: outcome.matchedFiles,
    shown,
    truncated: omitted > 0,
    skippedLargeFiles: outcome.skippedLargeFiles,
    skippedBinaryFiles: outcome.skippedBinaryFiles,
    engine: outcome.engine,
    ...(outcome.threads === undefined ? {} : { threads: outcome.threads }),
  });
}

function skipNote(outcome: GrepOutcome): string | undefined {
  const parts: string[] = [];
  if (outcome.skippedLargeFiles > 0) parts.push(`${outcome.skippedLargeFiles} large`);
  if (outcome.skippedBinaryFiles > 0) parts.push(`${outcome.skippedBinaryFiles} binary`);
  return parts.length > 0 ? `[skipped ${parts.join(" and ")} file(s)]` : undefined;
}

/** A long (minified) line is cut to a window around its first match, marked with "…". */
function shortenLine(text: string, matcher: LineMatcher | undefined): string {
  if (text.length <= MAX_LINE_CHARS) return text;
  const at = Math.max(0, matcher?.firstIndex(text) ?? 0);
  const start = Math.max(0, Math.min(at - MAX_LINE_CHARS / 3, text.length - MAX_LINE_CHARS));
  const end = start + MAX_LINE_CHARS;
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
}
