import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../../src/gantry.js";
import type { ToolResult } from "../../../src/tools/contract.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";
import { BINARY } from "./support.js";

/** A tree with every kind of entry both engines must judge alike. */
function parityTree(): Record<string, string | Uint8Array> {
  const files: Record<string, string | Uint8Array> = {
    ".gitignore": "*.log\n!keep.log\n/generated/\ntmp-*\n",
    ".hidden/notes.md": "alpha beta\nGamma alpha\n",
    "keep.log": "alpha kept\n",
    "UPPER.LOG": "alpha upper case is not *.log to git\n",
    "drop.log": "alpha dropped\n",
    "generated/g.ts": "alpha generated\n",
    "tmp-x/t.ts": "alpha tmp\n",
    ".env": "alpha=secret\n",
    ".env.local": "alpha=secret\n",
    ".env.example": "alpha=example\n",
    "keys/id_rsa": "alpha key\n",
    "certs/site.pem": "alpha pem\n",
    "node_modules/m/index.js": "alpha dep\n",
    "dist/out.js": "alpha dist\n",
    "empty.txt": "",
    "crlf.txt": "Alpha one\r\nalpha two\r\n",
    "unicode.txt": "ÀLPHA ünïcödé\nalpha 日本語\n",
    "noeol.txt": "last alpha",
    // ripgrep prints this name with its line break; its count is still found after the NUL
    "odd\nname.txt": "alpha in an odd name\n",
    "late-nul.txt": `alpha early\n${"pad\n".repeat(30_000)}\u0000tail alpha\n`,
    "image.png": BINARY,
    // secrets in any case: ripgrep prunes them too, or it would count them as skipped binary files
    "certs/STORE.JKS": BINARY,
    "certs/Wallet.KeyStore": BINARY,
    ".Git-Credentials": BINARY,
    "keys/ID_Ed25519.pub": BINARY,
    "conf/.ENV": BINARY,
    "big.txt": `${"alpha filler\n".repeat(20_000)}`,
    // a minified line of 2-, 3- and 4-byte characters: a literal query cuts its window from the bytes
    "min/bundle.js": `${"é€".repeat(2_500)}alpha${"ü😀".repeat(2_500)}\nshort alpha\n`,
    "pkg/.gitignore": "/local.ts\nsecret-ish/\n",
    "pkg/local.ts": "alpha local\n",
    "pkg/sub/local.ts": "alpha sub local\n",
    "pkg/secret-ish/x.ts": "alpha hidden\n",
    "pkg/src/deep/a.ts": "alpha a1\nbeta\nalpha a3\n",
    "pkg/src/deep/b.js": "ALPHA b\n",
    "pkg/src/blob.bin": BINARY,
  };
  files["many/.gitignore"] = "# names only\nf3*.txt\n!f33.txt\n";
  for (let i = 0; i < 40; i++)
    files[`many/f${String(i).padStart(2, "0")}.txt`] = `alpha ${i}\nbeta ${i}\nalpha again ${i}\n`;
  return files;
}

const QUERIES: Record<string, unknown>[] = [
  { SearchPath: ".", Query: "alpha" },
  { SearchPath: ".", Query: "alpha", CaseInsensitive: true },
  { SearchPath: ".", Query: "^alpha \\d+$", IsRegex: true },
  { SearchPath: ".", Query: "a(l|x)pha", IsRegex: true, CaseInsensitive: true },
  { SearchPath: ".", Query: "alpha", MatchPerLine: false },
  { SearchPath: ".", Query: "alpha", Includes: ["*.ts", "*.md"] },
  { SearchPath: "pkg", Query: "alpha" },
  { SearchPath: "pkg/src", Query: "alpha", CaseInsensitive: true },
  { SearchPath: ".", Query: "beta" },
  { SearchPath: ".", Query: "no such text" },
  // paging: an Offset inside a file, past the cap, for file names, and past the end
  { SearchPath: ".", Query: "alpha", Offset: 7 },
  { SearchPath: ".", Query: "alpha", CaseInsensitive: true, Offset: 30 },
  { SearchPath: ".", Query: "^alpha \\d+$", IsRegex: true, Offset: 20 },
  { SearchPath: ".", Query: "alpha", MatchPerLine: false, Offset: 10 },
  { SearchPath: ".", Query: "alpha", Offset: 100_000 },
];

