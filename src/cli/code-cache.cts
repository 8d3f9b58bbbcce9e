// Loads the bundle's CommonJS chunks with V8 code caches made after the command ran.
//
// Node's own compile cache is made as a module is compiled, before it runs: it holds the top level of
// each module and none of the functions V8 compiles lazily when they are first called. For a one-call
// `gantry tool` those lazy compiles (settings, trust, hooks, policy, the tool) were most of the time
// after start-up. A vm.Script's `createCachedData()` taken when the command is done holds every function
// that ran, so the next start of the same command compiles almost nothing.
//
// Only the bundle's own chunks load this way (their file names carry a hash of their content, so a
// cache can never be taken for another file's code), from a table of the loader's own rather than
// Node's module cache; everything else goes through Node's loader and its compile cache. A cache that
// is missing or that V8 rejects (another Node version) is written when the process exits, to a file of
// its own replaced by a rename, in a folder nobody else can read. A cache that cannot be read or
// written only makes the start slower.
//
// A cache holds what the command that made it ran: made by `gantry --help` or a failed call, it lacks
// the session and the tools, and every later `gantry tool` compiled them again (about 5 ms of a 45 ms
// call). So a command names itself once it has done its work (RUN_NAME, below): the first successful
// run of each command saves the caches of every chunk it loaded again, now holding its functions as
// well as those cached before, and is listed in a file beside them, so later runs of it save nothing.

/**
 * The function a chunk's code becomes, as Node's own loader would wrap it. The build writes the chunks
 * only this loader reads with it already in place (rolldown.config.js); those a worker thread loads
 * through Node's loader stay plain.
 */
const CHUNK_HEAD = "(function (exports, require, module, __filename, __dirname) {";
const CHUNK_TAIL = "\n})";

/**
 * Where a command names its run for the caches (`gantry tool view_file` → "tool view_file"), once it
 * has succeeded: a function the loader puts on globalThis under this symbol (absent without the bundle).
 */
const RUN_NAME = Symbol.for("gantry.code-cache.run");

/** A run's name: a command and a tool or subcommand, in the few characters their names use. */
const RUN_NAME_FORM = /^[a-z][a-z0-9_ -]{0,63}$/;

interface LoadedChunk {
  script: import("node:vm").Script;
  cacheFile: string;
}

/** What a chunk sees as its `module`: the part of Node's module object the bundle's chunks use. */
interface ChunkModule {
  id: string;
  filename: string;
  exports: unknown;
  loaded: boolean;
}

/** Runs `entry` (a chunk of the bundle), loading the chunks of its folder with code caches from `cacheRoot`. */
function runWithCodeCache(entry: string, cacheRoot: string): void {
  const fs = process.getBuiltinModule("node:fs");
  const path = process.getBuiltinModule("node:path");
  const vm = process.getBuiltinModule("node:vm");
  const Module = process.getBuiltinModule("node:module");
  const bundle = path.dirname(entry) + path.sep;
  // one folder per Node build and bundle folder: V8 rejects another version's caches anyway
  const folder = path.join(cacheRoot, `${process.version}-${process.arch}-${hashOf(bundle)}`);
  const stale: LoadedChunk[] = [];
  const loaded: LoadedChunk[] = [];
  let runName: string | undefined;
  (globalThis as Record<symbol, unknown>)[RUN_NAME] = (name: string) => {
    if (RUN_NAME_FORM.test(name)) runName = name;
  };
  // a cache runs as the user's own code: only a folder of the user's that nobody else may write counts,
  // and so must the one holding it be (whoever may write there could swap the folder for theirs);
  // NODE_COMPILE_CACHE may name a shared folder, where another user could have made them first
  const trusted = isPrivateFolder(cacheRoot) && isPrivateFolder(folder);

  // the chunks require each other as "./<chunk>.js", which the loader below serves from its own table:
  // Node's resolver would stat and realpath every one of them (about 1 ms of a tiny `gantry tool`
  // call) for files whose place the build fixed; everything else (Node's modules, the packages kept
  // out of the bundle) goes through Node's require
  const requireInBundle = Module.createRequire(entry);
  const chunks = new Map<string, ChunkModule>();
  const requireChunk = (name: string): unknown => {
    if (!name.startsWith("./") || name.includes("/", 2)) return requireInBundle(name);
    return loadChunk(name.slice(2)).exports;
  };
  const loadChunk = (name: string): ChunkModule => {
    const known = chunks.get(name);
    if (known !== undefined) return known;
    const filename = bundle + name;
    const module: ChunkModule = { id: filename, filename, exports: {}, loaded: false };
    // in the table before it runs, as Node does: chunks that require each other get the exports so far
    chunks.set(name, module);
    try {
      runChunk(module, filename);
    } catch (cause) {
      chunks.delete(name);
      throw cause;
    }
    module.loaded = true;
    return module;
  };
  const runChunk = (module: ChunkModule, filename: string) => {
    // the build writes the chunks in ASCII (rolldown.config.js checks it), which latin1 decodes fastest
    const source = fs.readFileSync(filename, "latin1");
    const cacheFile = `${folder}${path.sep}${filename.slice(bundle.length)}.${source.length}.cache`;
    let cachedData: Buffer | undefined;
    try {
      if (trusted) cachedData = fs.readFileSync(cacheFile);
    } catch {}
    // a chunk the build wrapped already compiles as it is (a 600 KB chunk's copy into a wrapper costs ms)
    const script = new vm.Script(
      source.startsWith(CHUNK_HEAD) ? source : `${CHUNK_HEAD}${source}${CHUNK_TAIL}`,
      {
        filename,
        ...(cachedData ? { cachedData } : {}),
        importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
      },
    );
    loaded.push({ script, cacheFile });
    if (cachedData === undefined || script.cachedDataRejected) stale.push({ script, cacheFile });
    const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
    wrapper.call(module.exports, module.exports, requireChunk, module, filename, bundle.slice(0, -1));
  };
  // the list of the runs whose functions the caches hold, for this build of the bundle (its main chunk)
  const runsFile = `${folder}${path.sep}${path.basename(entry)}.runs`;
  process.once("exit", () => {
    if (trusted === false) return;
    if (runName !== undefined && !process.exitCode && !runsOf(runsFile).includes(runName))
      saveCaches(loaded, folder, bundle, { runsFile, runName });
    else if (stale.length > 0) saveCaches(stale, folder, bundle);
  });
  loadChunk(path.basename(entry));
}

