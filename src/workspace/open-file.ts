import { close, fstat, lstat, open, read, readFile, realpath, type Stats, stat } from "node:fs";

/**
 * The few asynchronous file calls every tool call makes (the policy's realpath; the workspace guard's
 * open, lstat and reads; a search root's stat), on Node's callback API: node:fs/promises brings
 * readline, file watchers and folder streams with it, about 1 ms of a one-call `gantry tool` process
 * that never uses them. The same system calls as fs/promises makes (realpath is the native one, as
 * there), with the same errors.
 */

/** An open file: the part of fs/promises' FileHandle the workspace's readers use, on its descriptor. */
export class OpenFile {
  #fd: number | undefined;
  #closing: Promise<void> | undefined;

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
    return new Promise((resolve, reject) => {
      read(this.#open("read"), buffer, offset, length, position, (error, bytesRead) =>
        error ? reject(error) : resolve({ bytesRead, buffer }),
      );
    });
  }

  stat(): Promise<Stats> {
    return new Promise((resolve, reject) => {
      fstat(this.#open("fstat"), (error, stats) => (error ? reject(error) : resolve(stats)));
    });
  }

  /** The rest of the file from its current position (as FileHandle's: reads at a position move none). */
  readFile(): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      readFile(this.#open("read"), (error, bytes) => (error ? reject(error) : resolve(bytes)));
    });
  }

  /**
   * Closes the descriptor once: a second close (a finally after an error path that closed it) does not
   * reach a descriptor number the process may have handed out again since.
   */
  close(): Promise<void> {
    if (this.#closing) return this.#closing;
    const fd = this.#fd;
    this.#fd = undefined;
    this.#closing = new Promise((resolve, reject) => {
      if (fd === undefined) resolve();
      else close(fd, (error) => (error ? reject(error) : resolve()));
    });
    return this.#closing;
  }

  #open(syscall: string): number {
    if (this.#fd !== undefined) return this.#fd;
    throw Object.assign(new Error(`EBADF: file closed, ${syscall}`), { code: "EBADF", syscall });
  }
}

/** Opens `file` with `flags` (the fs constants), as fs/promises' open. */
export function openFile(file: string, flags: number, mode?: number): Promise<OpenFile> {
  return new Promise((resolve, reject) => {
    open(file, flags, mode, (error, fd) => (error ? reject(error) : resolve(new OpenFile(fd))));
  });
}

/** The real path (the C library's realpath, as fs/promises' realpath). */
export function realPath(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    realpath.native(file, (error, resolved) => (error ? reject(error) : resolve(resolved)));
  });
}

export function lstatOf(file: string): Promise<Stats> {
  return new Promise((resolve, reject) => {
    lstat(file, (error, stats) => (error ? reject(error) : resolve(stats)));
  });
}

export function statOf(file: string): Promise<Stats> {
  return new Promise((resolve, reject) => {
    stat(file, (error, stats) => (error ? reject(error) : resolve(stats)));
  });
}
