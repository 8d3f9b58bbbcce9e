import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GrepEngineResult, GrepRequest } from "../../../src/tools/search/engine.js";
import { REPO_ROOT } from "../../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";
import { distModule, settledDescriptors } from "./dist-support.js";
import { BINARY } from "./support.js";

// Worker threads run compiled JavaScript, so these tests drive the built modules under dist/ (build first,
// as for the CLI tests); under the TypeScript loader the Node engine scans on the calling thread alone.
type Dist = {
  nodeSearch: typeof import("../../../src/tools/search/node-grep.js").nodeSearch;
  countInPool: typeof import("../../../src/tools/search/scan-pool.js").countInPool;
  defaultWorkerUrl: typeof import("../../../src/tools/search/scan-pool.js").defaultWorkerUrl;
  idleScanWorkers: typeof import("../../../src/tools/search/scan-pool.js").idleScanWorkers;
  compileMatcher: typeof import("../../../src/tools/search/matcher.js").compileMatcher;
  checkSearchRoot: typeof import("../../../src/tools/search/ignore.js").checkSearchRoot;
  createSecretGuard: typeof import("../../../src/workspace/secrets.js").createSecretGuard;
};

let dist: Dist;
let ws: TempWorkspace;

function tree(): Record<string, string | Uint8Array> {
  const files: Record<string, string | Uint8Array> = {
    ".gitignore": "*.log\n",
    "skip.log": "alpha ignored\n",
    ".env": "alpha=secret\n",
    "big.txt": "alpha filler\n".repeat(10_000),
    "image.png": BINARY,
    "late-nul.txt": `alpha early\n${"pad\n".repeat(20_000)}\u0000alpha tail\n`,
    "crlf.txt": "Alpha one\r\nalpha two\r\n",
  };
  for (let i = 0; i < 60; i++) {
    files[`src/m${i % 4}/f${String(i).padStart(2, "0")}.ts`] =
      i % 3 === 0 ? `alpha ${i}\nbeta\nalpha again ${i}\n` : `beta ${i}\n`;
  }
  return files;
}

beforeAll(async () => {
  const [nodeGrep, pool, matcher, ignore, secrets] = await Promise.all([
    distModule("tools/search/node-grep.js"),
    distModule("tools/search/scan-pool.js"),
    distModule("tools/search/matcher.js"),
    distModule("tools/search/ignore.js"),
    distModule("workspace/secrets.js"),
  ]);
  dist = { ...nodeGrep, ...pool, ...matcher, ...ignore, ...secrets } as Dist;
  ws = await createTempWorkspace(tree());
});
afterAll(async () => {
  await ws?.cleanup();
});

function request(query: string, options: Partial<GrepRequest> = {}): GrepRequest {
  const check = dist.checkSearchRoot(ws.root, "", true);
  if (!check.ok) throw new Error(check.reason);
  return {
    root: ws.root,
    searchRel: "",
    searchIsDir: true,
    chain: check.chain,
    gitignoreFolders: check.gitignoreFolders,
    secrets: dist.createSecretGuard(),
    secretAllowGlobs: [],
    query,
    isRegex: false,
    caseInsensitive: false,
    includes: [],
    matchPerLine: true,
    offset: 0,
    maxMatches: 7,
    maxFileBytes: 100_000,
    signal: new AbortController().signal,
    ...options,
  };
}

async function search(req: GrepRequest, pool: Parameters<Dist["nodeSearch"]>[2]) {
  const compiled = dist.compileMatcher(req.query, req.isRegex, req.caseInsensitive);
  if (!compiled.ok) throw new Error(compiled.message);
  const result: GrepEngineResult = await dist.nodeSearch(req, compiled.matcher, pool);
  if (!result.ok) throw new Error(result.message);
  return result.outcome;
}