describe("grep_search engines agree", () => {
  let ws: TempWorkspace;
  const sessions: Partial<Record<"ripgrep" | "node", GantrySession>> = {};

  beforeAll(async () => {
    ws = await createTempWorkspace(parityTree());
    for (const engine of ["ripgrep", "node"] as const) {
      sessions[engine] = createGantrySession({
        workspace: ws.root,
        home: ws.home,
        settings: { search: { engine }, limits: { maxMatches: 25, maxSearchFileBytes: 200_000 } },
      });
    }
  });
  afterAll(async () => {
    await sessions.ripgrep?.dispose();
    await sessions.node?.dispose();
    await ws.cleanup();
  });

  const comparable = (result: ToolResult) => {
    const { engine, durationMs, ...metadata } = result.metadata;
    return { text: result.text, error: result.error, metadata, engine };
  };

  it.each(QUERIES)("returns identical results, order and skip counts for %j", async (args) => {
    const viaRipgrep = comparable(
      await (sessions.ripgrep as GantrySession).pipeline.run({ name: "grep_search", args }),
    );
    const viaNode = comparable(
      await (sessions.node as GantrySession).pipeline.run({ name: "grep_search", args }),
    );
    expect(viaRipgrep.engine).toBe("ripgrep");
    expect(viaNode.engine).toBe("node");
    expect(viaNode.text).toBe(viaRipgrep.text);
    expect(viaNode.metadata).toEqual(viaRipgrep.metadata);
    expect(viaRipgrep.error).toBe(false);
  });

  it("cuts a long UTF-8 line for a literal query to the window the decoded line has", async () => {
    for (const engine of ["ripgrep", "node"] as const) {
      const run = (args: Record<string, unknown>) =>
        (sessions[engine] as GantrySession).pipeline.run({ name: "grep_search", args });
      const literal = await run({ SearchPath: "min", Query: "alpha" });
      const decoded = await run({ SearchPath: "min", Query: "alpha", CaseInsensitive: true });
      const [line] = literal.text.split("\n");
      expect(line).toMatch(/^min\/bundle\.js:1: …(é€)+alpha(ü😀)+…$/);
      expect(literal.text).toBe(decoded.text);
    }
  });

  it("skips the same secret, ignored, large and binary files", async () => {
    const result = await (sessions.node as GantrySession).pipeline.run({
      name: "grep_search",
      args: { SearchPath: ".", Query: "alpha", MatchPerLine: false },
    });
    const files = result.text.split("\n").filter((line) => !line.startsWith("["));
    expect(files).toContain(".env.example");
    expect(files).toContain("keep.log");
    for (const hidden of [
      ".env",
      ".env.local",
      "keys/id_rsa",
      "certs/site.pem",
      "drop.log",
      "generated/g.ts",
    ]) {
      expect(files).not.toContain(hidden);
    }
    for (const hidden of [
      "tmp-x/t.ts",
      "node_modules/m/index.js",
      "dist/out.js",
      "pkg/local.ts",
      "pkg/secret-ish/x.ts",
    ]) {
      expect(files).not.toContain(hidden);
    }
    // big.txt is large; image.png, pkg/src/blob.bin and late-nul.txt (a NUL past the first chunk) are binary
    expect(result.metadata).toMatchObject({ skippedLargeFiles: 1, skippedBinaryFiles: 3 });
    const pkg = await (sessions.node as GantrySession).pipeline.run({
      name: "grep_search",
      args: { SearchPath: "pkg", Query: "alpha", MatchPerLine: false },
    });
    expect(pkg.text.split("\n")).toEqual([
      "pkg/src/deep/a.ts",
      "pkg/sub/local.ts",
      "[skipped 1 binary file(s)]",
    ]);
  });
});
