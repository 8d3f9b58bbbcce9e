import {
  comparePaths,
  createResultCollector,
  type GrepEngineResult,
  type GrepOutcome,
  type GrepRequest,
} from "./engine.js";
import { absolutePath, createFileScanner, SCAN_BINARY, SCAN_LARGE } from "./file-scanner.js";
import { compileGlobs } from "./glob.js";
import type { LineMatcher } from "./matcher.js";
import { createScanPool, type PoolOptions, type ScanPool } from "./scan-pool.js";
import { walkWorkspace } from "./walk.js";

const FILES_PER_SLICE = 256;

/**
 * The pure-Node engine: same walk rules, same skips, same order as the ripgrep engine. Each file is
 * streamed through one reused buffer, never loaded whole; a NUL byte anywhere marks it binary (as
 * ripgrep judges it) and its lines are dropped. Many files are scanned by worker threads as well.
 */
export async function nodeSearch(
  request: GrepRequest,
  matcher: LineMatcher,
  poolOptions: PoolOptions = {},
): Promise<GrepEngineResult> {
  // the pool starts its workers only once the walk has found enough files, and they scan while it walks
  const pool = createScanPool(request, matcher, poolOptions);
  try {
    await addCandidateFiles(request, pool);
    const outcome = pool.usesWorkers()
      ? await searchInPool(request, matcher, pool)
      : await searchHere(request, matcher, pool.files.sort(comparePaths));
    return { ok: true, outcome };
  } finally {
    pool.close();
  }
}

function emptyOutcome(): GrepOutcome {
  return {
    files: [],
    matches: 0,
    matchedFiles: 0,
    skippedLargeFiles: 0,
    skippedBinaryFiles: 0,
    engine: "node",
  };
}

/** On this thread alone, in path order, keeping lines while the cap has room. */
async function searchHere(request: GrepRequest, matcher: LineMatcher, files: string[]) {
  const collector = createResultCollector(request);
  const scanner = createFileScanner(matcher, request.maxFileBytes);
  const outcome = emptyOutcome();
  try {
    for (let i = 0; i < files.length; i++) {
      if (i % FILES_PER_SLICE === FILES_PER_SLICE - 1) {
        await new Promise((resolve) => setImmediate(resolve));
        request.signal.throwIfAborted();
      }
      const rel = files[i] as string;
      // seed 001: after the cap no line is kept, but every file is still judged so the skips are counted
      const keep = request.matchPerLine ? collector.wanted() : 0;
      const scan = scanner.scan(absolutePath(request.root, rel), keep);
      if (scan.kind === "large") outcome.skippedLargeFiles++;
      else if (scan.kind === "binary") outcome.skippedBinaryFiles++;
      else if (scan.kind === "text" && scan.count > 0) {
        outcome.matchedFiles++;
        outcome.matches += request.matchPerLine ? scan.count : 1;
        collector.add(rel, scan.lines, scan.count);
      }
    }
  } finally {
    scanner.release();
  }
  outcome.files = collector.files;
  return outcome;
}

/** Counts on every thread, then the lines of just the matching files shown (read again, in path order). */
async function searchInPool(request: GrepRequest, matcher: LineMatcher, pool: ScanPool) {
  const { counts, threads } = await pool.finish();
  const files = pool.files;
  const outcome: GrepOutcome = { ...emptyOutcome(), threads };
  const matched: number[] = [];
  for (let i = 0; i < counts.length; i++) {
    const code = counts[i] as number;
    if (code === SCAN_LARGE) outcome.skippedLargeFiles++;
    else if (code === SCAN_BINARY) outcome.skippedBinaryFiles++;
    else if (code > 0) {
      matched.push(i);
      outcome.matchedFiles++;
      outcome.matches += request.matchPerLine ? code : 1;
    }
  }
  // only the matching files need path order; the skips are counts
  matched.sort((a, b) => comparePaths(files[a] as string, files[b] as string));
  const collector = createResultCollector(request);
  const scanner = createFileScanner(matcher, request.maxFileBytes);
  for (const i of matched) {
    if (collector.room() <= 0) break;
    const rel = files[i] as string;
    const count = counts[i] as number;
    // files wholly before the part shown (Offset) are passed over by their counts, never read again
    const lines =
      request.matchPerLine && !collector.passesOver(count)
        ? scanner.firstLines(absolutePath(request.root, rel), collector.wanted())
        : [];
    collector.add(rel, lines, count);
  }
  scanner.release();
  outcome.files = collector.files;
  return outcome;
}

/** The walk's files (or the one file searched), fed to the pool as they are found. */
async function addCandidateFiles(request: GrepRequest, pool: ScanPool): Promise<void> {
  if (!request.searchIsDir) return pool.add(request.searchRel);
  const isIncluded = request.includes.length > 0 ? compileGlobs(request.includes) : undefined;
  await walkWorkspace({
    root: request.root,
    startRel: request.searchRel,
    chain: request.chain,
    secrets: request.secrets,
    signal: request.signal,
    // the scan workers take every further CPU while the walk goes on: listing workers would only compete
    threads: { workers: 0 },
    visit(entry) {
      if (!entry.isDir && (!isIncluded || isIncluded(entry.rel, entry.name, request.searchRel))) {
        pool.add(entry.rel);
      }
      return undefined;
    },
  });
}
