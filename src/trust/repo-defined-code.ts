import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { gitDefinedCode } from "./git-config-code.js";
import { firstFileBelow, JS_TESTS, PYTHON_TESTS } from "./test-files.js";
import { NPX_OPTIONS_WITH_VALUE, upTo } from "./workspace-code.js";

/**
 * Code a command runs that no word of it names: `npm test` runs the scripts package.json defines,
 * `make` the Makefile's rules, `pytest` the tests and conftest.py files, `eslint` a JavaScript config.
 * Such a file does not pin a trust decision (what it runs, the tests, changes all the time); it makes
 * the user's own hook or server count as running the workspace's code, which a folder not trusted
 * must not do.
 */
export interface DefinedCode {
  /** The workspace file (or folder of tests) whose content decides what runs. */
  file: string;
  /** How the command runs it, `{}` standing for the file as shown: "npm test runs the scripts {} defines". */
  why: string;
}

/** One way a program runs the workspace's code: which invocations, and the files whose presence makes them. */
interface Definer {
  /** Whether these words (after the program) run it; default: any but asking for the version or help. */
  when?: (args: string[]) => boolean;
  /** What of the file runs, for the message: "the scripts". */
  what: string;
  files?: readonly string[];
  /** Also the folders above the one it runs in, to the workspace's root: the program looks there too. */
  up?: boolean;
  /** Counts only where the file's text says so (a JSON config naming plugins, a package.json with the script). */
  holds?: (text: string, args: string[]) => boolean;
  /** Test files the program finds below the folder it runs in. */
  tests?: RegExp;
}

const VERSION_OR_HELP = /^(?:-v|-V|-h|--version|--help|help|version)$/;
const any = (args: string[]) => !VERSION_OR_HELP.test(firstWord(args) ?? "");
const subcommand =
  (...names: string[]) =>
  (args: string[]) =>
    names.includes(firstWord(args) ?? "");
const except =
  (...names: string[]) =>
  (args: string[]) =>
    any(args) && !names.includes(firstWord(args) ?? "");
const flag = (name: string) => (args: string[]) => args.includes(name);
const mentions = (pattern: RegExp) => (text: string) => pattern.test(text);
const named = (stem: string, extensions: string) => extensions.split(",").map((ext) => `${stem}.${ext}`);

const JS = "js,cjs,mjs,ts,cts,mts";
const NPM_INSTALLS =
  "install,i,in,ins,inst,insta,instal,isnt,isnta,isntal,isntall,add,ci,clean-install,ic,install-clean,isntall-clean,install-test,it,install-ci-test,cit,rebuild,rb,pack,publish,update,up,upgrade";
const NPM_RUNS = "run,run-script,rum,urn,test,t,tst,start,stop,restart";
/** Package managers' commands that run no script of the project: everything else may (`pnpm build` runs the `build` script). */
const NO_SCRIPT = [
  "exec",
  "dlx",
  "x",
  "list",
  "ls",
  "why",
  "outdated",
  "info",
  "view",
  "config",
  "store",
  "audit",
  "licenses",
  "search",
  "root",
  "bin",
  "pm",
  "init",
  "create",
];
const PACKAGE_JSON = { files: ["package.json"], up: true };

