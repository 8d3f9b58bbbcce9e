import {
  closeSync,
  fstatSync,
  lstatSync,
  openSync,
  read,
  readFile,
  readFileSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from "node:fs";

/**
 * The file calls every tool call makes (the policy's realpath; the workspace guard's open, lstat and
 * reads; a search root's stat), behind promises as fs/promises has them but without it: node:fs/promises
 * brings readline, file watchers and folder streams, about 1 ms of a one-call `gantry tool` process.
 *
 * A call whose work is bounded (open, stat, lstat, realpath, close, a read of at most SYNC_READ_BYTES)
 * is made at once: handing it to libuv's thread pool costs more than the call (a wake-up of another
 * thread and one of the event loop), and the first such hand-off starts the pool's four threads, about
 * 0.7 ms of a tiny `gantry tool view_file`. A longer read goes through the pool, so reading a large
 * file never holds the event loop for longer than one small read. The same system calls and errors as
 * fs/promises (realpath is the C library's, as there).
 */
const SYNC_READ_BYTES = 64 * 1024;

/** An open file: the part of fs/promises' FileHandle the workspace's readers use, on its descriptor. */
export class OpenFile {
  #fd: number | undefined;

  constructor(fd: number) {
    this.#fd = fd;
  }

  /** The descriptor (-1 once closed, as FileHandle's). */
  get fd(): number {
    return this.#fd ?? -1;
  }

  read(
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number | null,
  ): Promise<{ bytesRead: number; buffer: Uint8Array }> {
    if (length <= SYNC_READ_BYTES)
      return settled(() => ({
        bytesRead: readSync(this.#open("read"), buffer, offset, length, position),
        buffer,
      }));
    return new Promise((resolve, reject) => {
      read(this.#open("read"), buffer, offset, length, position, (error, bytesRead) =>
        error ? reject(error) : resolve({ bytesRead, buffer }),
      );
    });
  }

  stat(): Promise<Stats> {
    return settled(() => fstatSync(this.#open("fstat")));
  }

  /** The rest of the file from its current position (as FileHandle's: reads at a position move none). */
  readFile(): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const fd = this.#open("read");
      if (fstatSync(fd).size <= SYNC_READ_BYTES) resolve(readFileSync(fd));
      else readFile(fd, (error, bytes) => (error ? reject(error) : resolve(bytes)));
    });
  }

  /**
   * Closes the descriptor once: a second close (a finally after an error path that closed it) does not
   * reach a descriptor number the process may have handed out again since.
   */
  close(): Promise<void> {
    const fd = this.#fd;
    this.#fd = undefined;
    return fd === undefined ? Promise.resolve() : settled(() => closeSync(fd));
  }

  #open(syscall: string): number {
    if (this.#fd !== undefined) return this.#fd;
    throw Object.assign(new Error(`EBADF: file closed, ${syscall}`), { code: "EBADF", syscall });
  }
}

/** Opens `file` with `flags` (the fs constants), as fs/promises' open. */
export function openFile(file: string, flags: number, mode?: number): Promise<OpenFile> {
  return settled(() => new OpenFile(openSync(file, flags, mode)));
}

/** The real path (the C library's realpath, as fs/promises' realpath). */
export function realPath(file: string): Promise<string> {
  return settled(() => realpathSync.native(file));
}

export function lstatOf(file: string): Promise<Stats> {
  return settled(() => lstatSync(file));
}

export function statOf(file: string): Promise<Stats> {
  return settled(() => statSync(file));
}

/** What `call` returns, or the error it throws, as a promise (the callers await either way). */
function settled<T>(call: () => T): Promise<T> {
  try {
    return Promise.resolve(call());
  } catch (error) {
    return Promise.reject(error);
  }
}
