// Bundles the command into a few files, so `gantry` starts by reading a handful of modules instead of
// several hundred (whole-process start-up is a benchmark target). The library build stays in dist/.
import { chmodSync, copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { defineConfig } from "rolldown";

/**
 * The bin is the version-checking CommonJS launcher (src/cli/bin.cts) with its code cache loader
 * (src/cli/code-cache.cts), next to the bundle's chunks; the launcher is told the main chunk's file name.
 * It must stay executable through every build (`npx gantry` runs the file itself). The chunks are
 * CommonJS, which the loader can compile with code caches made after a run (ES modules have no such
 * API): the folder's package.json says so.
 */
const launcherBin = {
  name: "launcher-bin",
  writeBundle(options, bundle) {
    const dir = options.dir ?? "dist/bundle";
    const main = Object.values(bundle).find((chunk) => chunk.type === "chunk" && chunk.isEntry && chunk.name === "main");
    if (!main) throw new Error("the bundle has no main chunk");
    const placeholder = 'const BUNDLE_MAIN = "";';
    const launcher = readFileSync("dist/cli/bin.cjs", "utf8");
    if (!launcher.includes(placeholder)) throw new Error(`dist/cli/bin.cjs lacks ${placeholder}`);
    for (const chunk of Object.values(bundle)) {
      if (chunk.type !== "chunk") continue;
      // the loader reads the chunks as latin1, the same text as UTF-8 only for ASCII
      if (/[^\x00-\x7f]/.test(chunk.code)) throw new Error(`${chunk.fileName} is not ASCII`);
      // an import() in a chunk goes through a loader Node warns about on stderr (vm scripts): a package
      // loaded on first use is required instead (src/tools/exec/sandbox.ts shows how, with the import()
      // of a name kept for the Node versions that cannot require an ES module)
      const external = /\bimport\("(?!node:)([^"]+)"\)/.exec(chunk.code);
      if (external) throw new Error(`${chunk.fileName} imports ${external[1]} with import(): require it instead`);
    }
    wrapChunks(bundle, dir);
    const bin = path.join(dir, "gantry.cjs");
    writeFileSync(bin, launcher.replace(placeholder, `const BUNDLE_MAIN = ${JSON.stringify(main.fileName)};`));
    chmodSync(bin, 0o755);
    copyFileSync("dist/cli/code-cache.cjs", path.join(dir, "code-cache.cjs"));
    writeFileSync(path.join(dir, "package.json"), `${JSON.stringify({ type: "commonjs" })}\n`);
  },
};

/**
 * Writes each chunk the launcher's loader reads (src/cli/code-cache.cts) as the function it compiles it
 * to, so a start does not copy every chunk into a wrapper first. The chunks a worker thread reaches are
 * loaded by Node's own loader and stay plain CommonJS.
 */
function wrapChunks(bundle, dir) {
  const { CHUNK_HEAD, CHUNK_TAIL } = createRequire(import.meta.url)("./dist/cli/code-cache.cjs");
  if (typeof CHUNK_HEAD !== "string" || typeof CHUNK_TAIL !== "string")
    throw new Error("dist/cli/code-cache.cjs names no CHUNK_HEAD and CHUNK_TAIL");
  const chunks = Object.values(bundle).filter((chunk) => chunk.type === "chunk");
  const byFile = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
  const plain = new Set();
  const reach = (fileName) => {
    if (plain.has(fileName)) return;
    plain.add(fileName);
    for (const imported of byFile.get(fileName)?.imports ?? []) reach(imported);
    for (const imported of byFile.get(fileName)?.dynamicImports ?? []) reach(imported);
  };
  for (const chunk of chunks) if (chunk.isEntry && chunk.name !== "main") reach(chunk.fileName);
  for (const chunk of chunks) {
    if (plain.has(chunk.fileName)) continue;
    const file = path.join(dir, chunk.fileName);
    writeFileSync(file, `${CHUNK_HEAD}${readFileSync(file, "latin1")}${CHUNK_TAIL}`, "latin1");
  }
}

const NODE_IMPORT = /^import\s+(\*\s+as\s+(\w+)|\{([^}]*)\}|(\w+))\s+from\s+"(node:[\w/]+)";?$/gm;

/**
 * Node's own modules through `process.getBuiltinModule` (Node ≥ 22.3) instead of `import`, in Gantry's
 * own code: an import builds an ES module facade that reads every export, and for node:http that loads
 * all of undici (about 60 ms); node:crypto, node:util and node:fs cost several ms each the same way.
 */