runWithCodeCache.CHUNK_HEAD = CHUNK_HEAD;
runWithCodeCache.CHUNK_TAIL = CHUNK_TAIL;
export = runWithCodeCache;

/**
 * true: the folder is the user's and only theirs to write; undefined: it does not exist yet (the first
 * save makes it); false: anything else (another owner, writable by others, a link), whose caches are
 * neither read nor written.
 */
function isPrivateFolder(folder: string): boolean | undefined {
  const fs = process.getBuiltinModule("node:fs");
  let stat: import("node:fs").Stats;
  try {
    stat = fs.lstatSync(folder);
  } catch {
    return undefined;
  }
  const owner = process.getuid?.() ?? stat.uid;
  return stat.isDirectory() && stat.uid === owner && (stat.mode & 0o022) === 0;
}

/** The runs a cache folder's caches hold (none when the list is missing or unreadable). */
function runsOf(runsFile: string): string[] {
  try {
    return process.getBuiltinModule("node:fs").readFileSync(runsFile, "latin1").split("\n");
  } catch {
    return [];
  }
}

/** Writes the chunks' caches; with `run`, adds its name to the list of runs once they are written. */
function saveCaches(
  chunks: LoadedChunk[],
  folder: string,
  bundle: string,
  run?: { runsFile: string; runName: string },
): void {
  const fs = process.getBuiltinModule("node:fs");
  const path = process.getBuiltinModule("node:path");
  let partial: string | undefined;
  const replace = (file: string, data: string | Uint8Array) => {
    partial = `${file}.${process.pid}`;
    fs.writeFileSync(partial, data, { mode: 0o600 });
    fs.renameSync(partial, file);
    partial = undefined;
  };
  try {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    if (!isPrivateFolder(path.dirname(folder)) || !isPrivateFolder(folder)) return;
    for (const { script, cacheFile } of chunks) replace(cacheFile, script.createCachedData());
    if (run) replace(run.runsFile, [...runsOf(run.runsFile).filter(Boolean), run.runName, ""].join("\n"));
    // what an upgrade left behind: the caches of chunks gone from the bundle (`<chunk>.<length>.cache`)
    // and the list of runs of an earlier main chunk (`<main chunk>.runs`)
    for (const name of fs.readdirSync(folder)) {
      const chunk = name.replace(/\.(\d+\.cache|runs)(\.\d+)?$/, "");
      if (chunk !== name && !fs.existsSync(path.join(bundle, chunk)))
        fs.rmSync(path.join(folder, name), { force: true });
    }
  } catch {
    // a read-only or full cache folder: the next start compiles again
    try {
      if (partial !== undefined) fs.rmSync(partial, { force: true });
    } catch {}
  }
}

/** FNV-1a of a string, as 8 hex digits: names the bundle folder's cache folder. */
function hashOf(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}
