import { mkdir, symlink } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ToolResult } from "../../../src/tools/contract.js";
import { BINARY, type Engine, resultLines, type SearchFixture, searchFixture } from "./support.js";

let fixture: SearchFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe.each<Engine>(["ripgrep", "node"])("grep_search (%s engine)", (engine) => {
  async function grep(
    files: Record<string, string | Uint8Array>,
    args: Record<string, unknown>,
    limits?: Record<string, number>,
  ) {
    fixture = await searchFixture(files, { engine, limits });
    const result = await fixture.run("grep_search", { SearchPath: ".", ...args });
    // path globs in Includes are judged by the Node walk whatever the engine (ripgrep's would override .gitignore)
    const pathIncludes = ((args.Includes as string[] | undefined) ?? []).some((glob) => glob.includes("/"));
    if (!result.error) expect(result.metadata.engine).toBe(pathIncludes ? "node" : engine);
    return result;
  }

  it("finds text as path:line: text and leaves out secret and ignored paths (seed 001)", async () => {
    const result = await grep(
      {
        "src/App.java": "class App {\n  // TODO: start\n}\n",
        "README.md": "TODO list\n",
        ".env": "TODO=secret\n",
        ".env.example": "TODO=example\n",
        "certs/server.pem": "TODO pem\n",
        ".git/config": "TODO git\n",
        "build/Gen.java": "TODO generated\n",
        "node_modules/dep/index.js": "TODO dep\n",
        ".gradle/x.txt": "TODO gradle\n",
        ".gitignore": "ignored.txt\n",
        "ignored.txt": "TODO ignored\n",
      },
      { Query: "TODO" },
    );
    expect(result.error).toBe(false);
    expect(resultLines(result)).toEqual([
      ".env.example:1: TODO=example",
      "README.md:1: TODO list",
      "src/App.java:2:   // TODO: start",
    ]);
    expect(result.metadata).toMatchObject({ matches: 3, matchedFiles: 3, truncated: false });
  });

  it("leaves out the temporary file of a write in progress or cut short by a crash", async () => {
    const result = await grep(
      { "a.txt": "hit\n", "src/.gantry-tmp-4242-0a1b2c3d": "hit half-written\n" },
      { Query: "hit" },
    );
    expect(resultLines(result)).toEqual(["a.txt:1: hit"]);
  });

  it("follows the configured secret patterns and exceptions", async () => {
    fixture = await searchFixture(
      { "a.txt": "hit\n", "db.secret": "hit\n", "conf/server.key": "hit\n", id_rsa: "hit\n" },
      { engine, secrets: { patterns: ["*.secret"], allow: ["*.key"] } },
    );
    const result = await fixture.run("grep_search", { SearchPath: ".", Query: "hit" });
    expect(resultLines(result)).toEqual(["a.txt:1: hit", "conf/server.key:1: hit"]);
  });

  it("skips large and binary files and records them in metadata (seed 001)", async () => {
    const result = await grep(
      {
        "small.txt": "needle here\n",
        "big.txt": `${"x".repeat(300)}\nneedle in a big file\n`,
        "image.png": BINARY,
        "data.bin": Uint8Array.from([110, 101, 101, 100, 108, 101, 0, 1, 2]),
      },
      { Query: "needle" },
      { maxSearchFileBytes: 200 },
    );
    expect(resultLines(result)).toEqual(["small.txt:1: needle here"]);
    expect(result.metadata).toMatchObject({ matches: 1, skippedLargeFiles: 1, skippedBinaryFiles: 2 });
    expect(result.text).toContain("[skipped 1 large and 2 binary file(s)]");
  });

  it("keeps counting skipped files after the match cap is reached (seed 001)", async () => {
    const files: Record<string, string | Uint8Array> = {};
    for (let i = 0; i < 5; i++) files[`a${i}.txt`] = "hit one\nhit two\n";
    // sorted after every matching file, so only a walk that goes on past the cap sees them
    files["z/late.bin"] = BINARY;
    files["z/late2.bin"] = BINARY;
    files["z/late-large.txt"] = `${"hit ".repeat(100)}\n`;
    const result = await grep(files, { Query: "hit" }, { maxMatches: 3, maxSearchFileBytes: 100 });
    expect(resultLines(result)).toEqual(["a0.txt:1: hit one", "a0.txt:2: hit two", "a1.txt:1: hit one"]);
    expect(result.metadata).toMatchObject({
      matches: 10,
      shown: 3,
      truncated: true,
      skippedBinaryFiles: 2,
      skippedLargeFiles: 1,
    });
    expect(result.text).toContain("[7 more matching lines not shown (limit 3)");
    expect(nextArgs(result)).toEqual({ SearchPath: ".", Query: "hit", Offset: 3 });
  });

  it("keeps its text within maxOutputChars, whole lines only, and ends with the next call", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`f${String(i).padStart(2, "0")}.txt`] = `hit ${"x".repeat(250)}\n`;
    const result = await grep(files, { Query: "hit" }, { maxOutputChars: 2000 });
    expect(result.text.length).toBeLessThanOrEqual(2000);
    expect(result.text).not.toContain("[output truncated");
    expect(result.metadata.omittedChars).toBeUndefined();
    const lines = resultLines(result);
    for (const line of lines) expect(line).toMatch(/^f\d\d\.txt:1: hit x{250}$/);
    expect(result.metadata).toMatchObject({ matches: 30, shown: lines.length, truncated: true });
    const closing = result.text.split("\n").at(-1) as string;
    expect(closing).toContain(
      `[${30 - lines.length} more matching lines not shown (output limit 2000 characters)`,
    );
    expect(nextArgs(result)).toEqual({ SearchPath: ".", Query: "hit", Offset: lines.length });
  });

  it("pages through every match with the printed next call, none missed or repeated", async () => {
    const files: Record<string, string | Uint8Array> = {
      "a.txt": "hit 1\nmiss\nhit 2\nhit 3\nhit 4\nhit 5\n",
      "b.txt": "miss\n",
      "c/d.txt": "hit 6\n",
      "c/e.txt": `hit 7 ${"y".repeat(280)}\nhit 8\nhit 9\n`,
      "z.bin": BINARY,
      "zz.txt": "hit 10\nhit 11\n",
    };
    const all = [
      "a.txt:1: hit 1",
      "a.txt:3: hit 2",
      "a.txt:4: hit 3",
      "a.txt:5: hit 4",
      "a.txt:6: hit 5",
      "c/d.txt:1: hit 6",
      `c/e.txt:1: hit 7 ${"y".repeat(280)}`,
      "c/e.txt:2: hit 8",
      "c/e.txt:3: hit 9",
      "zz.txt:1: hit 10",
      "zz.txt:2: hit 11",
    ];
    // the match cap (4) and the output limit (480: the 300-character line does not fit after two) both end parts
    const seen = await walkParts(files, { Query: "hit" }, { maxMatches: 4, maxOutputChars: 480 });
    expect(seen.lines).toEqual(all);
    expect(seen.endings).toEqual([
      expect.stringContaining("(limit 4)"),
      expect.stringContaining("(output limit 480 characters); this part: 5-6 of 11"),
      expect.stringContaining("(output limit 480 characters); this part: 7-7 of 11"),
      "[matching lines 8-11 of 11 shown; no more]",
    ]);
    // a regex, and case folding: ripgrep reads the lines of the part itself
    for (const args of [
      { Query: "h.t \\d", IsRegex: true },
      { Query: "HIT", CaseInsensitive: true },
    ]) {
      expect((await walkParts(files, args, { maxMatches: 3 })).lines).toEqual(all);
    }
    const names = await walkParts(files, { Query: "hit", MatchPerLine: false }, { maxMatches: 2 });
    expect(names.lines).toEqual(["a.txt", "c/d.txt", "c/e.txt", "zz.txt"]);
    expect(names.endings).toHaveLength(2);
  });

  it("says plainly when Offset is past the last match", async () => {
    const result = await grep({ "a.txt": "hit\nhit\n", "z.bin": BINARY }, { Query: "hit", Offset: 2 });
    expect(result.error).toBe(false);
    expect(result.text).toContain(
      'No more matches: Offset 2 is past the last of the 2 matching lines for "hit".',
    );
    expect(resultLines(result)).toEqual([
      'No more matches: Offset 2 is past the last of the 2 matching lines for "hit".',
    ]);
    expect(result.metadata).toMatchObject({ matches: 2, shown: 0, truncated: false, skippedBinaryFiles: 1 });
  });

  it("refuses a negative or fractional Offset, naming the field", async () => {
    for (const Offset of [-1, 1.5]) {
      const result = await grep({ "a.txt": "hit\n" }, { Query: "hit", Offset });
      expect(result.errorCode).toBe("invalid_arguments");
      expect(result.text).toContain("Offset");
    }
  });

  /** Follows each part's "Next call:" arguments until a part has none; every part stays complete lines. */
  async function walkParts(
    files: Record<string, string | Uint8Array>,
    args: Record<string, unknown>,
    limits: Record<string, number>,
  ) {
    fixture = await searchFixture(files, { engine, limits });
    const lines: string[] = [];
    let call: Record<string, unknown> | undefined = { SearchPath: ".", ...args };
    const endings: string[] = [];
    while (call) {
      const result = await fixture.run("grep_search", call);
      expect(result.error).toBe(false);
      expect(result.metadata.engine).toBe(engine);
      if (limits.maxOutputChars) expect(result.text.length).toBeLessThanOrEqual(limits.maxOutputChars);
      const shown = resultLines(result);
      expect(result.metadata.shown).toBe(shown.length);
      expect(shown.length).toBeGreaterThan(0);
      lines.push(...shown);
      endings.push(result.text.split("\n").at(-1) as string);
      call = nextArgs(result);
      expect(endings.length).toBeLessThan(20);
    }
    return { lines, endings };
  }

  it("is literal by default: regex characters match themselves", async () => {
    const result = await grep({ "a.txt": "a.b\naxb\n(x)\n" }, { Query: "a.b" });
    expect(resultLines(result)).toEqual(["a.txt:1: a.b"]);
    const parens = await grep({ "a.txt": "a.b\naxb\n(x)\n" }, { Query: "(x)" });
    expect(resultLines(parens)).toEqual(["a.txt:3: (x)"]);
  });

  it("treats Query as a regex with IsRegex", async () => {
    const result = await grep({ "a.txt": "foo1\nfoo\nbar22\n" }, { Query: "^[a-z]+\\d+$", IsRegex: true });
    expect(resultLines(result)).toEqual(["a.txt:1: foo1", "a.txt:3: bar22"]);
  });

  it("ignores case with CaseInsensitive, for literals and regexes", async () => {
    const files = { "a.txt": "Hello\nHELLO\nhello\nhelo\n" };
    expect(resultLines(await grep(files, { Query: "hello" }))).toEqual(["a.txt:3: hello"]);
    expect(resultLines(await grep(files, { Query: "hello", CaseInsensitive: true }))).toEqual([
      "a.txt:1: Hello",
      "a.txt:2: HELLO",
      "a.txt:3: hello",
    ]);
    expect(
      resultLines(await grep(files, { Query: "h.l+o", IsRegex: true, CaseInsensitive: true })),
    ).toHaveLength(4);
  });

  it("searches only files matching Includes (name and path globs)", async () => {
    const files = { "src/a.ts": "x\n", "src/b.js": "x\n", "lib/c.ts": "x\n", "src/deep/d.ts": "x\n" };
    expect(resultLines(await grep(files, { Query: "x", Includes: ["*.ts"] }))).toEqual([
      "lib/c.ts:1: x",
      "src/a.ts:1: x",
      "src/deep/d.ts:1: x",
    ]);
    expect(resultLines(await grep(files, { Query: "x", Includes: ["src/**/*.ts"] }))).toEqual([
      "src/a.ts:1: x",
      "src/deep/d.ts:1: x",
    ]);
  });

  it("lists only file names with MatchPerLine false", async () => {
    const result = await grep(
      { "a.txt": "hit\nhit\n", "b.txt": "miss\n", "c.txt": "hit\n" },
      { Query: "hit", MatchPerLine: false },
    );
    expect(result.text.split("\n")).toEqual(["a.txt", "c.txt"]);
    expect(result.metadata).toMatchObject({ matches: 2, matchedFiles: 2 });
  });

  it("searches one file, or a sub-folder with the .gitignore rules above it", async () => {
    fixture = await searchFixture(
      {
        ".gitignore": "*.log\n/pkg/gen/\n",
        "pkg/.gitignore": "/local.txt\nskip.txt\n",
        "pkg/a.txt": "hit\n",
        "pkg/x.log": "hit\n",
        "pkg/gen/g.txt": "hit\n",
        "pkg/src/local.txt": "hit\n",
        "pkg/src/skip.txt": "hit\n",
        "pkg/src/ok.txt": "hit\n",
      },
      { engine },
    );
    const sub = await fixture.run("grep_search", { SearchPath: "pkg/src", Query: "hit" });
    expect(resultLines(sub)).toEqual(["pkg/src/local.txt:1: hit", "pkg/src/ok.txt:1: hit"]);
    const pkg = await fixture.run("grep_search", { SearchPath: "pkg", Query: "hit" });
    expect(resultLines(pkg)).toEqual([
      "pkg/a.txt:1: hit",
      "pkg/src/local.txt:1: hit",
      "pkg/src/ok.txt:1: hit",
    ]);
    const one = await fixture.run("grep_search", { SearchPath: "pkg/a.txt", Query: "hit" });
    expect(resultLines(one)).toEqual(["pkg/a.txt:1: hit"]);
  });

  it("refuses a search rooted at an ignored folder or a secret file", async () => {
    fixture = await searchFixture(
      { "node_modules/x/i.js": "hit\n", "build/o.js": "hit\n", ".git/HEAD": "hit\n", ".env": "hit\n" },
      { engine },
    );
    for (const target of ["node_modules", "build", "node_modules/x/i.js"]) {
      const result = await fixture.run("grep_search", { SearchPath: target, Query: "hit" });
      expect(result.errorCode, target).toBe("ignored_path");
    }
    for (const target of [".git", ".env"]) {
      const result = await fixture.run("grep_search", { SearchPath: target, Query: "hit" });
      expect(result.errorCode, target).toBe("secret_path");
    }
  });

  it("refuses a search path outside the workspace or through a symlink out", async () => {
    fixture = await searchFixture({ "a.txt": "hit\n" }, { engine });
    const outside = path.join(fixture.ws.parent, "outside");
    await mkdir(outside);
    await symlink(outside, path.join(fixture.ws.root, "link-out"));
    for (const target of ["..", outside, "link-out", "link-out/x"]) {
      const result = await fixture.run("grep_search", { SearchPath: target, Query: "hit" });
      expect(result.error, target).toBe(true);
      expect(["outside_workspace", "not_found"], target).toContain(result.errorCode);
    }
  });

  it("gives a clear error for an invalid regex", async () => {
    const result = await grep({ "a.txt": "x\n" }, { Query: "foo(bar", IsRegex: true });
    expect(result.error).toBe(true);
    expect(result.errorCode).toBe("invalid_arguments");
    expect(result.text).toMatch(/not a valid regular expression/);
  });

  it("shortens a very long matching line around the match", async () => {
    const line = `${"a".repeat(5000)}NEEDLE${"b".repeat(5000)}`;
    const result = await grep({ "min.js": `${line}\n` }, { Query: "NEEDLE" });
    const [shown] = resultLines(result);
    expect(shown).toMatch(/^min\.js:1: …a+NEEDLEb+…$/);
    expect((shown as string).length).toBeLessThan(400);
  });

  it("shows a long line's window the same for a literal query as for the same query as a regex", async () => {
    const files = {
      "a/min.js": `${"x=1;".repeat(20_000)}NEEDLE${"y=2;".repeat(30_000)}\r\n`,
      "b/end.js": `${"z".repeat(50_000)}NEEDLE\n`,
      "c/start.js": `NEEDLE${"w".repeat(9_000)}\n`,
      "d/uni.js": `${"é".repeat(3_000)}NEEDLE${"ü".repeat(3_000)}\n`,
      "e/twice.js": `${"q".repeat(6_000)}NEEDLE${"r".repeat(200)}NEEDLE${"s".repeat(6_000)}\n`,
    };
    const literal = resultLines(await grep(files, { Query: "NEEDLE" }));
    await fixture?.close();
    const regex = resultLines(await grep(files, { Query: "NEE[D]LE", IsRegex: true }));
    expect(literal).toEqual(regex);
    expect(literal).toHaveLength(5);
    for (const row of literal) expect(row.length).toBeLessThan(330);
    expect(literal[1]).toMatch(/^b\/end\.js:1: …z+NEEDLE$/);
    expect(literal[2]).toMatch(/^c\/start\.js:1: NEEDLEw+…$/);
  });

  it("numbers lines correctly past the first read chunk and across CRLF files", async () => {
    const filler = "filler line\r\n".repeat(20_000);
    const result = await grep({ "long.txt": `first hit\r\n${filler}second hit\r\n` }, { Query: "hit" });
    expect(resultLines(result)).toEqual(["long.txt:1: first hit", "long.txt:20002: second hit"]);
  });

  it("says plainly when nothing matches", async () => {
    const result = await grep({ "a.txt": "x\n" }, { Query: "zzz" });
    expect(result.error).toBe(false);
    expect(result.text).toContain('No matches for "zzz"');
    expect(result.metadata.matches).toBe(0);
  });
});

/** The arguments of the closing line's "Next call:", or undefined when the result is complete. */
function nextArgs(result: ToolResult): Record<string, unknown> | undefined {
  const closing = result.text.split("\n").at(-1) ?? "";
  const next = / Next call: (\{.*\})\]$/.exec(closing);
  expect(result.metadata.truncated).toBe(next !== null);
  return next ? JSON.parse(next[1] as string) : undefined;
}

describe("grep_search", () => {
  it("answers through its alias grep and refuses a multi-line query", async () => {
    fixture = await searchFixture({ "a.txt": "hit\n" });
    expect((await fixture.run("grep", { SearchPath: ".", Query: "hit" })).error).toBe(false);
    const multi = await fixture.run("grep", { SearchPath: ".", Query: "a\nb" });
    expect(multi.errorCode).toBe("invalid_arguments");
  });
});
