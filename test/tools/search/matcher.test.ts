import { describe, expect, it } from "vitest";
import { compileMatcher } from "../../../src/tools/search/matcher.js";

/** Every place `query` starts in `text`, found by the matcher's needle search. */
function foundBy(query: string, text: string | Buffer): number[] {
  const compiled = compileMatcher(query, false, false);
  if (!compiled.ok || !compiled.matcher.findNeedle) throw new Error("expected a literal matcher");
  const haystack = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const found: number[] = [];
  for (
    let at = compiled.matcher.findNeedle(haystack, 0);
    at >= 0;
    at = compiled.matcher.findNeedle(haystack, at + 1)
  )
    found.push(at);
  return found;
}

function everyPlace(query: string, text: string | Buffer): number[] {
  const haystack = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const found: number[] = [];
  for (let at = haystack.indexOf(query); at >= 0; at = haystack.indexOf(query, at + 1)) found.push(at);
  return found;
}

describe("the literal needle search (from the needle's rarest byte)", () => {
  const code = "const server = createServer(); createserver(); xcreateServerx\ncreateServer";
  it.each([
    ["createServer", code],
    // the rarest byte comes first, last, or twice; a false start just before the real one
    ["Server", code],
    ["aaXa", "aXa aaXa aaaXa aaXaaXa"],
    ["ab_cd", "_cd ab_c ab_cd xab_cdab_cd"],
    ["é日本", "xé日本 é日 é日本é日本"],
    ["x", "axbxcx"],
    ["process.env", "process.en process.env.PATH process.env"],
  ])("finds %j wherever Buffer.indexOf does", (query, text) => {
    expect(foundBy(query, text)).toEqual(everyPlace(query, text));
    expect(foundBy(query, text).length).toBeGreaterThan(0);
  });

  it("finds a match at the very start and at the very end, and none in a shorter text", () => {
    expect(foundBy("useState", "useState")).toEqual([0]);
    expect(foundBy("useState", "x useState")).toEqual([2]);
    expect(foundBy("useState", "State")).toEqual([]);
    expect(foundBy("useState", "useStat")).toEqual([]);
  });

  it("starts at `from`, also when the needle's rarest byte lies past it", () => {
    const compiled = compileMatcher("createServer", false, false);
    if (!compiled.ok) throw new Error(compiled.message);
    const haystack = Buffer.from("createServer createServer");
    expect(compiled.matcher.findNeedle?.(haystack, 1)).toBe(13);
    expect(compiled.matcher.findNeedle?.(haystack, 13)).toBe(13);
    expect(compiled.matcher.findNeedle?.(haystack, 14)).toBe(-1);
  });
});
