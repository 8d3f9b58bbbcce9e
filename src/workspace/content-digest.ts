import { createHash } from "node:crypto";

/**
 * The sha256 of a file's bytes as they were read, fed chunk by chunk (view_file streams a file once).
 *
 * Loading node:crypto costs about 5 ms, some 7% of a one-shot `gantry tool view_file` whose digest no
 * later edit ever asks for. So a small file's bytes are kept (a copy) and hashed when the digest is first
 * read; a large file, or any file once node:crypto is loaded, is hashed as it streams. The copy is of
 * what was read, so a file changed afterwards still fails the edit's check, as with an eager hash.
 */
export interface ContentHasher {
  update(chunk: Uint8Array): void;
  /** The hex sha256, or a getter of it when the bytes were kept: read it through `snapshotOf`. */
  digest(): ContentDigest;
}

export type ContentDigest = string | { readonly sha256: string };

/** Files up to this many bytes are kept to be hashed later. */
const DEFERRED_BYTES = 64 * 1024;
/** Digests kept unhashed at most (4 MB of copies): past them every digest is made at once. */
const DEFERRED_MAX = 64;

const pending = new Set<Deferred>();
let cryptoLoaded = false;

interface Deferred {
  readonly sha256: string;
  settle(): void;
}

/** A hasher for a file of `sizeBytes` bytes (its size when opened: the read never goes past it). */
export function createContentHasher(sizeBytes: number): ContentHasher {
  if (cryptoLoaded || sizeBytes > DEFERRED_BYTES || pending.size >= DEFERRED_MAX) return eagerHasher();
  const kept = Buffer.allocUnsafe(sizeBytes);
  let length = 0;
  return {
    update(chunk) {
      if (length + chunk.length > kept.length) throw new Error("read past the size the file was opened with");
      kept.set(chunk, length);
      length += chunk.length;
    },
    digest: () => deferredDigest(kept.subarray(0, length)),
  };
}

/** The hex sha256 of bytes already in memory (an image read whole). */
export function digestOfBytes(bytes: Uint8Array): ContentDigest {
  if (cryptoLoaded || bytes.length > DEFERRED_BYTES || pending.size >= DEFERRED_MAX) return sha256Hex(bytes);
  return deferredDigest(Uint8Array.prototype.slice.call(bytes));
}

/** The digest's hex value (hashing kept bytes now, if they were kept). */
export function digestValue(digest: ContentDigest): string {
  return typeof digest === "string" ? digest : digest.sha256;
}

function deferredDigest(bytes: Uint8Array): Deferred {
  let value: string | undefined;
  let kept: Uint8Array | undefined = bytes;
  const deferred: Deferred = {
    get sha256() {
      deferred.settle();
      return value as string;
    },
    settle() {
      if (kept === undefined) return;
      const bytes = kept;
      kept = undefined;
      pending.delete(deferred);
      value = sha256Hex(bytes);
    },
  };
  pending.add(deferred);
  return deferred;
}

function eagerHasher(): ContentHasher {
  const hash = createHash("sha256");
  cryptoLoadedNow();
  return { update: (chunk) => void hash.update(chunk), digest: () => hash.digest("hex") };
}

function sha256Hex(bytes: Uint8Array): string {
  const hex = createHash("sha256").update(bytes).digest("hex");
  cryptoLoadedNow();
  return hex;
}

/** Once node:crypto is loaded, keeping bytes saves nothing: the kept ones are hashed and let go. */
function cryptoLoadedNow(): void {
  if (cryptoLoaded) return;
  cryptoLoaded = true;
  for (const deferred of [...pending]) deferred.settle();
}
