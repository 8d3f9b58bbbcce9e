import { execFile, execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { GANTRY_BIN, REPO_ROOT } from "../support/cli.js";

const run = promisify(execFile);
const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "gantry-install-")));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// npm, npx and the bin's `#!/usr/bin/env node` all run under the Node these tests run under (22)
const env = { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}` };
const npm = (args: string[], cwd: string) =>
  run("npm", args, { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: 280_000 });

/** A copy of the project's sources (not its dist/), built and packed there, so the suite's dist/ is untouched. */
function copyProject(): string {
  const copy = path.join(scratch, "project");
  mkdirSync(copy);
  for (const entry of [
    "src",
    "package.json",
    "package-lock.json",
    "tsconfig.json",
    "tsconfig.build.json",
    "rolldown.config.js",
    "README.md",
    "LICENSE",
  ])
    cpSync(path.join(REPO_ROOT, entry), path.join(copy, entry), { recursive: true });
  symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(copy, "node_modules"));
  return copy;
}

const isExecutable = (file: string) => (statSync(file).mode & 0o111) === 0o111;

it("packs only what runs, keeps the bin executable through rebuilds, and installs into a fresh folder", async () => {
  const project = copyProject();
  // a stale source map from an earlier build must not survive into the package
  mkdirSync(path.join(project, "dist"), { recursive: true });
  writeFileSync(path.join(project, "dist", "old.js.map"), "{}");

  const packed = await npm(["pack", "--json", "--pack-destination", scratch], project); // runs prepare: a build
  const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string; mode: number }[] }[];
  if (!info) throw new Error(`npm pack printed no package: ${packed.stdout}`);
  const files = info.files.map((file) => file.path);
  expect(files).toContain("LICENSE");
  expect(files).toContain("dist/bundle/gantry.cjs");
  expect(files).toContain("dist/index.js");
  expect(files.filter((file) => file.endsWith(".map"))).toEqual([]);
  expect(files.filter((file) => /^(src|test|bench)\//.test(file))).toEqual([]);
  const bin = info.files.find((file) => file.path === "dist/bundle/gantry.cjs");
  expect((bin?.mode ?? 0) & 0o111).toBe(0o111);

  // a second build in place (what `npm test` and `npm run build` do) keeps the executable bit
  await npm(["run", "build"], project);
  expect(isExecutable(path.join(project, "dist", "bundle", "gantry.cjs"))).toBe(true);
  const inProject = await run("npx", ["--no-install", "gantry", "--version"], { cwd: project, env });
  expect(inProject.stdout.trim()).toBe("0.1.0");

  const fresh = path.join(scratch, "fresh");
  mkdirSync(fresh);
  writeFileSync(path.join(fresh, "package.json"), JSON.stringify({ name: "fresh", private: true }));
  await npm(
    ["install", path.join(scratch, info.filename), "--prefer-offline", "--no-audit", "--no-fund"],
    fresh,
  );
  const installed = await run("npx", ["--no-install", "gantry", "--version"], { cwd: fresh, env });
  expect(installed.stdout.trim()).toBe("0.1.0");
  expect(existsSync(path.join(fresh, "node_modules", "gantry", "dist", "index.d.ts"))).toBe(true);
  // a call through the installed bin (a link in node_modules/.bin): the CommonJS chunks load, twice so
  // the second start uses the code caches the first one wrote
  writeFileSync(path.join(fresh, "a.txt"), "installed\n");
  for (let i = 0; i < 2; i++) {
    const call = await run(
      "npx",
      ["--no-install", "gantry", "tool", "view_file", '{"AbsolutePath":"a.txt"}'],
      {
        cwd: fresh,
        env: { ...env, HOME: path.join(scratch, "home") },
      },
    );
    expect(JSON.parse(call.stdout).text).toContain("installed");
    expect(call.stderr).toBe("");
  }
}, 300_000);

/** A Node.js older than 22 on this machine (the system's), if there is one. */
function oldNode(): string | undefined {
  for (const candidate of ["/usr/bin/node", "/usr/local/bin/node"]) {
    try {
      const version = execFileSync(candidate, ["--version"], { encoding: "utf8" }).trim();
      if (Number(/^v(\d+)/.exec(version)?.[1]) < 22) return candidate;
    } catch {
      // not there
    }
  }
  return undefined;
}

const old = oldNode();
it.skipIf(old === undefined)(
  "on Node older than 22 every command, --help included, says so and exits 1",
  async () => {
    for (const args of [["--help"], ["--version"], ["tool", "view_file", "{}"], []]) {
      const outcome = await run(old as string, [GANTRY_BIN, ...args]).then(
        () => ({ code: 0, stderr: "" }),
        (error: { code: number; stderr: string }) => error,
      );
      expect(outcome.code).toBe(1);
      expect(outcome.stderr).toMatch(/^gantry: needs Node\.js 22\.3 or newer; this is Node\.js v?\d+/);
      expect(outcome.stderr).toContain("Install a current Node.js");
    }
  },
);
