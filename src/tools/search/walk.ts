import path from "node:path";
import { isAtomicTempName } from "../../workspace/atomic-write.js";
import type { SecretGuard } from "../../workspace/secrets.js";
import { type FolderListing, LINKED_GITIGNORE, listFolder } from "./folder-listing.js";
import { extendChain, type IgnoreChain, isGitIgnored, SKIPPED_FOLDER_NAMES } from "./ignore.js";
import type { ListingHelpers, WalkThreadOptions } from "./walk-threads.js";

export interface WalkEntry {
  /** Workspace-relative, "/"-separated. */
  rel: string;
  name: string;
  abs: string;
  isDir: boolean;
  /** 1 for entries directly inside the search folder. */
  depth: number;
}

export interface WalkOptions {
  /** Real path of the workspace root. */
  root: string;
  /** The search folder, workspace-relative ("" = the root). */
  startRel: string;
  /** .gitignore rules of the folders above the search folder. */
  chain: IgnoreChain | undefined;
  secrets: SecretGuard;
  maxDepth?: number;
  signal?: AbortSignal;
  /** Called for every entry the rules keep; returning false for a folder skips what is inside it. */
  visit(entry: WalkEntry): boolean | undefined;
  /** Worker threads that list folders (default: as many as walk-threads.ts plans; `workers: 0` for none). */
  threads?: WalkThreadOptions & {
    startAfterMs?: number;
    /** false: the calling thread lists only while no worker is alive (tests make the workers list). */
    callerLists?: boolean;
  };
}

interface PendingFolder {
  abs: string;
  rel: string;
  depth: number;
  chain: IgnoreChain | undefined;
}

/** Folders read between two yields to the event loop, so an abort is noticed while walking. */
const FOLDERS_PER_SLICE = 128;
/**
 * How long the calling thread lists alone before it starts worker threads to list beside it: most
 * trees are walked sooner, and a worker costs a small one more than it saves (~4 ms to start one,
 * ~25 ms to boot).
 */
const MS_BEFORE_HELPERS = 5;

/** What a walk did besides its visits. */
export interface WalkStats {
  /** Worker threads that listed folders for it (0: the calling thread listed them all). */
  helpers: number;
}

/**
 * Visits the search folder's entries, skipping symlinks, special files, skipped folders
 * (node_modules, build outputs, .git), secret paths and .gitignored paths (nested files and `!` rules).
 * Synchronous reads in slices: much faster than one promise per folder, still abortable. A large tree
 * is listed by worker threads too (walk-threads.ts); every rule is applied here, on the calling thread.
 */
export async function walkWorkspace(options: WalkOptions): Promise<WalkStats> {
  const pending: PendingFolder[] = [
    { abs: path.join(options.root, options.startRel), rel: options.startRel, depth: 0, chain: options.chain },
  ];
  const take = (folder: PendingFolder, listing: FolderListing | undefined) => {
    if (listing !== undefined) keepEntries(folder, listing, options, pending);
  };
  const helpersAt = performance.now() + (options.threads?.startAfterMs ?? MS_BEFORE_HELPERS);
  let helpers: ListingHelpers<PendingFolder> | undefined;
  const callerLists = options.threads?.callerLists !== false;
  let triedHelpers = false;
  let listed = 0;
  try {
    for (;;) {
      if (!triedHelpers && pending.length > 1 && performance.now() >= helpersAt) {
        triedHelpers = true;
        // loaded once a walk is long enough: node:worker_threads alone costs a small one about 1.2 ms
        const { startListingHelpers } = await import("./walk-threads.js");
        helpers = startListingHelpers(pending, take, { ...options.threads, keepOne: callerLists });
      }
      helpers?.pump();
      const mayList = helpers === undefined || callerLists || helpers.alive() === 0;
      const folder = mayList ? pending.pop() : undefined;
      if (folder === undefined) {
        if (pending.length === 0 && !helpers?.waiting()) break;
        await helpers?.nextEvent(options.signal);
        options.signal?.throwIfAborted();
        continue;
      }
      take(folder, listFolder(folder.abs));
      if (++listed % FOLDERS_PER_SLICE === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        options.signal?.throwIfAborted();
      }
    }
    return { helpers: helpers?.helped() ?? 0 };
  } finally {
    helpers?.close();
  }
}

/** The entries of a listed folder that the rules keep: visited, and folders queued to be listed. */
function keepEntries(
  folder: PendingFolder,
  listing: FolderListing,
  options: WalkOptions,
  pending: PendingFolder[],
): void {
  const hasGitignore = listing.includes(".gitignore") || listing.includes(LINKED_GITIGNORE);
  const chain = hasGitignore ? extendChain(folder.chain, folder.abs, folder.rel) : folder.chain;
  const depth = folder.depth + 1;
  for (const listed of listing) {
    if (listed === LINKED_GITIGNORE) continue;
    const isDir = listed.endsWith("/");
    const name = isDir ? listed.slice(0, -1) : listed;
    if (isDir ? SKIPPED_FOLDER_NAMES.has(name) : isAtomicTempName(name)) continue;
    const rel = folder.rel === "" ? name : `${folder.rel}/${name}`;
    if (options.secrets.isSecretEntry(rel, name) || isGitIgnored(chain, rel, isDir)) continue;
    const abs = `${folder.abs}/${name}`;
    const descend = options.visit({ rel, name, abs, isDir, depth });
    if (isDir && descend !== false && (options.maxDepth === undefined || depth < options.maxDepth)) {
      pending.push({ abs, rel, depth, chain });
    }
  }
}
