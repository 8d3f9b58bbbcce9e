import { closeSync, existsSync } from "node:fs";
import path from "node:path";
import { openVerifiedSync } from "../../workspace/paths.js";
import type { GrepLine, GrepRequest } from "./engine.js";
import { queryArgs, runRipgrep } from "./ripgrep-run.js";

/** A matching file whose lines are shown: its match count, and how many of its first lines are kept. */
export interface ShownFile {
  path: string;
  count: number;
  keep: number;
}

interface OpenedFile {
  rel: string;
  keep: number;
  fd?: number;
}

/**
 * The lines of the files to show. rg reads each through a descriptor Gantry opened and verified
 * (`/proc/<pid>/fd/N` names the opened file itself, whatever its path names by then); where /proc is
 * missing, by path. rg writes to `outputFile`, not a pipe: a few long (minified) lines are megabytes.
 */
export async function matchingLines(
  rg: string,
  request: GrepRequest,
  files: ShownFile[],
  outputFile: string,
) {
  const proc = existsSync(`/proc/${process.pid}/fd`);
  const opened = new Map<string, OpenedFile>();
  for (const file of files) {
    if (!proc) {
      opened.set(file.path, { rel: file.path, keep: file.keep });
      continue;
    }
    const fd = openVerifiedSync(path.join(request.root, file.path), "file");
    if (fd !== undefined)
      opened.set(`/proc/${process.pid}/fd/${fd}`, { rel: file.path, keep: file.keep, fd });
  }
  try {
    if (opened.size === 0) return { ok: true as const, byPath: new Map<string, GrepLine[]>() };
    return await linesOf(rg, request, opened, outputFile);
  } finally {
    for (const { fd } of opened.values()) if (fd !== undefined) closeSync(fd);
  }
}

async function linesOf(
  rg: string,
  request: GrepRequest,
  opened: Map<string, OpenedFile>,
  outputFile: string,
) {
  let linesPerFile = 1;
  for (const file of opened.values()) linesPerFile = Math.max(linesPerFile, file.keep);
  const args = [
    "--no-config",
    "--color=never",
    "--null",
    "--line-number",
    "--with-filename",
    "--no-heading",
    "--no-messages",
    // a few named files: one thread answers sooner than a pool that has to start first
    "--threads=1",
    `--max-count=${linesPerFile}`,
    ...queryArgs(request),
    "--",
    ...opened.keys(),
  ];
  const run = await runRipgrep(rg, args, request, outputFile);
  if (!run.ok) return run;
  return { ok: true as const, byPath: parseLines(run.stdout, opened) };
}

/**
 * rg's `name NUL line-number : text` records, read as bytes: only the lines kept are decoded (one
 * minified line can be megabytes), and a name that holds a line break stays whole.
 */
function parseLines(out: Buffer, opened: Map<string, OpenedFile>): Map<string, GrepLine[]> {
  const byPath = new Map<string, GrepLine[]>();
  for (let start = 0; start < out.length; ) {
    const nul = out.indexOf(0, start);
    if (nul < 0) break;
    const newline = out.indexOf(10, nul);
    const end = newline < 0 ? out.length : newline;
    const colon = out.indexOf(58, nul);
    const file = opened.get(out.toString("utf8", start, nul));
    start = end + 1;
    if (file === undefined || colon < 0 || colon > end) continue;
    const lines = byPath.get(file.rel) ?? [];
    if (lines.length >= file.keep) continue;
    const textEnd = end > colon + 1 && out[end - 1] === 13 ? end - 1 : end;
    lines.push({
      line: Number(out.toString("latin1", nul + 1, colon)),
      text: out.toString("utf8", colon + 1, textEnd),
    });
    byPath.set(file.rel, lines);
  }
  return byPath;
}
