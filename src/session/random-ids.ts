import { closeSync, openSync, readSync } from "node:fs";

/**
 * Random identifiers for sessions, calls, log folders and temporary names: bytes from the kernel's
 * random pool (/dev/urandom, the source node:crypto draws on too), read through node:fs a block at a
 * time. Loading node:crypto for them cost a one-shot `gantry tool` call about 6% of its instructions
 * (start-up is a benchmark target). Where /dev/urandom cannot be opened (Windows), node:crypto fills the
 * block instead.
 */
const BLOCK = 256;
let block: Buffer = Buffer.alloc(0);
let used = 0;

/** `size` random bytes (at most 256), a copy no later call hands out again. */
export function randomBytesFromPool(size: number): Buffer {
  if (size > BLOCK)
    throw new RangeError(`randomBytesFromPool gives at most ${BLOCK} bytes; asked for ${size}`);
  if (used + size > block.length) {
    block = readRandomBlock();
    used = 0;
  }
  const bytes = Buffer.from(block.subarray(used, used + size));
  block.fill(0, used, used + size);
  used += size;
  return bytes;
}

/** `bytes` random bytes as lowercase hex (twice as many characters). */
export function randomHex(bytes: number): string {
  return randomBytesFromPool(bytes).toString("hex");
}

/** A version 4 UUID (RFC 9562), as node:crypto's randomUUID makes. */
export function randomUuid(): string {
  const bytes = randomBytesFromPool(16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function readRandomBlock(): Buffer {
  const fresh = Buffer.alloc(BLOCK);
  let fd: number;
  try {
    fd = openSync("/dev/urandom", "r");
  } catch {
    // no /dev/urandom here (Windows, a chroot without /dev)
    return process.getBuiltinModule("node:crypto").randomFillSync(fresh);
  }
  try {
    let filled = 0;
    while (filled < BLOCK) {
      const read = readSync(fd, fresh, filled, BLOCK - filled, null);
      if (read === 0) throw new Error("/dev/urandom ended before giving the random bytes asked for");
      filled += read;
    }
  } finally {
    closeSync(fd);
  }
  return fresh;
}
