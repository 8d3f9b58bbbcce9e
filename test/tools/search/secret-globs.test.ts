import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { secretPruneArgs } from "../../../src/tools/search/secret-globs.js";
import { DEFAULT_SECRET_EXCEPTIONS, DEFAULT_SECRET_PATTERNS } from "../../../src/workspace/secrets.js";

describe("the secret globs ripgrep prunes", () => {
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
