// The real-code corpus the search benchmarks run on: the source packages this project installs
// (node_modules: TypeScript, zod, the AI SDK, the MCP SDK, highlight.js, rolldown, vitest, Node's own
// headers, …), copied three times under .bench/corpus/ (copy-a, copy-b, copy-c) as one git repository.
// Folders every search skips by name (node_modules, dist, build, …) are renamed with a "src-" prefix, so
// the raw tools and Gantry walk the same files; files over 2 MB (native binaries) are left out.
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// BENCH_CORPUS: an existing corpus to use (another checkout's, so two builds are measured on the same files)
export const CORPUS = process.env.BENCH_CORPUS ?? path.join(REPO, ".bench", "corpus");
const SOURCE = path.join(REPO, "node_modules");
const COPIES = ["copy-a", "copy-b", "copy-c"];
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const SKIPPED_BY_NAME = new Set([
  ".git",
  "node_modules",
  "bower_components",
  "dist",
  "build",
  "out",
  "target",
  "coverage",
  ".cache",
  "__pycache__",
]);

/** The corpus's stamp: the installed packages (their lockfile) and this script's layout. */
function corpusStamp() {
  const lock = readFileSync(path.join(REPO, "package-lock.json"), "utf8");
  let hash = 0;
  for (let i = 0; i < lock.length; i++) hash = (hash * 31 + lock.charCodeAt(i)) >>> 0;
  return `corpus-v1 ${COPIES.length} ${MAX_FILE_BYTES} ${hash}`;
}

function copyTree(from, to, counts) {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const name = SKIPPED_BY_NAME.has(entry.name) ? `src-${entry.name.replace(/^\./, "")}` : entry.name;
    if (entry.isDirectory()) copyTree(source, path.join(to, name), counts);
    else if (entry.isFile()) {
      copyFileSync(source, path.join(to, name));
      counts.files++;
    }
  }
}

/** Builds the corpus once (reused while the installed packages stay the same); returns its figures. */
export function ensureCorpus() {
  const stampFile = path.join(CORPUS, ".corpus-stamp");
  const stamp = corpusStamp();
  if (existsSync(stampFile) && readFileSync(stampFile, "utf8").startsWith(stamp)) {
    return JSON.parse(readFileSync(stampFile, "utf8").slice(stamp.length + 1));
  }
  if (!existsSync(SOURCE)) throw new Error("node_modules is missing: run `npm ci` first");
  rmSync(CORPUS, { recursive: true, force: true });
  console.log(`building the corpus under ${CORPUS} from node_modules (once) ...`);
  const counts = { files: 0 };
  for (const copy of COPIES) copyTree(SOURCE, path.join(CORPUS, copy), counts);
  // one repository, so raw rg and fd honour the packages' .gitignore files as Gantry does
  spawnSync("git", ["init", "-q", CORPUS]);
  removeLargeFiles(CORPUS, counts);
  const bytes = Number(
    spawnSync("du", ["-sb", "--exclude=.git", CORPUS], { encoding: "utf8" }).stdout.split("\t")[0],
  );
  const figures = { files: counts.files, megabytes: Math.round(bytes / 1e6) };
  writeFileSync(stampFile, `${stamp}\n${JSON.stringify(figures)}`);
  return figures;
}

function removeLargeFiles(folder, counts) {
  const found = spawnSync(
    "find",
    [
      folder,
      "-path",
      `${folder}/.git`,
      "-prune",
      "-o",
      "-type",
      "f",
      "-size",
      `+${MAX_FILE_BYTES}c`,
      "-print0",
    ],
    {
      encoding: "utf8",
    },
  );
  for (const file of found.stdout.split("\0").filter(Boolean)) {
    rmSync(file);
    counts.files--;
  }
}
