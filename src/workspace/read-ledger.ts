import type { Stats } from "node:fs";
import type { ContentDigest } from "./content-digest.js";

/** What the agent last saw of a file, so an edit can refuse a file that changed since (SPEC §3). */
export interface FileSnapshot {
  size: number;
  mtimeMs: number;
  ino: number;
  /** sha256 of the content when the whole file was read; absent for partial reads of large files. */
  sha256?: string;
}

export interface ReadLedger {
  record(abs: string, snapshot: FileSnapshot): void;
  get(abs: string): FileSnapshot | undefined;
  forget(abs: string): void;
}

/** The snapshot of a read; a digest whose bytes were kept (content-digest.ts) is hashed when first read. */
export function snapshotOf(stats: Stats, digest?: ContentDigest): FileSnapshot {
  const snapshot = { size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino };
  if (digest === undefined || typeof digest === "string") return { ...snapshot, sha256: digest };
  return Object.defineProperty(snapshot, "sha256", { get: () => digest.sha256, enumerable: true });
}

export function createReadLedger(): ReadLedger {
  const snapshots = new Map<string, FileSnapshot>();
  return {
    record: (abs, snapshot) => void snapshots.set(abs, snapshot),
    get: (abs) => snapshots.get(abs),
    forget: (abs) => void snapshots.delete(abs),
  };
}
