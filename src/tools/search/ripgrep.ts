import { accessSync, closeSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { ATOMIC_TEMP_PREFIX } from "../../workspace/atomic-write.js";
import { openVerifiedSync } from "../../workspace/paths.js";
import { comparePaths, createResultCollector, type GrepEngineResult, type GrepRequest } from "./engine.js";
import { createFileScanner } from "./file-scanner.js";
import { compileGlobs, normalizeGlob } from "./glob.js";
import { rebaseGitignore, SKIPPED_FOLDER_NAMES } from "./ignore.js";
import type { LineMatcher } from "./matcher.js";
import { matchingLines, type ShownFile } from "./ripgrep-lines.js";
import { queryArgs, runRipgrep } from "./ripgrep-run.js";
import { secretPruneArgs } from "./secret-globs.js";

let cachedRipgrep: string | null | undefined;

/** The `rg` executable on PATH, or null; looked up once per process. */
export function findRipgrep(): string | null {
  if (cachedRipgrep !== undefined) return cachedRipgrep;
  cachedRipgrep = null;
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir === "") continue;
    const candidate = path.join(dir, "rg");
    try {
      accessSync(candidate, constants.X_OK);
      cachedRipgrep = candidate;
      break;
    } catch {}
  }
  return cachedRipgrep;
}

/**
 * ripgrep in two steps. 1: `--count --include-zero --stats` over the whole search: one line per
 * searched text file (so the match counts), "N files searched" (binary files are searched but never
 * listed, so the difference counts them), and `--debug` names each file skipped for its size.
 * 2: the matching lines of just the files that hold the part shown (from Offset, up to the cap).
 */
