// Loads the bundle's CommonJS chunks with V8 code caches made after the command ran.
//
// Node's own compile cache is made as a module is compiled, before it runs: it holds the top level of
// each module and none of the functions V8 compiles lazily when they are first called. For a one-call
// `gantry tool` those lazy compiles (settings, trust, hooks, policy, the tool) were most of the time
// after start-up. A vm.Script's `createCachedData()` taken when the command is done holds every function
// that ran, so the next start of the same command compiles almost nothing.
//
// Only the bundle's own chunks load this way (their file names carry a hash of their content, so a
// cache can never be taken for another file's code); everything else goes through Node's loader and its
// compile cache. A cache that is missing or that V8 rejects (another Node version) is written when the
// process exits, to a file of its own replaced by a rename, in a folder nobody else can read. A cache
// that cannot be read or written only makes the start slower.

/**
 * The function a chunk's code becomes, as Node's own loader would wrap it. The build writes the chunks
 * only this loader reads with it already in place (rolldown.config.js); those a worker thread loads
 * through Node's loader stay plain.
 */
const CHUNK_HEAD = "(function (exports, require, module, __filename, __dirname) {";
const CHUNK_TAIL = "\n})";

interface LoadedChunk {
  script: import("node:vm").Script;
  cacheFile: string;
}

type ChunkLoader = (module: NodeJS.Module, filename: string) => void;

/** Runs `entry` (a chunk of the bundle), loading the chunks of its folder with code caches from `cacheRoot`. */
function runWithCodeCache(entry: string, cacheRoot: string): void {
  const fs = process.getBuiltinModule("node:fs");
  const path = process.getBuiltinModule("node:path");
  const vm = process.getBuiltinModule("node:vm");
  const Module = process.getBuiltinModule("node:module") as unknown as {
    _extensions: Record<string, ChunkLoader>;
    createRequire(filename: string): NodeJS.Require;
  };
  const bundle = path.dirname(entry) + path.sep;
  // one folder per Node build and bundle folder: V8 rejects another version's caches anyway
  const folder = path.join(cacheRoot, `${process.version}-${process.arch}-${hashOf(bundle)}`);
  const stale: LoadedChunk[] = [];
  // a cache runs as the user's own code: only a folder of the user's that nobody else may write counts,
  // and so must the one holding it be (whoever may write there could swap the folder for theirs);
  // NODE_COMPILE_CACHE may name a shared folder, where another user could have made them first
  const trusted = isPrivateFolder(cacheRoot) && isPrivateFolder(folder);

  // the chunks require each other by relative names, and Node's own modules: one require serves them all
  const requireInBundle = Module.createRequire(entry);
  const nodeLoader = Module._extensions[".js"] as ChunkLoader;
  Module._extensions[".js"] = (module, filename) => {
    if (!filename.startsWith(bundle) || filename.includes(path.sep, bundle.length))
      return nodeLoader(module, filename);
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
    if (cachedData === undefined || script.cachedDataRejected) stale.push({ script, cacheFile });
    const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
    wrapper.call(module.exports, module.exports, requireInBundle, module, filename, bundle.slice(0, -1));
  };
  process.once("exit", () => {
    if (stale.length > 0 && trusted !== false) saveCaches(stale, folder, bundle);
  });
  require(entry);
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

function saveCaches(chunks: LoadedChunk[], folder: string, bundle: string): void {
  const fs = process.getBuiltinModule("node:fs");
  const path = process.getBuiltinModule("node:path");
  let partial: string | undefined;
  try {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    if (!isPrivateFolder(path.dirname(folder)) || !isPrivateFolder(folder)) return;
    for (const { script, cacheFile } of chunks) {
      partial = `${cacheFile}.${process.pid}`;
      fs.writeFileSync(partial, script.createCachedData(), { mode: 0o600 });
      fs.renameSync(partial, cacheFile);
      partial = undefined;
    }
    // the caches of chunks an upgrade replaced (`<chunk>.<length>.cache`, the chunk gone from the bundle)
    for (const name of fs.readdirSync(folder)) {
      const chunk = name.replace(/\.\d+\.cache(\.\d+)?$/, "");
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