function builtinsWithoutFacades() {
  return {
    name: "gantry-builtins-without-facades",
    transform(code, id) {
      if (id.includes("/node_modules/") || !code.includes('"node:')) return null;
      const rewritten = code
        .replace(NODE_IMPORT, (_whole, _clause, namespace, named, single, source) => {
          const builtin = `process.getBuiltinModule(${JSON.stringify(source)})`;
          if (named === undefined) return `const ${namespace ?? single} = ${builtin};`;
          const bindings = named
            .split(",")
            .map((part) => part.trim())
            .filter(Boolean)
            .map((part) => {
              const [imported, local = imported] = part.split(/\s+as\s+/);
              return { imported, local };
            });
          if (loadsOnFirstCall(source, bindings)) return bindings.map((b) => firstCallLoader(b, builtin)).join("\n");
          return `const { ${named.replace(/\s+as\s+/g, ": ")} } = ${builtin};`;
        })
        .replace(/\bimport\("(node:[\w/]+)"\)/g, (_whole, source) => `Promise.resolve(process.getBuiltinModule("${source}"))`);
      return rewritten === code ? null : { code: rewritten };
    },
  };
}

/**
 * Built-ins a tiny `gantry tool` call need not load: node:crypto alone costs about 6% of that call's
 * instructions, node:fs/promises, readline and tty several % each, all for imports that most runs
 * never call. Node's own path and fs are loaded before any user code, so they stay as they are.
 */
const EAGER_BUILTINS = new Set(["node:path", "node:fs"]);

/**
 * An import loads its built-in at its first call when every name it takes is a plain function (not a
 * class, which `new`, `extends` and `instanceof` need as itself, nor a value): checked against this
 * build's own Node, so an import the wrapper could not stand in for stays as it was.
 */
function loadsOnFirstCall(source, bindings) {
  if (EAGER_BUILTINS.has(source)) return false;
  const builtin = process.getBuiltinModule(source);
  return bindings.every(({ imported }) => isPlainFunction(builtin?.[imported]));
}

/**
 * A function nothing else is read from: no class (Node's own streams are classes written as functions,
 * with methods on their prototype and statics such as Writable.toWeb), no property of its own.
 */
function isPlainFunction(value) {
  if (typeof value !== "function" || /^class\b/.test(Function.prototype.toString.call(value))) return false;
  const own = Reflect.ownKeys(value).filter((key) => !["length", "name", "prototype"].includes(key));
  const methods = value.prototype ? Reflect.ownKeys(value.prototype).filter((key) => key !== "constructor") : [];
  return own.length === 0 && methods.length === 0;
}

/** A function declaration (hoisted, as the import was) that fetches the built-in's function when called. */
function firstCallLoader({ imported, local }, builtin) {
  return `function ${local}(...args) { return ${builtin}.${imported}(...args); }`;
}

export default defineConfig({
  // main is the command (the launcher gantry.cjs runs it); worker thread scripts (search scans,
  // HTML → Markdown) are entries of their own, next to the chunks that start them (the hook runner's
  // process runs the library build's script: see src/hooks/hook-runner.ts)
  input: {
    main: "dist/cli/main.js",
    "scan-worker": "dist/tools/search/scan-worker.js",
    "walk-worker": "dist/tools/search/walk-worker.js",
    "markdown-worker": "dist/tools/web/markdown-worker.js",
  },
  platform: "node",
  // loaded on first use through their own module systems (a GopherJS build, a bubblewrap runtime, the
  // Restate SDK's WebAssembly core, which only `gantry worker` loads)
  external: ["mvdan-sh", /^@anthropic-ai\/sandbox-runtime/, /^@restatedev\//],
  // without comments or whitespace, local names shortened (functions and classes keep theirs, for stack
  // traces and errors), in ASCII: every start reads, copies and V8 scans less source (a third less; a file
  // with any non-ASCII character is held as two-byte text); nothing is rewritten otherwise (no compress)
  output: {
    dir: "dist/bundle",
    format: "cjs",
    // strict as the ES modules it is built from (and as the earlier ES module bundle ran)
    strict: true,
    // the main chunk's name carries its content's hash too: a code cache is kept per file name
    entryFileNames: (chunk) => (chunk.name === "main" ? "main-[hash].js" : "[name].js"),
    sourcemap: false,
    cleanDir: true,
    comments: { legal: true, annotation: false, jsdoc: false },
    charset: "ascii",
    minify: { compress: false, mangle: { keepNames: true }, codegen: { removeWhitespace: true } },
  },
  plugins: [builtinsWithoutFacades(), launcherBin],
});
