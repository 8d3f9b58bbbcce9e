import { mkdir, symlink } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resultLines, type SearchFixture, searchFixture } from "./support.js";

let fixture: SearchFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function find(
  files: Record<string, string>,
  args: Record<string, unknown>,
  limits?: Record<string, number>,
) {
  fixture = await searchFixture(files, { limits });
  return fixture.run("find_by_name", { SearchDirectory: ".", ...args });
}

describe("find_by_name", () => {
  it("finds files by glob and leaves out secret and ignored paths (seed 001)", async () => {
    const result = await find(
      {
        "src/App.java": "",
        "src/main/Util.java": "",
        ".env": "",
        ".env.local": "",
        ".env.example": "",
        "keys/server.key": "",
        ".git/config": "",
        "build/Gen.java": "",
        "node_modules/dep/Dep.java": "",
        ".gradle/Cache.java": "",
        "target/T.java": "",
      },
      { Pattern: "*" },
    );
    expect(result.error).toBe(false);
    const lines = resultLines(result);
    expect(lines).toEqual([
      ".env.example",
      "keys/",
      "src/",
      "src/App.java",
      "src/main/",
      "src/main/Util.java",
    ]);
    expect(result.metadata.matches).toBe(6);
  });

  it("matches a pattern without / against names anywhere", async () => {
    const result = await find(
      { "a.ts": "", "src/b.ts": "", "src/deep/c.ts": "", "src/d.js": "" },
      { Pattern: "*.ts" },
    );
    expect(resultLines(result)).toEqual(["a.ts", "src/b.ts", "src/deep/c.ts"]);
  });

  it("matches a pattern with / against the workspace-relative path, **/ also meaning zero folders", async () => {
    const result = await find(
      { "src/App.java": "", "src/main/Util.java": "", "lib/Other.java": "", "App.java": "" },
      { Pattern: "src/**/*.java" },
    );
    expect(resultLines(result)).toEqual(["src/App.java", "src/main/Util.java"]);
  });

  it("matches a path pattern relative to the search folder too", async () => {
    fixture = await searchFixture({ "src/main/App.java": "", "src/test/T.java": "" });
    const result = await fixture.run("find_by_name", { SearchDirectory: "src", Pattern: "main/*.java" });
    expect(resultLines(result)).toEqual(["src/main/App.java"]);
  });

  it("filters by Type", async () => {
    const files = { "src/a.ts": "", "src/lib/b.ts": "", "docs/readme.md": "" };
    fixture = await searchFixture(files);
    const dirs = await fixture.run("find_by_name", { SearchDirectory: ".", Pattern: "*", Type: "directory" });
    expect(resultLines(dirs)).toEqual(["docs/", "src/", "src/lib/"]);
    const only = await fixture.run("find_by_name", { SearchDirectory: ".", Pattern: "*", Type: "file" });
    expect(resultLines(only)).toEqual(["docs/readme.md", "src/a.ts", "src/lib/b.ts"]);
  });

  it("drops Excludes, pruning an excluded folder with everything in it", async () => {
    const result = await find(
      { "src/a.ts": "", "src/a.test.ts": "", "src/gen/b.ts": "", "vendor/c.ts": "" },
      { Pattern: "*.ts", Excludes: ["*.test.ts", "src/gen", "vendor"] },
    );
    expect(resultLines(result)).toEqual(["src/a.ts"]);
  });

  it("keeps only the given Extensions, with or without a dot, in any case", async () => {
    const result = await find(
      { "a.ts": "", "b.TSX": "", "c.js": "", "d.tsx.bak": "" },
      { Pattern: "*", Extensions: ["ts", ".tsx"] },
    );
    expect(resultLines(result)).toEqual(["a.ts", "b.TSX"]);
  });

  it("stops at MaxDepth (1 = entries directly inside)", async () => {
    const files = { "a.ts": "", "one/b.ts": "", "one/two/c.ts": "" };
    expect(resultLines(await find(files, { Pattern: "*.ts", MaxDepth: 1 }))).toEqual(["a.ts"]);
    await fixture?.close();
    expect(resultLines(await find(files, { Pattern: "*.ts", MaxDepth: 2 }))).toEqual(["a.ts", "one/b.ts"]);
  });

  it("honours .gitignore at the root and in sub-folders, with ! negation", async () => {
    const result = await find(
      {
        ".gitignore": "*.log\n!keep.log\n/generated/\n",
        "app.log": "",
        "keep.log": "",
        "generated/g.ts": "",
        "pkg/.gitignore": "local.ts\n/only-here.ts\n",
        "pkg/local.ts": "",
        "pkg/only-here.ts": "",
        "pkg/sub/only-here.ts": "",
        "pkg/sub/local.ts": "",
        "pkg/sub/debug.log": "",
        "other/local.ts": "",
        "names/.gitignore": "# names only\n*.tmp\n!keep.tmp\ncache/\n",
        "names/a.tmp": "",
        "names/keep.tmp": "",
        "names/deep/b.tmp": "",
        "names/deep/cache/c.ts": "",
        "names/deep/cache.ts": "",
      },
      { Pattern: "*", Type: "file" },
    );
    expect(resultLines(result)).toEqual([
      ".gitignore",
      "keep.log",
      "names/.gitignore",
      "names/deep/cache.ts",
      "names/keep.tmp",
      "other/local.ts",
      "pkg/.gitignore",
      "pkg/sub/only-here.ts",
    ]);
  });

  it("refuses a search rooted at an ignored folder", async () => {
    fixture = await searchFixture({
      ".gitignore": "generated/\n",
      "generated/a.ts": "",
      "node_modules/x/index.js": "",
      "build/out.js": "",
      ".git/HEAD": "",
      "src/a.ts": "",
    });
    for (const dir of ["node_modules", "node_modules/x", "build", "generated"]) {
      const result = await fixture.run("find_by_name", { SearchDirectory: dir, Pattern: "*" });
      expect(result.error, dir).toBe(true);
      expect(result.errorCode, dir).toBe("ignored_path");
      expect(result.text).toContain(dir.split("/")[0]);
    }
    const git = await fixture.run("find_by_name", { SearchDirectory: ".git", Pattern: "*" });
    expect(git.error).toBe(true);
    expect(git.errorCode).toBe("secret_path");
  });

  it("refuses a search folder outside the workspace or reached through a symlink out", async () => {
    fixture = await searchFixture({ "src/a.ts": "" });
    const outside = path.join(fixture.ws.parent, "outside");
    await mkdir(outside);
    await symlink(outside, path.join(fixture.ws.root, "link-out"));
    for (const dir of ["..", outside, "link-out", "../ws_evil"]) {
      const result = await fixture.run("find_by_name", { SearchDirectory: dir, Pattern: "*" });
      expect(result.error, dir).toBe(true);
      expect(["outside_workspace", "not_found"]).toContain(result.errorCode);
    }
  });

  it("never follows a symlink found while walking", async () => {
    fixture = await searchFixture({ "src/a.ts": "" });
    const outside = path.join(fixture.ws.parent, "outside");
    await mkdir(outside);
    await symlink(outside, path.join(fixture.ws.root, "src", "escape"));
    const result = await fixture.run("find_by_name", { SearchDirectory: ".", Pattern: "*" });
    expect(resultLines(result)).toEqual(["src/", "src/a.ts"]);
  });

  it("caps results at limits.maxMatches, says how many were left out and gives the next call", async () => {
    const files = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`f${i}.txt`, ""]));
    const result = await find(files, { Pattern: "*.txt" }, { maxMatches: 3 });
    expect(resultLines(result)).toEqual(["f0.txt", "f1.txt", "f2.txt"]);
    expect(result.text.split("\n").at(-1)).toBe(
      '[truncated: results 1-3 of 7 shown; 4 left out. Next call: {"SearchDirectory":".","Pattern":"*.txt","Offset":3}]',
    );
    expect(result.metadata).toMatchObject({ matches: 7, offset: 0, shown: 3, truncated: true });
  });

  it("pages through every result with the next calls, within the output limit, missing and repeating nothing", async () => {
    const names = Array.from(
      { length: 30 },
      (_, i) => `${"long-name-".repeat(6)}${String(i).padStart(2, "0")}.txt`,
    );
    const files = Object.fromEntries(names.map((name) => [name, ""]));
    fixture = await searchFixture(files, { limits: { maxOutputChars: 1200 } });
    const seen: string[] = [];
    let args: Record<string, unknown> = { SearchDirectory: ".", Pattern: "*.txt" };
    for (let part = 0; part < 30; part++) {
      const result = await fixture.run("find_by_name", args);
      expect(result.text.length).toBeLessThanOrEqual(1200);
      expect(result.metadata.truncated).toBe(result.text.includes("Next call:"));
      const lines = result.text.split("\n");
      const next = /Next call: (\{.*\})\]$/.exec(lines.at(-1) ?? "");
      seen.push(...(next ? lines.slice(0, -1) : lines));
      if (!next) break;
      args = JSON.parse(next[1] as string);
    }
    expect(seen).toEqual(names);
    const past = await fixture.run("find_by_name", { SearchDirectory: ".", Pattern: "*.txt", Offset: 99 });
    expect(past.text).toBe("[no more results: 30 matched, and Offset 99 skips them all]");
  });

  it("answers through its alias and reports no match plainly", async () => {
    fixture = await searchFixture({ "a.ts": "" });
    const result = await fixture.run("find", { SearchDirectory: ".", Pattern: "*.rs" });
    expect(result.error).toBe(false);
    expect(result.text).toContain("No files or folders match");
    expect(result.metadata.matches).toBe(0);
  });

  it("refuses a file as SearchDirectory and a missing folder", async () => {
    fixture = await searchFixture({ "a.ts": "" });
    const file = await fixture.run("find_by_name", { SearchDirectory: "a.ts", Pattern: "*" });
    expect(file.errorCode).toBe("not_a_directory");
    const missing = await fixture.run("find_by_name", { SearchDirectory: "nope", Pattern: "*" });
    expect(missing.errorCode).toBe("not_found");
  });
});
