import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { compileGlobs, nameGlobMatcher } from "../../../src/tools/search/glob.js";
import { DEFAULT_SECRET_PATTERNS } from "../../../src/workspace/secrets.js";
import { seededRandom } from "../../support/random.js";

describe("name globs", () => {
  it("judge a name as picomatch does, for simple globs and the rest, with and without case", () => {
    const next = seededRandom(3);
    const pick = (chars: string, n: number) =>
      Array.from({ length: n }, () => chars[Math.floor(next() * chars.length)]).join("");
    const names = [
      ".",
      "..",
      "",
      ".env",
      ".ENV.example",
      "a.pem",
      ".pem",
      "pem",
      "id_rsa",
      "ID_RSA.pub",
      "a/b.key",
      "b.ts",
      ".ts",
      "B.TS",
      "x.d.ts",
      "\u00e9.ts",
      "a\nb.ts",
      "a b.ts",
      "a-b_c.ts",
    ];
    for (let i = 0; i < 300; i++)
      names.push(pick("aAbB.-_*e", 1 + Math.floor(next() * 6)).replaceAll("*", "x"));
    const globs = [
      ...DEFAULT_SECRET_PATTERNS,
      ...["*", "**", "a*", "*a*", ".*", "[ab]*", "{a,b}.pem", "*.ts", "*.d.ts", "*.TS", "a-b_c.*"],
    ];
    for (let i = 0; i < 200; i++) globs.push(pick("aAbB.-_*", 1 + Math.floor(next() * 5)));
    for (const nocase of [true, false])
      for (const glob of globs) {
        const ours = nameGlobMatcher(glob, nocase);
        const theirs = picomatch(glob, { dot: true, nocase });
        for (const name of names)
          expect(ours(name), `${glob} on ${JSON.stringify(name)}, nocase ${nocase}`).toBe(theirs(name));
      }
  });

  it("match a name against any of several, and a path pattern against the path", () => {
    const matches = compileGlobs(["*.ts", "Makefile", "src/**/*.md"]);
    expect(matches("a/b.ts", "b.ts", "")).toBe(true);
    expect(matches("a/Makefile", "Makefile", "")).toBe(true);
    expect(matches("a/makefile", "makefile", "")).toBe(false);
    expect(matches("src/x/y.md", "y.md", "")).toBe(true);
    expect(matches("a/b.tsx", "b.tsx", "")).toBe(false);
    expect(compileGlobs(["*.TS"], { nocase: true })("b.ts", "b.ts", "")).toBe(true);
  });
});
