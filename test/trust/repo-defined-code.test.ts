import { execFileSync } from "node:child_process";
import { chmodSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { workspaceCodeOf } from "../../src/trust/hook-scripts.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

// Which plain commands run code the workspace's files define, read from real folders: each case
// names the files a workspace holds, a command, and the reasons it is counted by (none: it runs
// nothing of the workspace).

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

const scripts = (names: Record<string, string>) => JSON.stringify({ name: "x", scripts: names });

async function reasons(files: Record<string, string>, command: string): Promise<string[]> {
  ws = await createTempWorkspace(files);
  return shownReasons(command);
}

function shownReasons(command: string): string[] {
  const root = (ws as TempWorkspace).root;
  return workspaceCodeOf(command, root).defined.map((code) =>
    code.why.replace("{}", path.relative(root, code.file)),
  );
}

describe("commands running code the workspace's files define", () => {
  const cases: [string, Record<string, string>, string, string[]][] = [
    [
      "npm run of a script",
      { "package.json": scripts({ build: "x" }) },
      "npm run build",
      ["npm run runs the scripts package.json defines"],
    ],
    ["npm test without a test script", { "package.json": scripts({ build: "x" }) }, "npm test", []],
    [
      "npm test's pretest",
      { "package.json": scripts({ pretest: "x" }) },
      "npm t",
      ["npm t runs the scripts package.json defines"],
    ],
    [
      "npm install",
      { "package.json": "{}" },
      "npm ci",
      ["npm ci runs the install scripts and dependencies package.json defines"],
    ],
    ["npm --version", { "package.json": scripts({ test: "x" }) }, "npm --version", []],
    [
      "pnpm's script by name",
      { "package.json": scripts({ lint: "x" }) },
      "pnpm lint",
      ["pnpm lint runs the scripts package.json defines"],
    ],
    ["yarn alone installs", { "package.json": "{}" }, "yarn", ["yarn runs the scripts package.json defines"]],
    [
      "yarn's yarnPath",
      { ".yarnrc.yml": "yarnPath: .yarn/releases/y.cjs\n" },
      "yarn --version",
      ["yarn --version runs the Yarn release and plugins .yarnrc.yml defines"],
    ],
    [
      "a package.json from a folder above",
      { "package.json": scripts({ test: "x" }), "sub/a.txt": "" },
      "cd sub && npm test",
      ["npm test runs the scripts package.json defines"],
    ],
    ["make -C", { "sub/Makefile": "all:\n" }, "make -C sub", ["make runs the rules sub/Makefile defines"]],
    ["make with no Makefile", { "sub/Makefile": "all:\n" }, "make", []],
    ["make --version", { Makefile: "all:\n" }, "make --version", []],
    [
      "env before make",
      { Makefile: "all:\n" },
      "env CI=1 make test",
      ["make runs the rules Makefile defines"],
    ],
    [
      "just from a folder below",
      { justfile: "x:\n", "sub/a": "" },
      "cd sub && just x",
      ["just runs the recipes justfile defines"],
    ],
    [
      "cargo test",
      { "Cargo.toml": "[package]\n" },
      "cargo test",
      ["cargo test runs the build scripts, macros and tests Cargo.toml defines"],
    ],
    ["cargo fmt", { "Cargo.toml": "[package]\n" }, "cargo fmt", []],
    [
      "cargo's config",
      { ".cargo/config.toml": "[alias]\n" },
      "cargo fmt",
      ["cargo runs the aliases and wrappers .cargo/config.toml defines"],
    ],
    [
      "go generate",
      { "go.mod": "module x\n" },
      "go generate ./...",
      ["go generate runs the //go:generate commands go.mod defines"],
    ],
    [
      "go run of a published tool",
      { "go.mod": "module x\n" },
      "go run golang.org/x/tools/cmd/stringer@latest",
      [],
    ],
    ["go vet", { "go.mod": "module x\n" }, "go vet ./...", []],
    [
      "pytest finds tests",
      { "tests/unit/test_a.py": "" },
      "pytest -q",
      ["pytest runs the tests tests/unit/test_a.py defines"],
    ],
    [
      "python -m pytest and conftest.py",
      { "conftest.py": "" },
      "python3 -m pytest",
      ["pytest runs the tests and plugins conftest.py defines", "pytest runs the tests conftest.py defines"],
    ],
    [
      "pytest in pyproject.toml",
      { "pyproject.toml": "[tool.pytest.ini_options]\n" },
      "pytest",
      ["pytest runs the tests and plugins pyproject.toml defines"],
    ],
    ["pytest where there is no Python", { "README.md": "" }, "pytest", []],
    [
      "tox",
      { "tox.ini": "[tox]\n" },
      "tox -e py",
      ["tox runs the environments and commands tox.ini defines"],
    ],
    [
      "bundle exec rake",
      { Gemfile: "", Rakefile: "" },
      "bundle exec rake",
      ["bundle runs the Ruby code Gemfile defines", "rake runs the tasks Rakefile defines"],
    ],
    [
      "uv run pytest",
      { "pyproject.toml": "[project]\n", "test_a.py": "" },
      "uv run pytest",
      ["uv run runs the project pyproject.toml defines", "pytest runs the tests test_a.py defines"],
    ],
    [
      "gradle",
      { "build.gradle.kts": "" },
      "gradle build",
      ["gradle runs the build build.gradle.kts defines"],
    ],
    ["mvn", { "pom.xml": "" }, "mvn -q verify", ["mvn runs the build and its plugins pom.xml defines"]],
    [
      "composer",
      { "composer.json": "{}" },
      "composer test",
      ["composer test runs the scripts and plugins composer.json defines"],
    ],
    ["deno task", { "deno.json": "{}" }, "deno task build", ["deno task runs the tasks deno.json defines"]],
    [
      "pre-commit",
      { ".pre-commit-config.yaml": "repos: []\n" },
      "pre-commit run --all-files",
      ["pre-commit run runs the hooks .pre-commit-config.yaml defines"],
    ],
    [
      "npx eslint and a JavaScript config",
      { "eslint.config.js": "" },
      "npx eslint --fix .",
      ["eslint runs the configuration and plugins eslint.config.js defines"],
    ],
    [
      "prettier and a JSON config naming nothing to load",
      { ".prettierrc.json": '{ "semi": false }' },
      "prettier --write a.ts",
      [],
    ],
    [
      "prettier and a JSON config naming plugins",
      { ".prettierrc.json": '{ "plugins": ["./p.js"] }' },
      "prettier --write a.ts",
      ["prettier runs the configuration and plugins .prettierrc.json defines"],
    ],
    [
      "prettier and a shared config's name",
      { ".prettierrc": '"@acme/prettier"\n' },
      "prettier -c .",
      ["prettier runs the configuration and plugins .prettierrc defines"],
    ],
    [
      "vitest finds tests",
      { "src/a.test.ts": "" },
      "vitest run",
      ["vitest runs the tests src/a.test.ts defines"],
    ],
    ["tests in node_modules only", { "node_modules/x/a.test.js": "" }, "vitest run", []],
    [
      "node --test",
      { "test/a.test.mjs": "" },
      "node --test",
      ["node --test runs the tests test/a.test.mjs defines"],
    ],
    ["tsc reads JSON only", { "tsconfig.json": "{}" }, "tsc --noEmit", []],
    [
      "sh -c of npm test",
      { "package.json": scripts({ test: "x" }) },
      "sh -c 'npm test'",
      ["npm test runs the scripts package.json defines"],
    ],
    [
      "npm test with words known only when it runs",
      { "package.json": scripts({ test: "x" }) },
      'npm test -- "$FILE"',
      ["npm test runs the scripts package.json defines"],
    ],
  ];
  for (const [name, files, command, expected] of cases)
    it(`${name}: ${command}`, async () => {
      expect(await reasons(files, command)).toEqual(expected);
    });
});

describe("git and the repository's own git files", () => {
  async function repository(config: string, hooks: Record<string, string> = {}): Promise<void> {
    ws = await createTempWorkspace({ "inc.cfg": '[diff]\n\texternal = "sh ./x.sh"\n' });
    execFileSync("git", ["init", "-q"], { cwd: ws.root, env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } });
    const gitConfig = path.join(ws.root, ".git/config");
    const { appendFileSync } = await import("node:fs");
    appendFileSync(gitConfig, config);
    for (const [name, body] of Object.entries(hooks)) {
      const hook = await ws.write(`.git/hooks/${name}`, body);
      chmodSync(hook, 0o755);
    }
  }

  const cases: [string, string, Record<string, string>, string, string[]][] = [
    ["a fresh repository", "", {}, "git status", []],
    [
      "core.fsmonitor naming a command",
      "[core]\n\tfsmonitor = ./m.sh\n",
      {},
      "git diff",
      ["git runs the core.fsmonitor command .git/config defines"],
    ],
    ["core.fsmonitor = true (git's own daemon)", "[core]\n\tfsmonitor = true\n", {}, "git status", []],
    [
      "a filter's clean command",
      '[filter "x"]\n\tclean = ./c.sh # a comment\n',
      {},
      "git status",
      ["git runs the filter.x.clean command .git/config defines"],
    ],
    [
      "an alias the command calls",
      '[alias]\n\tst = "!sh ./x.sh"\n',
      {},
      "git st",
      ["git runs the alias.st command .git/config defines"],
    ],
    ["an alias the command does not call", '[alias]\n\tst = "!sh ./x.sh"\n', {}, "git status", []],
    [
      "an include in the workspace",
      "[include]\n\tpath = ../inc.cfg\n",
      {},
      "git -C . log",
      ["git runs the diff.external command inc.cfg defines"],
    ],
    [
      "post-index-change, run by git status",
      "",
      { "post-index-change": "#!/bin/sh\n" },
      "git status",
      ["git runs the hook .git/hooks/post-index-change"],
    ],
    ["pre-commit, not run by git status", "", { "pre-commit": "#!/bin/sh\n" }, "git status", []],
    [
      "pre-commit, run by git commit",
      "",
      { "pre-commit": "#!/bin/sh\n" },
      "git commit -m x",
      ["git runs the hook .git/hooks/pre-commit"],
    ],
    ["git --version", "[core]\n\tfsmonitor = ./m.sh\n", {}, "git --version", []],
  ];
  for (const [name, config, hooks, command, expected] of cases)
    it(`${name}: ${command}`, async () => {
      await repository(config, hooks);
      expect(shownReasons(command)).toEqual(expected);
    });

  it("core.hooksPath: the hooks of the folder it names", async () => {
    await repository("[core]\n\thooksPath = .githooks\n");
    const hook = await (ws as TempWorkspace).write(".githooks/post-checkout", "#!/bin/sh\n");
    chmodSync(hook, 0o755);
    expect(shownReasons("git checkout -b x")).toEqual(["git runs the hook .githooks/post-checkout"]);
    expect(shownReasons("git status")).toEqual([]);
  });

  it("git -C of the repository by its absolute path, from a folder outside it", async () => {
    await repository("[core]\n\tfsmonitor = ./m.sh\n");
    const root = (ws as TempWorkspace).root;
    expect(shownReasons(`cd /tmp && git -C ${root} status`)).toEqual([
      "git runs the core.fsmonitor command .git/config defines",
    ]);
  });
});

describe("npx of the project's own bin", () => {
  it("runs the file the workspace's package.json names for it (npx runs it before any other)", async () => {
    ws = await createTempWorkspace({
      "package.json": JSON.stringify({ name: "x", bin: { mytool: "./cli.js" } }),
      "cli.js": "",
    });
    expect(workspaceCodeOf("npx mytool --fix", ws.root).scripts).toEqual([path.join(ws.root, "cli.js")]);
    expect(workspaceCodeOf("npx othertool", ws.root).scripts).toEqual([]);
  });
});
