import { readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "../../support/cli.js";

/**
 * A built module under dist/: worker threads run compiled JavaScript, so the tests of the search
 * workers drive the built modules (build first, as for the CLI tests); under the TypeScript loader
 * there is no worker script and the calling thread does all.
 */
export const distModule = (rel: string) => import(pathToFileURL(path.join(REPO_ROOT, "dist", rel)).href);

/**
 * This process's open descriptors once their count stops changing: ended workers give back their own
 * (event loop, channels) a moment later.
 */
export async function settledDescriptors(): Promise<number> {
  const open = () => readdirSync("/proc/self/fd").length;
  let last = open();
  for (let waited = 0; waited < 3_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = open();
    if (now === last) return now;
    last = now;
  }
  return last;
}
