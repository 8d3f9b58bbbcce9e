import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WalkOptions } from "../../../src/tools/search/walk.js";
import { REPO_ROOT } from "../../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";
import { distModule, settledDescriptors } from "./dist-support.js";

// Worker threads run compiled JavaScript, so these tests drive the built modules under dist/ (build
// first, as for the CLI tests); under the TypeScript loader the walk lists on the calling thread alone.
type Dist = {
  walkWorkspace: typeof import("../../../src/tools/search/walk.js").walkWorkspace;
  defaultWalkWorkerUrl: typeof import("../../../src/tools/search/walk-threads.js").defaultWalkWorkerUrl;
  idleWalkWorkers: typeof import("../../../src/tools/search/walk-threads.js").idleWalkWorkers;
  checkSearchRoot: typeof import("../../../src/tools/search/ignore.js").checkSearchRoot;
  createSecretGuard: typeof import("../../../src/workspace/secrets.js").createSecretGuard;
};

let dist: Dist;
let ws: TempWorkspace;

function tree(): Record<string, string> {
  const files: Record<string, string> = {
    ".gitignore": "*.log\nbuilt/\n",
    "skip.log": "",
    "built/out.js": "",
    ".env": "secret",
    "keys/id_rsa": "secret",
    "docs/readme.md": "",
    "docs/.gitignore": "!keep.log\n",
    "docs/keep.log": "",
    "node_modules/pkg/index.js": "",
  };
  for (let i = 0; i < 40; i++) files[`src/m${i % 5}/d${i % 8}/f${String(i).padStart(2, "0")}.ts`] = "";
  return files;
}

beforeAll(async () => {
  const [walk, threads, ignore, secrets] = await Promise.all([
    distModule("tools/search/walk.js"),
    distModule("tools/search/walk-threads.js"),
    distModule("tools/search/ignore.js"),
    distModule("workspace/secrets.js"),
  ]);
  dist = { ...walk, ...threads, ...ignore, ...secrets } as Dist;
  ws = await createTempWorkspace(tree());
  mkdirSync(path.join(ws.parent, "outside", "d0"), { recursive: true });
  writeFileSync(path.join(ws.parent, "outside", "d0", "stolen.txt"), "outside the workspace");
  symlinkSync(path.join(ws.parent, "outside"), path.join(ws.root, "link"));
});
afterAll(async () => {
  await ws?.cleanup();
});

/** Everything a walk visits (folders end in /), sorted, and how many workers listed for it. */
async function walk(root: string, threads: WalkOptions["threads"], visit?: (rel: string) => void) {
  const check = dist.checkSearchRoot(root, "", true);
  if (!check.ok) throw new Error(check.reason);
  const seen: string[] = [];
  const stats = await dist.walkWorkspace({
    root,
    startRel: "",
    chain: check.chain,
    secrets: dist.createSecretGuard(),
    threads,
    visit(entry) {
      seen.push(entry.isDir ? `${entry.rel}/` : entry.rel);
      visit?.(entry.rel);
      return undefined;
    },
  });
  return { seen: seen.sort(), helpers: stats.helpers };
}

/** Workers list every folder but the first: the calling thread only takes their listings in. */
const WORKERS_LIST = { workers: 2, startAfterMs: 0, batchFolders: 2, callerLists: false };

