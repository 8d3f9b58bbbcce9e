import type { Stats } from "node:fs";

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

export function snapshotOf(stats: Stats, sha256?: string): FileSnapshot {
  return { size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino, sha256 };
}

export function createReadLedger(): ReadLedger {
  const snapshots = new Map<string, FileSnapshot>();
  return {
    record: (abs, snapshot) => void snapshots.set(abs, snapshot),
    get: (abs) => snapshots.get(abs),
    forget: (abs) => void snapshots.delete(abs),
  };
}
