/**
 * Serialises work on one file inside this process: parallel tool calls that edit the same real path
 * run one after the other, so no edit reads a file another edit is about to replace.
 */
export interface PathLock {
  /** Runs `work` once every earlier holder of `key` has finished (whether it failed or not). */
  withLock<T>(key: string, work: () => Promise<T>): Promise<T>;
  /** Paths with a holder or a waiter now (for tests and diagnostics). */
  busyCount(): number;
}

export function createPathLock(): PathLock {
  const tails = new Map<string, Promise<void>>();
  return {
    async withLock(key, work) {
      const previous = tails.get(key) ?? Promise.resolve();
      let release!: () => void;
      const current = new Promise<void>((resolve) => {
        release = resolve;
      });
      const tail = previous.then(() => current);
      tails.set(key, tail);
      await previous;
      try {
        return await work();
      } finally {
        release();
        // the last holder leaves no entry behind, so the map never grows with every file ever edited
        if (tails.get(key) === tail) tails.delete(key);
      }
    },
    busyCount: () => tails.size,
  };
}

/** One lock for the whole process: two sessions in one process editing one file still take turns. */
export const fileLocks: PathLock = createPathLock();