export async function ripgrepSearch(
  rg: string,
  request: GrepRequest,
  matcher: LineMatcher | undefined,
): Promise<GrepEngineResult> {
  const scratch = mkdtempSync(path.join(tmpdir(), "gantry-rg-"));
  try {
    const countArgs = [
      ...filterArgs(request, ignoreFileFor(request, scratch)),
      ...["--count", "--include-zero", "--stats", "--debug"],
      ...queryArgs(request),
      "--",
      searchTarget(request),
    ];
    const counted = await runRipgrep(rg, countArgs, request, path.join(scratch, "counts"));
    if (!counted.ok) return counted;
    const tally = keepVerified(parseCounts(counted.stdout, counted.stderr, request), request.root);
    const shown = await shownFiles(rg, request, tally.matchedFiles, { matcher, scratch });
    if (!shown.ok) return shown;
    return {
      ok: true,
      outcome: {
        files: shown.files,
        matches: request.matchPerLine ? tally.matchedLines : tally.matchedFiles.length,
        matchedFiles: tally.matchedFiles.length,
        skippedLargeFiles: tally.skippedLargeFiles,
        skippedBinaryFiles: tally.skippedBinaryFiles,
        engine: "ripgrep",
      },
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Step 2: the lines of the matching files that hold the part shown (in path order, from Offset on), as
 * many as the cap shows; the counts of step 1 pass over the files before it without reading them. A
 * literal, case-sensitive query means the same bytes to both engines, so Node reads those few files
 * itself and saves a second rg process; regexes and case folding stay with ripgrep.
 */
async function shownFiles(
  rg: string,
  request: GrepRequest,
  matchedFiles: CountedFile[],
  { matcher, scratch }: { matcher: LineMatcher | undefined; scratch: string },
) {
  const collector = createResultCollector(request);
  if (!request.matchPerLine) {
    for (const file of matchedFiles) {
      if (collector.room() <= 0) break;
      collector.add(file.path, [], 1);
    }
    return { ok: true as const, files: collector.files };
  }
  const wanted = filesHoldingPart(matchedFiles, collector);
  if (wanted.length === 0) return { ok: true as const, files: collector.files };
  if (matcher?.needle && !request.isRegex && !request.caseInsensitive) {
    const scanner = createFileScanner(matcher, Number.POSITIVE_INFINITY);
    for (const file of wanted) {
      collector.add(file.path, scanner.firstLines(path.join(request.root, file.path), file.keep), file.count);
    }
    scanner.release();
    return { ok: true as const, files: collector.files };
  }
  const lines = await matchingLines(rg, request, wanted, path.join(scratch, "lines"));
  if (!lines.ok) return lines;
  for (const file of wanted) {
    collector.add(file.path, lines.byPath.get(file.path) ?? [], file.count);
  }
  return { ok: true as const, files: collector.files };
}

/** The ignore rules of Gantry's walk, as ripgrep flags (the same rules the Node engine applies). */
function filterArgs(request: GrepRequest, ignoreFile: string | undefined): string[] {
  const args = [
    "--no-config",
    "--color=never",
    "--null",
    "--hidden",
    "--no-ignore-dot",
    "--no-ignore-global",
    "--no-ignore-exclude",
    "--no-ignore-parent",
    "--no-require-git",
    "--no-messages",
    `--max-filesize=${request.maxFileBytes}`,
    `--threads=${Math.max(2, availableParallelism())}`,
  ];
  for (const name of SKIPPED_FOLDER_NAMES) args.push(`--glob=!${name}/`);
  args.push(`--glob=!${ATOMIC_TEMP_PREFIX}*`);
  if (request.secretAllowGlobs.length === 0) {
    args.push(...secretPruneArgs());
  }
  if (ignoreFile) args.push(`--ignore-file=${ignoreFile}`);
  if (request.includes.length > 0) {
    for (const glob of request.includes) args.push(`--type-add=gantryinclude:${normalizeGlob(glob)}`);
    args.push("--type=gantryinclude");
  }
  return args;
}

function searchTarget(request: GrepRequest): string {
  return request.searchRel === "" ? "./" : request.searchRel;
}

/** .gitignore files above a sub-folder search, rebased to the workspace root into one --ignore-file. */
function ignoreFileFor(request: GrepRequest, scratch: string): string | undefined {
  if (request.searchRel === "" || request.gitignoreFolders.length === 0) return undefined;
  if (request.gitignoreFolders.length === 1 && request.gitignoreFolders[0] === "") {
    return path.join(request.root, ".gitignore");
  }
  const lines: string[] = [];
  for (const folder of request.gitignoreFolders) {
    try {
      const text = readFileSync(path.join(request.root, folder, ".gitignore"), "utf8");
      lines.push(...rebaseGitignore(text, folder));
    } catch {}
  }
  const file = path.join(scratch, "ignore");
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

interface CountedFile {
  path: string;
  count: number;
}

function parseCounts(stdout: Buffer, stderr: string, request: GrepRequest) {
  const isIncluded = request.includes.length > 0 ? compileGlobs(request.includes) : undefined;
  const keep = (rel: string) =>
    !request.secrets.isSecret(rel) &&
    (!isIncluded || isIncluded(rel, rel.slice(rel.lastIndexOf("/") + 1), request.searchRel));
  const matchedFiles: CountedFile[] = [];
  let listed = 0;
  let matchedLines = 0;
  let end = 0;
  // bytes, not a decoded string: only the few matching paths are ever decoded. Each entry is
  // `path NUL count LF`; a path may hold a line break but never a NUL, and the statistics after the
  // list hold none. Buffer.indexOf finds each NUL natively, and a "0" count (the common case) is
  // passed over without looking for its line end.
  for (let nul = stdout.indexOf(0); nul >= 0; nul = stdout.indexOf(0, end)) {
    const at = end;
    listed++;
    if (stdout[nul + 1] === 48 && stdout[nul + 2] === 10) {
      end = nul + 3;
      continue;
    }
    const lineEnd = stdout.indexOf(10, nul + 1);
    end = lineEnd < 0 ? stdout.length : lineEnd + 1;
    const rel = cleanPath(stdout.toString("utf8", at, nul));
    const count = Number(stdout.toString("latin1", nul + 1, lineEnd < 0 ? stdout.length : lineEnd));
    if (count > 0 && keep(rel)) {
      matchedFiles.push({ path: rel, count });
      matchedLines += count;
    }
  }
  const statistics = stdout.toString("utf8", end);
  const searched = Number(/^(\d+) files searched$/m.exec(statistics)?.[1] ?? listed);
  let skippedLargeFiles = 0;
  for (const match of stderr.matchAll(/ignoring (.+): \d+ bytes$/gm)) {
    if (keep(cleanPath(match[1] as string))) skippedLargeFiles++;
  }
  matchedFiles.sort((a, b) => comparePaths(a.path, b.path));
  return {
    matchedFiles,
    matchedLines,
    skippedLargeFiles,
    skippedBinaryFiles: Math.max(0, searched - listed),
  };
}

function cleanPath(printed: string): string {
  return printed.startsWith("./") ? printed.slice(2) : printed;
}

/**
 * The files that hold the part shown, each with the lines it must give (its passed-over ones, then
 * those the cap still has room for); the files before it are passed to the collector by their counts.
 */
function filesHoldingPart(
  files: CountedFile[],
  collector: ReturnType<typeof createResultCollector>,
): ShownFile[] {
  const wanted: ShownFile[] = [];
  let needed = 0;
  let lines = 0;
  for (const file of files) {
    if (wanted.length === 0) {
      if (collector.passesOver(file.count)) {
        collector.add(file.path, [], file.count);
        continue;
      }
      needed = collector.wanted();
      if (needed === 0) break;
    } else if (lines >= needed) break;
    wanted.push({ ...file, keep: Math.min(file.count, needed - lines) });
    lines += file.count;
  }
  return wanted;
}

/**
 * rg walks by path, so a folder swapped for a symlink mid-search could make it read a file outside the
 * workspace: each matching file is opened again (no symlink followed) and must still be the file its
 * path names inside the workspace; one that is not is dropped with its count.
 */
function keepVerified<T extends { matchedFiles: CountedFile[]; matchedLines: number }>(
  tally: T,
  root: string,
): T {
  const matchedFiles = tally.matchedFiles.filter((file) => {
    const opened = openVerifiedFile(root, file.path);
    if (opened !== undefined) closeSync(opened);
    return opened !== undefined;
  });
  if (matchedFiles.length === tally.matchedFiles.length) return tally;
  const matchedLines = matchedFiles.reduce((sum, file) => sum + file.count, 0);
  return { ...tally, matchedFiles, matchedLines };
}

function openVerifiedFile(root: string, rel: string): number | undefined {
  return openVerifiedSync(path.join(root, rel), "file");
}
