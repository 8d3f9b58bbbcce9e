import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { secretPruneArgs, simpleOrPicomatch } from "../../../src/tools/search/secret-globs.js";
import { DEFAULT_SECRET_EXCEPTIONS, DEFAULT_SECRET_PATTERNS } from "../../../src/workspace/secrets.js";
import { seededRandom } from "../../support/random.js";

describe("the secret globs ripgrep prunes", () => {
  it("judge a name as picomatch does, for simple globs and the rest", () => {
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
    ];
    for (let i = 0; i < 300; i++)
      names.push(pick("aAbB.-_*e", 1 + Math.floor(next() * 6)).replaceAll("*", "x"));
    const globs = [...DEFAULT_SECRET_PATTERNS, "*", "**", "a*", "*a*", ".*", "[ab]*", "{a,b}.pem"];
    for (let i = 0; i < 200; i++) globs.push(pick("aAbB.-_*", 1 + Math.floor(next() * 5)));
    for (const glob of globs) {
      const ours = simpleOrPicomatch(glob);
      const theirs = picomatch(glob, { dot: true, nocase: true });
      for (const name of names) expect(ours(name), `${glob} on ${JSON.stringify(name)}`).toBe(theirs(name));
    }
  });

  it("leave to the guard every pattern a built-in exception falls under", () => {
    const args = secretPruneArgs();
    // .env.* would hide .env.example, which is no secret: rg is not told to skip it
    expect(args.some((arg) => /^--i?glob=!\.env\.\*/i.test(arg))).toBe(false);
    expect(args).toContain("--glob=!.env");
    expect(args).toContain("--glob=!*.PEM");
    for (const exception of DEFAULT_SECRET_EXCEPTIONS)
      for (const arg of args) {
        const glob = arg.slice(arg.indexOf("!") + 1);
        expect(picomatch(glob, { dot: true })(exception), `${arg} on ${exception}`).toBe(false);
      }
  });
});