const TABLE: Readonly<Record<string, readonly Definer[]>> = {
  npm: [
    {
      when: subcommand(...NPM_INSTALLS.split(",")),
      what: "the install scripts and dependencies",
      ...PACKAGE_JSON,
    },
    { when: subcommand(...NPM_RUNS.split(",")), what: "the scripts", ...PACKAGE_JSON, holds: hasNpmScript },
  ],
  pnpm: [
    { when: (args) => args.length > 0 && except(...NO_SCRIPT)(args), what: "the scripts", ...PACKAGE_JSON },
    {
      when: subcommand(...NPM_INSTALLS.split(","), "remove"),
      what: "the install hooks",
      files: [".pnpmfile.cjs"],
      up: true,
    },
  ],
  yarn: [
    { when: except(...NO_SCRIPT), what: "the scripts", ...PACKAGE_JSON },
    {
      // whatever the command (`yarn --version` too), yarn hands over to the release yarnPath names
      when: () => true,
      what: "the Yarn release and plugins",
      files: [".yarnrc.yml"],
      up: true,
      holds: mentions(/yarnPath|plugins/),
    },
  ],
  bun: [
    { when: (args) => args.length > 0 && except(...NO_SCRIPT)(args), what: "the scripts", ...PACKAGE_JSON },
    { what: "the preloaded modules", files: ["bunfig.toml"], up: true, holds: mentions(/preload/) },
    { when: subcommand("test"), what: "the tests", tests: JS_TESTS },
  ],
  make: [{ what: "the rules", files: ["GNUmakefile", "makefile", "Makefile"] }],
  just: [{ what: "the recipes", files: ["justfile", "Justfile", "JUSTFILE", ".justfile"], up: true }],
  task: [
    {
      what: "the tasks",
      files: [
        "Taskfile.yml",
        "Taskfile.yaml",
        "taskfile.yml",
        "taskfile.yaml",
        "Taskfile.dist.yml",
        "Taskfile.dist.yaml",
      ],
      up: true,
    },
  ],
  cargo: [
    {
      when: subcommand(
        ..."build,b,check,c,test,t,bench,run,r,clippy,doc,d,rustc,rustdoc,fix,install,nextest,miri".split(
          ",",
        ),
      ),
      what: "the build scripts, macros and tests",
      files: ["Cargo.toml"],
      up: true,
    },
    { what: "the aliases and wrappers", files: [".cargo/config.toml", ".cargo/config"], up: true },
  ],
  go: [
    {
      when: subcommand("generate"),
      what: "the //go:generate commands",
      files: ["go.mod", "go.work"],
      up: true,
    },
    {
      when: (args) => subcommand("run", "test")(args) && !args.some((word) => /@/.test(word)),
      what: "the code",
      files: ["go.mod", "go.work"],
      up: true,
    },
  ],
  pytest: [
    { what: "the tests and plugins", files: ["conftest.py", "pytest.ini", ".pytest.ini"], up: true },
    {
      what: "the tests and plugins",
      files: ["pyproject.toml", "tox.ini", "setup.cfg"],
      up: true,
      holds: mentions(/pytest/),
    },
    { what: "the tests", tests: PYTHON_TESTS },
  ],
  tox: [
    { what: "the environments and commands", files: ["tox.ini"], up: true },
    {
      what: "the environments and commands",
      files: ["pyproject.toml", "setup.cfg"],
      up: true,
      holds: mentions(/tox/),
    },
  ],
  nox: [{ what: "the sessions", files: ["noxfile.py"] }],
  gradle: [
    {
      what: "the build",
      files: named("build.gradle", "kts").concat(
        "build.gradle",
        named("settings.gradle", "kts"),
        "settings.gradle",
      ),
      up: true,
    },
  ],
  mvn: [
    {
      what: "the build and its plugins",
      files: ["pom.xml", ".mvn/extensions.xml", ".mvn/jvm.config", ".mvn/maven.config"],
    },
  ],
  rake: [{ what: "the tasks", files: ["Rakefile", "rakefile", "Rakefile.rb", "rakefile.rb"], up: true }],
  bundle: [{ what: "the Ruby code", files: ["Gemfile", "gems.rb", ".bundle/config"], up: true }],
  composer: [{ when: except("about", "list"), what: "the scripts and plugins", files: ["composer.json"] }],
  deno: [
    {
      when: subcommand("task"),
      what: "the tasks",
      files: ["deno.json", "deno.jsonc", "package.json"],
      up: true,
    },
    { when: subcommand("test", "bench"), what: "the tests", tests: JS_TESTS },
  ],
  "pre-commit": [
    { when: except("sample-config"), what: "the hooks", files: [".pre-commit-config.yaml"], up: true },
  ],
  uv: [
    {
      when: subcommand("run", "sync", "build"),
      what: "the project",
      files: ["pyproject.toml", "setup.py"],
      up: true,
    },
  ],
  poetry: [
    { when: subcommand("run", "install", "build"), what: "the project", files: ["pyproject.toml"], up: true },
  ],
  pdm: [
    {
      when: except("config", "list", "info"),
      what: "the project and its scripts",
      files: ["pyproject.toml"],
      up: true,
    },
  ],
  hatch: [
    {
      when: subcommand("run", "test", "build", "env"),
      what: "the project and its scripts",
      files: ["pyproject.toml", "hatch.toml"],
      up: true,
    },
  ],
  eslint: [
    {
      what: "the configuration and plugins",
      files: [...named("eslint.config", JS), ...named(".eslintrc", "js,cjs,yaml,yml,json"), ".eslintrc"],
      up: true,
    },
    {
      what: "the configuration and plugins",
      files: ["package.json"],
      up: true,
      holds: mentions(/"eslintConfig"/),
    },
  ],
  prettier: [
    {
      what: "the configuration and plugins",
      files: [...named("prettier.config", JS), ...named(".prettierrc", JS)],
      up: true,
    },
    {
      what: "the configuration and plugins",
      files: [".prettierrc", ...named(".prettierrc", "json,json5,yaml,yml,toml")],
      up: true,
      holds: namesPrettierCode,
    },
    {
      what: "the configuration and plugins",
      files: ["package.json"],
      up: true,
      holds: mentions(/"prettier"\s*:\s*("|\{[^}]*"plugins")/),
    },
  ],
  jest: [
    {
      what: "the configuration",
      files: [...named("jest.config", JS), ...named("babel.config", JS), ...named(".babelrc", JS)],
      up: true,
    },
    { what: "the tests", tests: JS_TESTS },
  ],
  vitest: [
    {
      what: "the configuration",
      files: [...named("vitest.config", JS), ...named("vite.config", JS), ...named("vitest.workspace", JS)],
      up: true,
    },
    { what: "the tests", tests: JS_TESTS },
  ],
  mocha: [
    { what: "the configuration", files: named(".mocharc", "js,cjs,mjs"), up: true },
    { what: "the tests", tests: JS_TESTS },
  ],
  node: [{ when: flag("--test"), what: "the tests", tests: JS_TESTS }],
};

/** Other names of the same programs. */
const ALIASES: Readonly<Record<string, string>> = {
  gmake: "make",
  "py.test": "pytest",
  nodejs: "node",
  jake: "rake",
};

/** Options taking a value that say which folder the program works in. */
const FOLDER_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  make: ["-C", "--directory"],
  npm: ["--prefix", "-C"],
  pnpm: ["--dir", "-C"],
  yarn: ["--cwd"],
  task: ["-d", "--dir"],
};

/**
 * The code the workspace defines that `argv` runs from `folders` (where the command runs: the
 * workspace, or a folder it `cd`s into), its wrapped command's too (`bundle exec rake`, `npx eslint`,
 * `env X=1 make`, `python3 -m pytest`); `git` by what the repository's git files name (git-config-code.ts).
 */
export function codeDefinedBy(
  argv: readonly string[],
  folders: readonly string[],
  root: string,
): DefinedCode[] {
  const found: DefinedCode[] = [];
  let words = [...argv];
  for (let depth = 0; depth < 4 && words.length > 0; depth++) {
    const base = path.basename(words[0] ?? "");
    const program = ALIASES[base] ?? (/^python(?:\d+(?:\.\d+)?)?$/.test(base) ? "python" : base);
    const args = words.slice(1);
    if (program === "git") found.push(...gitDefinedCode(args, folders, root));
    for (const definer of TABLE[program] ?? [])
      found.push(...definedFiles(program, definer, args, whereItWorks(program, args, folders), root));
    words = wrapped(program, args) ?? [];
  }
  return found;
}

function definedFiles(
  program: string,
  definer: Definer,
  args: string[],
  folders: readonly string[],
  root: string,
): DefinedCode[] {
  if (!(definer.when ?? any)(args)) return [];
  const first = firstWord(args);
  const label = first && definer.when ? `${program} ${first}` : program;
  const why = `${label} runs ${definer.what} {} defines`;
  const found: DefinedCode[] = [];
  const searched = definer.up ? upTo(folders, root) : folders.filter((folder) => isInsideOrAt(root, folder));
  for (const folder of searched)
    for (const name of definer.files ?? []) {
      const file = path.join(folder, name);
      const text = readSmallFile(file);
      if (text !== undefined && isInsideOrAt(root, file) && (definer.holds?.(text, args) ?? true))
        found.push({ file, why });
    }
  if (definer.tests)
    for (const folder of folders.filter((each) => isInsideOrAt(root, each))) {
      const test = firstFileBelow(folder, definer.tests);
      if (test) found.push({ file: test, why });
    }
  return found;
}

/** The folder a `make -C dir` or `npm --prefix dir` works in, from each folder the command runs in. */
function whereItWorks(program: string, args: string[], folders: readonly string[]): readonly string[] {
  const options = FOLDER_OPTIONS[program];
  if (!options) return folders;
  for (let at = 0; at < args.length; at++) {
    const [option, inline] = (args[at] ?? "").split(/=(.*)/s);
    if (option && options.includes(option)) {
      const value = inline ?? args[at + 1] ?? ".";
      return folders.map((folder) => path.resolve(folder, value));
    }
  }
  return folders;
}

/** The command another runs (`env X=1 make`, `npx eslint`, `bundle exec rake`, `python -m pytest`). */
function wrapped(program: string, args: string[]): string[] | undefined {
  if (program === "env")
    return afterOptions(
      args.filter((word) => !/^[A-Za-z_]\w*=/.test(word)),
      ["-u", "-C", "-S"],
    );
  if (["command", "exec", "nohup", "time", "builtin"].includes(program)) return afterOptions(args, []);
  if (program === "nice") return afterOptions(args, ["-n"]);
  if (program === "timeout") return afterOptions(args, ["-s", "-k", "--signal", "--kill-after"]).slice(1);
  if (program === "npx" || program === "bunx" || program === "pnpx")
    return afterOptions(args, [...NPX_OPTIONS_WITH_VALUE]);
  if (program === "python") {
    const at = args.indexOf("-m");
    return at >= 0 ? args.slice(at + 1) : undefined;
  }
  const runner: Record<string, string[]> = {
    npm: ["exec", "x"],
    pnpm: ["exec", "dlx"],
    yarn: ["exec", "dlx", "run"],
    bun: ["x", "run"],
    bundle: ["exec"],
    uv: ["run"],
    poetry: ["run"],
    pdm: ["run"],
    hatch: ["run"],
  };
  if (runner[program]?.includes(args[0] ?? ""))
    return afterOptions(args.slice(1), ["-p", "--package", "--with"]);
  return undefined;
}

/** The words from the first one that is not an option (or from after `--`); `valued` options take the next word. */
function afterOptions(args: string[], valued: readonly string[]): string[] {
  for (let at = 0; at < args.length; at++) {
    const word = args[at] ?? "";
    if (word === "--") return args.slice(at + 1);
    if (!word.startsWith("-")) return args.slice(at);
    if (valued.includes(word)) at++;
  }
  return [];
}

/** The first word that is not an option: a subcommand (`npm test`, `go generate`). */
function firstWord(args: string[]): string | undefined {
  return args.find((word) => !word.startsWith("-")) ?? args[0];
}

/** `npm run build` runs `build` with its `prebuild` and `postbuild`; `npm t` is `npm test`. */
function hasNpmScript(text: string, args: string[]): boolean {
  const words = args.filter((word) => !word.startsWith("-"));
  const command = words[0] ?? "";
  // a workspace's package runs by `-w`: any package.json of the tree may hold it
  if (args.some((word) => /^(?:-w|--workspaces?)(?:=|$)/.test(word))) return true;
  const script = /^(?:run|run-script|rum|urn)$/.test(command)
    ? words[1]
    : (({ t: "test", tst: "test" } as Record<string, string>)[command] ?? command);
  if (script === undefined) return false;
  try {
    const scripts = (JSON.parse(text) as { scripts?: Record<string, unknown> }).scripts ?? {};
    const names = [script, `pre${script}`, `post${script}`];
    if (script === "restart") names.push("stop", "start", "prestop", "poststop", "prestart", "poststart");
    // with no `start` script `npm start` runs `node server.js`
    return script === "start" || names.some((name) => Object.hasOwn(scripts, name));
  } catch {
    // a package.json npm cannot read runs nothing, but what it holds is the workspace's to say
    return true;
  }
}

/** A static prettier config runs code where it names plugins or is a shared config's name (a bare string). */
function namesPrettierCode(text: string): boolean {
  const trimmed = text.trim();
  return /plugin/.test(text) || (trimmed !== "" && !/[:=]/.test(trimmed) && !trimmed.startsWith("{"));
}

const MAX_FILE = 1_000_000;

function readSmallFile(file: string): string | undefined {
  try {
    const stats = statSync(file);
    if (!stats.isFile()) return undefined;
    return stats.size > MAX_FILE ? "" : readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

function isInsideOrAt(root: string, abs: string): boolean {
  const rel = path.relative(root, abs);
  return !rel.startsWith("..") && !path.isAbsolute(rel);
}