describe("the Node engine's scan workers", () => {
  it("finds the compiled worker script next to the built module", () => {
    expect(dist.defaultWorkerUrl()?.href).toMatch(/\/dist\/tools\/search\/scan-worker\.js$/);
  });

  it.each([
    { query: "alpha" },
    { query: "ALPHA", caseInsensitive: true },
    { query: "^alpha \\d+$", isRegex: true },
    { query: "alpha", matchPerLine: false },
    { query: "no such text" },
    // an Offset inside the second matching file: the files before it are passed over by their counts
    { query: "alpha", offset: 4 },
    { query: "alpha", offset: 10 },
    { query: "alpha", offset: 2, maxMatches: 1 },
    { query: "alpha", matchPerLine: false, offset: 4 },
  ])("gives the same results, counts and skips as the calling thread alone for %j", async (options) => {
    const req = request(options.query, options);
    const alone = await search(req, { workers: 0 });
    const pooled = await search(req, { workers: 2, minFiles: 0, batchFiles: 5, callerScans: false });
    expect(alone.threads).toBeUndefined();
    expect(pooled.threads).toBeGreaterThanOrEqual(1);
    const { threads, ...rest } = pooled;
    expect(rest).toEqual(alone);
    expect(alone.skippedLargeFiles).toBe(1);
    expect(alone.skippedBinaryFiles).toBe(2);
  });

  it.runIf(existsSync("/proc/self/fd"))(
    "leaves no descriptor open: the folders files are read through are closed",
    async () => {
      await search(request("alpha"), { workers: 2, minFiles: 0, batchFiles: 5, callerScans: false });
      const before = await settledDescriptors();
      for (let i = 0; i < 3; i++) {
        await search(request("alpha"), { workers: 2, minFiles: 0, batchFiles: 5, callerScans: true });
        await search(request("alpha"), { workers: 0 });
      }
      expect(await settledDescriptors()).toBeLessThanOrEqual(before);
    },
  );

  it("starts no worker for a small search, which the calling thread finishes before one could boot", async () => {
    const outcome = await search(request("alpha"), {});
    expect(outcome.threads).toBeUndefined();
    expect(outcome.matchedFiles).toBeGreaterThan(0);
  });

  it("hands every batch to a worker when the calling thread only coordinates", async () => {
    const req = request("alpha");
    const compiled = dist.compileMatcher("alpha", false, false);
    if (!compiled.ok) throw new Error(compiled.message);
    const files = Array.from({ length: 40 }, (_, i) => `src/m${i % 4}/f${String(i).padStart(2, "0")}.ts`);
    const { counts, threads } = await dist.countInPool({ ...req, files }, compiled.matcher, {
      workers: 1,
      minFiles: 0,
      batchFiles: 3,
      callerScans: false,
    });
    expect(threads).toBe(1);
    expect([...counts]).toEqual(files.map((_, i) => (i % 3 === 0 ? 2 : 0)));
  });

  it("runs the bundled worker script, which sits next to the bundle chunk that starts it", async () => {
    const bundle = path.join(REPO_ROOT, "dist", "bundle");
    const starters = readdirSync(bundle).filter((name) =>
      // the CommonJS bundle spells import.meta.url as the chunk's own file URL (minified, any quotes)
      /new URL\(\s*["'`]\.\/scan-worker\.js["'`],\s*require\("url"\)\.pathToFileURL\(__filename\)\.href\s*\)/.test(
        readFileSync(path.join(bundle, name), "utf8"),
      ),
    );
    expect(starters.length).toBeGreaterThan(0);
    const req = request("alpha");
    const compiled = dist.compileMatcher("alpha", false, false);
    if (!compiled.ok) throw new Error(compiled.message);
    const files = ["src/m0/f00.ts", "src/m1/f01.ts", "big.txt", "image.png"];
    const { counts, threads } = await dist.countInPool({ ...req, files }, compiled.matcher, {
      workers: 1,
      minFiles: 0,
      callerScans: false,
      workerUrl: pathToFileURL(path.join(bundle, "scan-worker.js")),
    });
    expect(threads).toBe(1);
    expect([...counts]).toEqual([2, 0, -1, -2]);
  });

  it("scans on the calling thread when the worker script cannot start", async () => {
    const req = request("alpha");
    const missing = pathToFileURL(path.join(ws.parent, "no-such-worker.js"));
    const outcome = await search(req, { workers: 1, minFiles: 0, batchFiles: 4, workerUrl: missing });
    expect(outcome.threads).toBe(1);
    const alone = await search(req, { workers: 0 });
    expect({ ...outcome, threads: undefined }).toEqual({ ...alone, threads: undefined });
  });

  it("keeps a finished search's worker for the next search, which gets its own query's counts", async () => {
    const req = request("alpha");
    const files = ["src/m0/f00.ts", "src/m1/f01.ts", "src/m2/f02.ts"];
    const url = dist.defaultWorkerUrl();
    const counts = async (query: string) => {
      const compiled = dist.compileMatcher(query, false, false);
      if (!compiled.ok) throw new Error(compiled.message);
      const options = { workers: 1, minFiles: 0, batchFiles: 1, callerScans: false };
      return dist.countInPool({ ...req, query, files }, compiled.matcher, options);
    };
    // the search takes an idle worker where there is one (earlier tests leave some), and gives it back
    const kept = Math.max(1, dist.idleScanWorkers(url));
    const first = await counts("alpha");
    expect(dist.idleScanWorkers(url)).toBe(kept);
    const second = await counts("beta");
    expect(dist.idleScanWorkers(url)).toBe(kept);
    expect(first.threads).toBe(1);
    expect(second.threads).toBe(1);
    expect([...first.counts]).toEqual([2, 0, 0]);
    expect([...second.counts]).toEqual([1, 1, 1]);
  });

  it("stops when the call is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      search(request("alpha", { signal: controller.signal }), { workers: 1, minFiles: 0 }),
    ).rejects.toThrow();
  });
});
