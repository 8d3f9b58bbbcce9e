import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/**
 * The workspace files a program runs without naming them as paths: `npx prettier` and its kin run the
 * workspace's `node_modules` copy, `python3 -m evilpy` the workspace's `evilpy/`, `node -r pre` the
 * workspace's `node_modules/pre`. `argv` is one command's words (known values); `folders` where it may
 * run. Candidates only: the caller keeps those that exist inside the workspace.
 */
export function codeRunByProgram(
  argv: readonly string[],
  folders: readonly string[],
  root: string,
): string[] {
  const program = path.basename(argv[0] ?? "");
  const args = argv.slice(1);
  const packages = packagesRunBy(program, args);
  if (packages)
    return [
      ...packages.flatMap((name) => packageFiles(name, folders, root)),
      ...runnerConfig(program, folders, root),
    ];
  if (/^python(?:\d+(?:\.\d+)?)?$/.test(program)) return pythonModules(args, folders);
  if (/^(?:node|nodejs|bun|deno)$/.test(program)) return nodePreloads(args, folders, root);
  return [];
}

/** The options of npx (and bunx, pnpx) that take a value. */
export const NPX_OPTIONS_WITH_VALUE: ReadonlySet<string> = new Set([
  "-p",
  "--package",
  "-c",
  "--call",
  "--cache",
  "--prefix",
  "-w",
  "--workspace",
]);

/** The packages a package runner runs (`npx -y a@1`, `npm exec -- a`, `pnpm dlx a`, `yarn dlx a`, `bunx a`). */
function packagesRunBy(program: string, args: string[]): string[] | undefined {
  let rest: string[] | undefined;
  if (program === "npx" || program === "bunx" || program === "pnpx") rest = args;
  else if (
    (program === "npm" && /^(?:exec|x)$/.test(args[0] ?? "")) ||
    ((program === "pnpm" || program === "yarn") && /^(?:dlx|exec)$/.test(args[0] ?? "")) ||
    (program === "bun" && args[0] === "x")
  )
    rest = args.slice(1);
  if (!rest) return undefined;
  const found: string[] = [];
  for (let at = 0; at < rest.length; at++) {
    const word = rest[at] ?? "";
    if (word === "--") {
      if (rest[at + 1]) found.push(rest[at + 1] ?? "");
      break;
    }
    const [option, inline] = word.split(/=(.*)/s);
    if (option === "-p" || option === "--package") {
      const value = inline ?? rest[++at];
      if (value) found.push(value);
      continue;
    }
    if (word.startsWith("-")) {
      if (inline === undefined && NPX_OPTIONS_WITH_VALUE.has(word)) at++;
      continue;
    }
    found.push(word);
    break;
  }
  return found.map(packageName).filter((name) => name !== "");
}

/** `@scope/name@1.2` → `@scope/name`; a path or URL is no package name. */
function packageName(spec: string): string {
  if (/^(?:\.|\/|[a-z+]+:)/i.test(spec)) return "";
  const at = spec.indexOf("@", 1);
  return at > 0 ? spec.slice(0, at) : spec;
}

/** A package the workspace holds, in the folder the command runs in or any above it up to the root. */
function packageFiles(name: string, folders: readonly string[], root: string): string[] {
  const bin = name.split("/").pop() ?? name;
  const files: string[] = [];
  for (const folder of upTo(folders, root)) {
    const modules = path.join(folder, "node_modules");
    files.push(path.join(modules, ".bin", bin));
    const manifest = path.join(modules, name, "package.json");
    files.push(manifest, ...binsOf(manifest));
    // npx runs the project's own bin of that name, before looking anywhere else
    files.push(...binsOf(path.join(folder, "package.json"), bin));
  }
  return files;
}

/** A runner's own configuration in the workspace (`.npmrc` can point npx at another registry). */
function runnerConfig(program: string, folders: readonly string[], root: string): string[] {
  const names =
    program === "yarn"
      ? [".yarnrc.yml", ".yarnrc"]
      : program.startsWith("bun")
        ? ["bunfig.toml"]
        : [".npmrc"];
  return upTo(folders, root).flatMap((folder) => names.map((name) => path.join(folder, name)));
}

/** The files a package.json's `bin` names; `only`: the one bin of that name. */
function binsOf(manifest: string, only?: string): string[] {
  try {
    if (!statSync(manifest).isFile() || statSync(manifest).size > 1_000_000) return [];
    const json = JSON.parse(readFileSync(manifest, "utf8")) as { bin?: unknown; name?: unknown };
    const named: Record<string, unknown> =
      typeof json.bin === "string"
        ? {
            [String(json.name ?? "")
              .split("/")
              .pop() ?? ""]: json.bin,
          }
        : ((json.bin ?? {}) as Record<string, unknown>);
    const bins = only === undefined ? Object.values(named) : Object.hasOwn(named, only) ? [named[only]] : [];
    return bins
      .filter((bin): bin is string => typeof bin === "string")
      .map((bin) => path.resolve(path.dirname(manifest), bin));
  } catch {
    return [];
  }
}

/** `python3 -m pkg.mod`: the current folder comes first on `sys.path`, so the workspace's `pkg` runs. */
function pythonModules(args: string[], folders: readonly string[]): string[] {
  const at = args.findIndex((word) => word === "-m" || (word.startsWith("-m") && !word.startsWith("--")));
  if (at < 0) return [];
  const word = args[at] ?? "";
  const module = word === "-m" ? (args[at + 1] ?? "") : word.slice(2);
  const top = module.split(".")[0] ?? "";
  if (!/^[A-Za-z_]\w*$/.test(top)) return [];
  const rel = module.split(".").join("/");
  return folders.flatMap((folder) => [
    path.join(folder, `${top}.py`),
    path.join(folder, top, "__init__.py"),
    path.join(folder, `${rel}.py`),
    path.join(folder, rel, "__main__.py"),
    path.join(folder, rel, "__init__.py"),
  ]);
}

const NODE_PRELOADS = new Set(["-r", "--require", "--import", "--loader", "--experimental-loader"]);

/** `node -r x` / `--import=x` / `--loader x`: a bare name is a package of the workspace's node_modules. */
function nodePreloads(args: string[], folders: readonly string[], root: string): string[] {
  const files: string[] = [];
  for (let at = 0; at < args.length; at++) {
    const [option, inline] = (args[at] ?? "").split(/=(.*)/s);
    if (!option || !NODE_PRELOADS.has(option)) continue;
    const value = inline ?? args[++at] ?? "";
    if (value === "" || /^(?:\.|\/|[a-z]+:)/i.test(value)) continue;
    const name = value.startsWith("@") ? value.split("/").slice(0, 2).join("/") : (value.split("/")[0] ?? "");
    for (const folder of upTo(folders, root)) {
      const manifest = path.join(folder, "node_modules", name, "package.json");
      files.push(
        manifest,
        path.join(folder, "node_modules", `${value}.js`),
        path.join(folder, "node_modules", value, "index.js"),
      );
    }
  }
  return files;
}

/** Each folder and the folders above it, as far as the workspace's root. */
export function upTo(folders: readonly string[], root: string): string[] {
  const found = new Set<string>();
  for (const start of folders) {
    let folder = start;
    for (;;) {
      found.add(folder);
      const rel = path.relative(root, folder);
      if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) break;
      folder = path.dirname(folder);
    }
  }
  return [...found].filter((folder) => existsSync(folder));
}
