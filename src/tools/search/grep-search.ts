import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";
import { withReadRules } from "../../policy/read-visibility.js";
import { defineTool, errorResult, okResult, type ToolResult } from "../contract.js";
import type { ToolEnvironment } from "../environment.js";
import { nextCall, offsetArgument } from "../paging.js";
import type { GrepLine, GrepOutcome, GrepRequest } from "./engine.js";
import { isNameOnly } from "./glob.js";
import { MAX_LINE_CHARS, windowOfLine } from "./long-lines.js";
import { compileMatcher, type LineMatcher } from "./matcher.js";

/**
 * The walk, the engines and the `ignore` package load on the first search, not with every `gantry tool`;
 * the Node engine (and its worker threads) only when it is the one that answers.
 */
const loadSearchModules = () => Promise.all([import("./search-root.js"), import("./ripgrep.js")]);

const GrepSearchArgs = lazySchema(() =>
  z.object({
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
    Offset: offsetArgument(
      "Matching lines (or files, when MatchPerLine is false) to pass over, in result order, before the part shown; a cut result names the next Offset. Default 0.",
    ),
  }),
);

type GrepSearchArgs = z.infer<ReturnType<typeof GrepSearchArgs>>;

export function createGrepSearchTool(env: ToolEnvironment) {
  return defineTool({
    spec: {
      name: "grep_search",
      description:
        "Search file contents in the workspace (ripgrep when available). Literal by default; results as path:line: text, sorted by path. " +
        "Skips .gitignored paths, node_modules, build outputs, .git and secret files; large and binary files are skipped and counted. " +
        "A long result comes in parts: its last line gives the call (with Offset) for the next part.",
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
      return formatOutcome(result.outcome, {
        args,
        request,
        matcher: compiled.ok ? compiled.matcher : undefined,
        maxChars: env.workspace.limits.maxOutputChars,
      });
    },
  });
}

function grepRequest(
  env: ToolEnvironment,
  args: GrepSearchArgs,
  root: { rel: string; isDir: boolean; chain: GrepRequest["chain"]; gitignoreFolders: string[] },
  signal: AbortSignal,
): GrepRequest {
  return {
    root: env.workspace.root,
    searchRel: root.rel,
    searchIsDir: root.isDir,
    chain: root.chain,
    gitignoreFolders: root.gitignoreFolders,
    secrets: withReadRules(env.permissions, "grep_search", env.workspace.secrets).guard,
    secretAllowGlobs: env.settings.secrets?.allow ?? [],
    query: args.Query,
    isRegex: args.IsRegex ?? false,
    caseInsensitive: args.CaseInsensitive ?? false,
    includes: args.Includes ?? [],
    matchPerLine: args.MatchPerLine ?? true,
    offset: args.Offset ?? 0,
    maxMatches: env.workspace.limits.maxMatches,
    maxFileBytes: env.workspace.limits.maxSearchFileBytes,
    signal,
  };
}

interface FormatContext {
  args: GrepSearchArgs;
  request: GrepRequest;
  matcher: LineMatcher | undefined;
  /** The workspace's output limit: the whole text, closing line included, stays within it. */
  maxChars: number;
}

function formatOutcome(outcome: GrepOutcome, context: FormatContext): ToolResult {
  const { request } = context;
  const { offset } = request;
  const total = outcome.matches;
  const skips = skipNote(outcome);
  const rows = resultRows(outcome, context);
  // the closing line is measured with the largest numbers it can hold; the rows fill what is left
  const widest = offset + total;
  const reserve = [closingLine(context, { left: widest, shown: widest, total: widest }, false), skips]
    .filter((line) => line !== undefined)
    .reduce((sum, line) => sum + line.length + 1, 0);
  const out = fitRows(rows, context.maxChars - reserve);
  const shown = out.length;
  const left = Math.max(0, total - offset - shown);
  if (skips) out.push(skips);
  // the closing line comes last, so a cut result ends with its next call
  if (total === 0) out.push(`No matches for ${JSON.stringify(request.query)}.`);
  else if (offset >= total) out.push(pastTheEnd(request, total));
  else if (left > 0) out.push(closingLine(context, { left, shown, total }, shown === rows.length));
  else if (offset > 0)
    out.push(`[${unit(request)} ${offset + 1}-${offset + shown} of ${total} shown; no more]`);
  return okResult(out.join("\n"), {
    matches: total,
    matchedFiles: outcome.matchedFiles,
    offset,
    shown,
    truncated: left > 0,
    ...(left > 0 ? { next: nextArgs(context.args, offset + shown) } : {}),
    skippedLargeFiles: outcome.skippedLargeFiles,
    skippedBinaryFiles: outcome.skippedBinaryFiles,
    engine: outcome.engine,
    ...(outcome.threads === undefined ? {} : { threads: outcome.threads }),
  });
}

/** The rows the engine kept (at most the match cap), as the model reads them. */
function resultRows(outcome: GrepOutcome, { request, matcher }: FormatContext): string[] {
  const rows: string[] = [];
  for (const file of outcome.files) {
    if (!request.matchPerLine) rows.push(file.path);
    else for (const hit of file.lines) rows.push(`${file.path}:${hit.line}: ${shortenLine(hit, matcher)}`);
  }
  return rows;
}

/** Whole rows while they fit in `budget` characters; always at least one, so every next part moves on. */
function fitRows(rows: string[], budget: number): string[] {
  const out: string[] = [];
  let used = 0;
  for (const row of rows) {
    if (used + row.length + 1 > budget) {
      if (out.length === 0)
        out.push(row.length > budget ? `${row.slice(0, Math.max(40, budget - 1))}…` : row);
      break;
    }
    out.push(row);
    used += row.length + 1;
  }
  return out;
}

function unit(request: GrepRequest): string {
  return request.matchPerLine ? "matching lines" : "matching files";
}

/** What was left out after this part, why, and the exact call that fetches the next part. */
function closingLine(
  context: FormatContext,
  part: { left: number; shown: number; total: number },
  capEnded: boolean,
): string {
  const { request } = context;
  const why = capEnded ? `limit ${request.maxMatches}` : `output limit ${context.maxChars} characters`;
  const first = request.offset + 1;
  const range = request.offset > 0 ? `; this part: ${first}-${first + part.shown - 1} of ${part.total}` : "";
  return `[${part.left} more ${unit(request)} not shown (${why})${range}. ${nextCall(context.args, request.offset + part.shown)}]`;
}

function nextArgs(args: GrepSearchArgs, offset: number): GrepSearchArgs {
  return { ...args, Offset: offset };
}

function pastTheEnd(request: GrepRequest, matches: number): string {
  return `No more matches: Offset ${request.offset} is past the last of the ${matches} ${unit(request)} for ${JSON.stringify(request.query)}.`;
}

function skipNote(outcome: GrepOutcome): string | undefined {
  const parts: string[] = [];
  if (outcome.skippedLargeFiles > 0) parts.push(`${outcome.skippedLargeFiles} large`);
  if (outcome.skippedBinaryFiles > 0) parts.push(`${outcome.skippedBinaryFiles} binary`);
  return parts.length > 0 ? `[skipped ${parts.join(" and ")} file(s)]` : undefined;
}

/** A long (minified) line is cut to a window around its first match, marked with "…" (long-lines.ts). */
function shortenLine(hit: GrepLine, matcher: LineMatcher | undefined): string {
  if (hit.shortened) return hit.text;
  return windowOfLine(hit.text, hit.text.length <= MAX_LINE_CHARS ? 0 : (matcher?.firstIndex(hit.text) ?? 0));
}
