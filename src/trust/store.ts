import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { lazySchema } from "../config/lazy-schema.js";

/**
 * The user's trust decisions (SPEC §5a), in their home: one record per folder, keyed by its real path.
 * A trusted record pins the digest of every file it approved (workspace-relative paths with "/").
 */
const FolderRecordSchema = lazySchema(() =>
  z.object({
    decision: z.enum(["trusted", "never"]),
    decidedAt: z.string(),
    /** Trust also covers folders below this one (their files are pinned when first opened). */
    subfolders: z.boolean().optional(),
    files: z.record(z.string(), z.string()).optional(),
  }),
);
export type FolderRecord = z.infer<ReturnType<typeof FolderRecordSchema>>;

const StoreSchema = lazySchema(() =>
  z.object({
    version: z.literal(1),
    folders: z.record(z.string(), FolderRecordSchema()),
  }),
);
type StoreFile = z.infer<ReturnType<typeof StoreSchema>>;

export const TRUST_STORE_NAME = "trusted-folders.json";

export function trustStoreFile(home: string): string {
  return path.join(home, ".agents", TRUST_STORE_NAME);
}

export interface TrustStore {
  readonly file: string;
  get(folder: string): FolderRecord | undefined;
  /** The nearest record above `folder` that covers its subfolders, with the folder it was made for. */
  coveringAncestor(folder: string): { folder: string; record: FolderRecord } | undefined;
  list(): [string, FolderRecord][];
  set(folder: string, record: FolderRecord): void;
  remove(folder: string): boolean;
}

/**
 * Reads the store (a damaged store is an error naming the file: a silent reset would forget a
 * "never"); every change is written at once, atomically, re-reading the file first so two sessions
 * do not lose each other's decisions.
 */
export function openTrustStore(home: string): TrustStore {
  const file = trustStoreFile(home);
  const read = (): StoreFile => readStore(file);
  let current = read();
  const write = (change: (store: StoreFile) => void) => {
    current = read();
    change(current);
    mkdirSync(path.dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(current, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, file);
  };
  return {
    file,
    get: (folder) => current.folders[folder],
    coveringAncestor(folder) {
      for (let dir = path.dirname(folder); ; dir = path.dirname(dir)) {
        const record = current.folders[dir];
        if (record?.subfolders) return { folder: dir, record };
        if (path.dirname(dir) === dir) return undefined;
      }
    },
    list: () => Object.entries(current.folders).sort(([a], [b]) => a.localeCompare(b)),
    set: (folder, record) =>
      write((store) => {
        store.folders[folder] = record;
      }),
    remove(folder) {
      if (!read().folders[folder]) return false;
      write((store) => {
        delete store.folders[folder];
      });
      return true;
    },
  };
}

function readStore(file: string): StoreFile {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, folders: {} };
    throw new Error(`cannot read the trust store ${file}: ${(cause as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    throw new Error(
      `the trust store ${file} is not valid JSON (${(cause as Error).message}); fix or delete it (then trust your folders again)`,
    );
  }
  const parsed = StoreSchema().safeParse(raw);
  if (!parsed.success) {
    const problem = parsed.error.issues[0];
    throw new Error(
      `the trust store ${file} is damaged at ${problem?.path.join(".") || "(top)"}: ${problem?.message}; fix or delete it`,
    );
  }
  return parsed.data;
}