describe("the walk's listing workers", () => {
  it("finds the compiled worker script next to the built module", () => {
    expect(dist.defaultWalkWorkerUrl()?.href).toMatch(/\/dist\/tools\/search\/walk-worker\.js$/);
  });

  it("keeps and skips exactly what the calling thread alone does", async () => {
    const alone = await walk(ws.root, { workers: 0 });
    expect(alone.helpers).toBe(0);
    expect(alone.seen).toContain("docs/keep.log");
    expect(alone.seen).toContain("src/m4/d7/f39.ts");
    for (const hidden of ["skip.log", "built/", ".env", "keys/id_rsa", "node_modules/", "link/"]) {
      expect(alone.seen).not.toContain(hidden);
    }
    const pooled = await walk(ws.root, WORKERS_LIST);
    expect(pooled.helpers).toBeGreaterThanOrEqual(1);
    expect(pooled.seen).toEqual(alone.seen);
    const shared = await walk(ws.root, { workers: 1, startAfterMs: 0, batchFolders: 1 });
    expect(shared.seen).toEqual(alone.seen);
  });

  it("does not list a folder whose parent was swapped for a symlink after the walk found it", async () => {
    // attack: while the walk goes on, a folder it has queued gets a parent that leads outside
    for (const threads of [{ workers: 0 }, WORKERS_LIST]) {
      const attacked = await createTempWorkspace({
        "a/d0/inner.txt": "",
        "a/d1/inner.txt": "",
        "b/x.txt": "",
      });
      try {
        let swapped = false;
        const { seen } = await walk(attacked.root, threads, (rel) => {
          if (rel !== "a/d0" || swapped) return;
          swapped = true;
          renameSync(path.join(attacked.root, "a"), path.join(attacked.root, "a-moved"));
          symlinkSync(path.join(ws.parent, "outside"), path.join(attacked.root, "a"));
        });
        expect(swapped).toBe(true);
        expect(seen.filter((rel) => rel.includes("stolen"))).toEqual([]);
        expect(seen).toContain("b/x.txt");
      } finally {
        await attacked.cleanup();
      }
    }
  });

  it("applies a .gitignore that is a symlink, as ripgrep does, on every thread", async () => {
    const linked = await createTempWorkspace({ "a/hit.log": "", "a/hit.txt": "", "b/c/d.log": "" });
    try {
      writeFileSync(path.join(linked.parent, "rules"), "*.log\n");
      symlinkSync(path.join(linked.parent, "rules"), path.join(linked.root, ".gitignore"));
      for (const threads of [{ workers: 0 }, WORKERS_LIST]) {
        const { seen } = await walk(linked.root, threads);
        expect(seen).toEqual(["a/", "a/hit.txt", "b/", "b/c/"]);
      }
    } finally {
      await linked.cleanup();
    }
  });

  it("lists alone when the worker script cannot start", async () => {
    const missing = pathToFileURL(path.join(ws.parent, "no-such-worker.js"));
    const alone = await walk(ws.root, { workers: 0 });
    const outcome = await walk(ws.root, { ...WORKERS_LIST, workerUrl: missing });
    expect(outcome.helpers).toBe(0);
    expect(outcome.seen).toEqual(alone.seen);
  });

  it("takes back the folders of a worker that dies in the middle of a walk", async () => {
    // a worker speaking the walk's protocol that ends its thread on the first batch it is given
    const script = path.join(ws.parent, "dying-walk-worker.mjs");
    writeFileSync(
      script,
      `import { parentPort } from "node:worker_threads";
parentPort.on("message", ({ port }) => {
  port.on("message", () => process.exit(3));
  port.postMessage({ type: "ready" });
});
`,
    );
    const alone = await walk(ws.root, { workers: 0 });
    const outcome = await walk(ws.root, { ...WORKERS_LIST, workers: 1, workerUrl: pathToFileURL(script) });
    expect(outcome.helpers).toBe(0);
    expect(outcome.seen).toEqual(alone.seen);
  });

  it("keeps a finished walk's workers for the next walk", async () => {
    const url = dist.defaultWalkWorkerUrl();
    await walk(ws.root, WORKERS_LIST);
    const kept = dist.idleWalkWorkers(url);
    expect(kept).toBeGreaterThanOrEqual(2);
    const again = await walk(ws.root, WORKERS_LIST);
    expect(again.helpers).toBeGreaterThanOrEqual(1);
    expect(dist.idleWalkWorkers(url)).toBe(kept);
  });

  it("starts no worker for a small tree, which the calling thread walks before one could boot", async () => {
    const { helpers } = await walk(ws.root, { workers: 1 });
    expect(helpers).toBe(0);
  });

  it.runIf(existsSync("/proc/self/fd"))("leaves no descriptor open", async () => {
    await walk(ws.root, WORKERS_LIST);
    const before = await settledDescriptors();
    for (let i = 0; i < 3; i++) {
      await walk(ws.root, WORKERS_LIST);
      await walk(ws.root, { workers: 1, startAfterMs: 0, batchFolders: 1 });
    }
    expect(await settledDescriptors()).toBeLessThanOrEqual(before);
  });

  it("stops when the call is aborted, and the workers it held serve the next walk", async () => {
    const controller = new AbortController();
    const url = dist.defaultWalkWorkerUrl();
    const check = dist.checkSearchRoot(ws.root, "", true);
    if (!check.ok) throw new Error(check.reason);
    let visits = 0;
    await expect(
      dist.walkWorkspace({
        root: ws.root,
        startRel: "",
        chain: check.chain,
        secrets: dist.createSecretGuard(),
        signal: controller.signal,
        threads: WORKERS_LIST,
        visit() {
          if (++visits === 12) controller.abort();
          return undefined;
        },
      }),
    ).rejects.toThrow();
    const alone = await walk(ws.root, { workers: 0 });
    const after = await walk(ws.root, WORKERS_LIST);
    expect(after.seen).toEqual(alone.seen);
    expect(after.helpers).toBeGreaterThanOrEqual(1);
    expect(dist.idleWalkWorkers(url)).toBeGreaterThanOrEqual(1);
  });

  it("an error thrown by a visit ends the walk with that error, not the process; its workers come back", async () => {
    const url = dist.defaultWalkWorkerUrl();
    await walk(ws.root, WORKERS_LIST);
    const kept = dist.idleWalkWorkers(url);
    await expect(
      walk(ws.root, WORKERS_LIST, (rel) => {
        if (rel.startsWith("src/m3")) throw new Error("visit failed");
      }),
    ).rejects.toThrow("visit failed");
    // a worker still listing when the walk ended is kept once its last answer is in
    for (let waited = 0; waited < 2_000 && dist.idleWalkWorkers(url) < kept; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(dist.idleWalkWorkers(url)).toBe(kept);
  });

  it("runs the bundled worker script, which sits next to the bundle chunk that starts it", async () => {
    const bundle = path.join(REPO_ROOT, "dist", "bundle");
    const starters = readdirSync(bundle).filter((name) =>
      /new URL\(\s*["'`]\.\/walk-worker\.js["'`],\s*require\("url"\)\.pathToFileURL\(__filename\)\.href\s*\)/.test(
        readFileSync(path.join(bundle, name), "utf8"),
      ),
    );
    expect(starters.length).toBeGreaterThan(0);
    const alone = await walk(ws.root, { workers: 0 });
    const bundled = await walk(ws.root, {
      ...WORKERS_LIST,
      workerUrl: pathToFileURL(path.join(bundle, "walk-worker.js")),
    });
    expect(bundled.helpers).toBeGreaterThanOrEqual(1);
    expect(bundled.seen).toEqual(alone.seen);
  });
});
