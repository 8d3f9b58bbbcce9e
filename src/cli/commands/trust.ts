import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { trustCoveredFiles } from "../../trust/covered.js";
import { formatReview, reviewWorkspace } from "../../trust/review.js";
import { sessionTrust } from "../../trust/session-trust.js";
import { openTrustStore } from "../../trust/store.js";
import { pinnedRecord, relativeKey } from "../../trust/workspace-trust.js";
import { type GlobalOptions, UsageError } from "../options.js";

/**
 * `gantry trust [DIR]`: trust a folder's configuration as it is now (each file pinned by digest);
 * `--never`, `--subfolders`, `--list`, `--revoke DIR`. Decisions are keyed by the folder's real path.
 */
export async function run(args: string[], options: GlobalOptions): Promise<number> {
  const home = homedir();
  const store = openTrustStore(home);
  if (options.list) {
    if (args.length > 0) throw new UsageError("gantry trust --list takes no folder");
    return listDecisions(store);
  }
  if (args.length > 1) throw new UsageError(`gantry trust takes one folder (got ${args.join(" ")})`);
  const root = realFolder(args[0] ?? options.workspace ?? process.cwd());
  if (options.revoke) {
    const removed = store.remove(root);
    process.stdout.write(
      removed ? `Removed the decision for ${root}.\n` : `No decision was recorded for ${root}.\n`,
    );
    return 0;
  }
  if (options.never) {
    store.set(root, { decision: "never", decidedAt: new Date().toISOString() });
    process.stdout.write(
      `${root} will not be trusted: its hooks, allow rules and loosening settings stay ignored.\n`,
    );
    return 0;
  }
  // pinned before the review is read: what it lists is never newer than what gets approved
  const covered = trustCoveredFiles(root, home);
  const record = pinnedRecord(root, covered, options.subfolders === true);
  const review = reviewWorkspace(sessionTrust(root, home, "recorded"), home);
  store.set(root, record);
  const out = [`Trusted ${root}${options.subfolders ? " and the folders below it" : ""}.`];
  if (review.length > 0) out.push("This enables:", ...formatReview(review));
  out.push(
    covered.length > 0
      ? `Pinned as they are now (a change asks again): ${covered.map((file) => relativeKey(root, file)).join(", ")}`
      : "No configuration files yet: any that appear later need your approval.",
  );
  process.stdout.write(`${out.join("\n")}\n`);
  return 0;
}

function listDecisions(store: ReturnType<typeof openTrustStore>): number {
  const entries = store.list();
  if (entries.length === 0) {
    process.stdout.write(`No trust decisions (${store.file}).\n`);
    return 0;
  }
  for (const [folder, record] of entries) {
    const files = Object.keys(record.files ?? {}).length;
    const what =
      record.decision === "never"
        ? "never"
        : `trusted (${files} file${files === 1 ? "" : "s"} pinned${record.subfolders ? ", and subfolders" : ""})`;
    process.stdout.write(`${folder}  ${what}  ${record.decidedAt}\n`);
  }
  return 0;
}

function realFolder(folder: string): string {
  try {
    return realpathSync(path.resolve(folder));
  } catch {
    throw new UsageError(`no such folder: ${folder}`);
  }
}
